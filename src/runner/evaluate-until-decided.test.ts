import { describe, expect, it } from "vitest";
import { readResultsFile } from "../core/results-file.ts";
import { coinReplayAgent, REPLAY_SOLVED_MOCK_TASKS } from "../testing/coin-agent.ts";
import { offlineEvaluation } from "../testing/run-config.ts";
import { runEvaluation } from "./evaluate.ts";
import { readUntilDecidedRecord } from "./until-decided.ts";

const dataDir = process.env.TAU_DATA_DIR;

const taskIds = REPLAY_SOLVED_MOCK_TASKS;
const coinReplay = coinReplayAgent;

describe.skipIf(!dataDir)("runEvaluation until decided (skipped: TAU_DATA_DIR not set)", () => {
  it("stops early when the difference is large, records why, and does not run a decided run again", async () => {
    const baseline = await runEvaluation(
      offlineEvaluation({
        dataDir: dataDir!,
        taskIds,
        agent: coinReplay(0.2),
        numTrials: 8,
        maxConcurrency: 4,
      }),
    );
    const notes: string[] = [];
    const options = offlineEvaluation({
      dataDir: dataDir!,
      taskIds,
      maxConcurrency: 4,
      untilDecided: { against: baseline.resultsPath, effect: 0.4, roundTrials: 1 },
      onEvent: (event) => {
        if (event.type === "note") notes.push(event.message);
      },
    });
    const result = await runEvaluation(options);
    const record = result.untilDecided!;
    expect(record.decision).toBe("difference");
    expect(record.direction).toBe("better");
    expect(record.against).toBe(baseline.resultsPath);
    expect(record.test).toMatch(/^group-sequential paired t-test over tasks/);
    // Early: fewer trials than the design planned for its final look.
    const last = record.looks.at(-1)!;
    expect(last.requested_trials).toBeLessThan(record.planned_trials);
    expect(result.info.num_trials).toBe(last.requested_trials);
    expect(Math.abs(last.z ?? Number.POSITIVE_INFINITY)).toBeGreaterThanOrEqual(last.efficacy_boundary!);
    expect(notes.some((line) => /^look 1 at 1 trial\(s\) per task: /.test(line))).toBe(true);
    // The record is in the results file, as the results keep it.
    const onDisk = readResultsFile(result.resultsPath);
    expect(readUntilDecidedRecord(onDisk.info.taubench)).toEqual(record);
    expect(onDisk.simulations).toHaveLength(result.tasks.length * last.requested_trials);
    // Asked again, the decided run runs nothing more.
    const again = await runEvaluation({ ...options, onEvent: () => {} });
    expect(again.ranNow).toBe(0);
    expect(again.untilDecided).toEqual(record);
  });

  it("adds rounds while undecided, and an interrupted sequence goes on from its recorded looks", async () => {
    const agent = coinReplay(0.2);
    const baseline = await runEvaluation(
      offlineEvaluation({ dataDir: dataDir!, taskIds, agent, numTrials: 8, maxConcurrency: 4 }),
    );
    // The same agent again: no true difference. The second round is stopped as it starts.
    const controller = new AbortController();
    let started = 0;
    const options = offlineEvaluation({
      dataDir: dataDir!,
      taskIds,
      agent,
      maxConcurrency: 4,
      untilDecided: { against: baseline.resultsPath, effect: 0.4, roundTrials: 1 },
    });
    const interrupted = await runEvaluation({
      ...options,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "run_started" && ++started === 2) controller.abort(new Error("interrupted"));
      },
    });
    expect(interrupted.interrupted).toBe(true);
    const partial = interrupted.untilDecided!;
    expect(partial.decision).toBeNull();
    expect(partial.looks.map((look) => look.decision)).toEqual(["continue"]);
    expect(readUntilDecidedRecord(readResultsFile(interrupted.resultsPath).info.taubench)?.looks).toEqual(
      partial.looks,
    );
    const resumed = await runEvaluation(options);
    const record = resumed.untilDecided!;
    expect(record.looks[0]).toEqual(partial.looks[0]);
    expect(record.looks.map((look) => look.requested_trials)).toEqual(record.looks.map((_, i) => i + 1));
    expect(record.looks.length).toBeGreaterThan(1);
    expect(record.decision === "futile" || record.decision === "undecided").toBe(true);
    expect(record.direction).toBeNull();
    expect(resumed.info.num_trials).toBe(record.looks.at(-1)!.requested_trials);
    expect(resumed.info.num_trials).toBeLessThanOrEqual(record.planned_trials);
  });
});

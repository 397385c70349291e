/**
 * Deciding a comparison while trials are added: `tau run --against BASELINE
 * --until-decided` runs the new run in rounds and looks at the paired
 * difference in pass^1 after each; this module is the test it applies.
 *
 * The test is a group-sequential paired t-test over tasks with Bonferroni
 * alpha and beta spending (docs/statistics.md says why this one). At look k
 * the statistic is z_k = mean difference / standard error (paired over
 * tasks, as `tau compare`), and I_k = 1 / standard error² its information.
 * The design fixes I_max, the information the final look needs, and from the
 * baseline's per-task variances the trials per task of the new run that
 * reach it (`plannedTrials`). How far a look has come, t_k, is the planned
 * information at its trial counts over I_max: it depends on how many trials
 * ran, never on their outcomes, so no look is chosen by the data. Interim
 * looks together spend at most a share ε_α of alpha and ε_β of beta, in
 * proportion to t_k; the final look (at `plannedTrials`) spends the rest. A
 * look that spends α_k declares a difference when |z_k| ≥ t_{T−1}(1 −
 * α_k/2); one that spends β_k stops for futility ("cannot reach the effect")
 * when |z_k| < δ√I_k − t_{T−1}(1 − β_k). By the union bound, the chance of
 * ever declaring a difference that is not there is at most Σα_k = alpha, and
 * of ever stopping for futility when the true difference is δ at most Σβ_k =
 * beta, however many looks there are. I_max is chosen so the final look
 * decides: δ√I_max = t(1 − (1 − ε_α)α/2) + t(1 − (1 − ε_β)β). Both hold up to
 * the normal approximation of each look's statistic; the tests check them by
 * simulation with Bernoulli trials.
 */
import { studentTQuantile } from "./distributions.ts";
import {
  baselineForPlan,
  DEFAULT_ALPHA,
  DEFAULT_POWER,
  type PairedCounts,
  type TaskCounts,
} from "./power.ts";

/** The test's name as recorded in results. */
export const SEQUENTIAL_TEST =
  "group-sequential paired t-test over tasks, Bonferroni alpha and beta spending";

/** Default share of alpha spent at interim looks. */
export const DEFAULT_INTERIM_ALPHA_SHARE = 0.1;
/** Default share of beta spent at interim looks. */
export const DEFAULT_INTERIM_BETA_SHARE = 0.25;

/** Options of {@link designSequential}. */
export interface SequentialOptions {
  /** The difference in pass^1 to detect (δ). */
  effect: number;
  /** Two-sided significance level (default 0.05). */
  alpha?: number;
  /** Power against a true difference of `effect` (default 0.8). */
  power?: number;
  /** Share of alpha spent before the final look (default 0.1). */
  interimAlphaShare?: number;
  /** Share of beta spent before the final look (default 0.25). */
  interimBetaShare?: number;
  /** Most trials per task the new run may reach (default: no limit). */
  maxTrials?: number;
  /** Assumed variance of the true per-task differences, σ²_between (default 0: the same shift on every task). */
  betweenTask?: number;
}

/** Why a design cannot promise its power, in one line, with what would make it possible. */
export interface Infeasibility {
  /** `baseline`: its trial noise alone is too large; `tasks`: too few tasks for any trials; `budget`: more trials than allowed. */
  reason: "baseline" | "tasks" | "budget";
  message: string;
  /** For `baseline`: trials per task that both runs would need. */
  trialsNeeded?: number;
}

/** The fixed part of a sequential comparison, decided before the first round. */
export interface SequentialDesign {
  test: typeof SEQUENTIAL_TEST;
  effect: number;
  alpha: number;
  power: number;
  interimAlphaShare: number;
  interimBetaShare: number;
  betweenTask: number;
  /** Baseline tasks. */
  tasks: number;
  /** Information (1 / standard error²) the final look needs. */
  requiredInformation: number;
  /** Mean per-task Bernoulli variance of one baseline trial (assumed for the new run too). */
  trialVariance: number;
  /** Mean over baseline tasks of variance / trials: the baseline's share of a task difference's variance. */
  baselineVariance: number;
  /** Trials per task of the new run at which the final look is due (null when infeasible). */
  plannedTrials: number | null;
  /** Null when the design can promise its power; otherwise why not. */
  infeasible: Infeasibility | null;
}

/** Where a look leaves the comparison. */
export type SequentialDecision = "continue" | "difference" | "futile" | "undecided";

/** One look at the data: the statistic, its boundaries and the decision. */
export interface SequentialLook {
  /** 1 for the first look. */
  look: number;
  /** Fewest evaluated trials of a paired task in the new run. */
  trials: number;
  tasks: number;
  /** Mean over tasks of (new − baseline) success rate. */
  difference: number;
  standardError: number;
  z: number;
  information: number;
  informationFraction: number;
  final: boolean;
  /** Alpha spent up to and including this look. */
  alphaSpent: number;
  betaSpent: number;
  /** A difference is declared when |z| ≥ this (Infinity: none at this look). */
  efficacyBoundary: number;
  /** Futility is declared when |z| < this (null: none at this look). */
  futilityBoundary: number | null;
  decision: SequentialDecision;
}

function probability(name: string, value: number, allowZero = false): number {
  if (!((allowZero ? value >= 0 : value > 0) && value < 1))
    throw new RangeError(`${name} must be between 0 and 1, got ${value}`);
  return value;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length;
}

/** Plans the comparison against a baseline run's per-task counts (see the module comment). */
export function designSequential(
  baseline: readonly TaskCounts[],
  options: SequentialOptions,
): SequentialDesign {
  const effect = options.effect;
  if (!(effect > 0 && effect <= 1)) throw new RangeError(`effect must be in (0, 1], got ${effect}`);
  const alpha = probability("alpha", options.alpha ?? DEFAULT_ALPHA);
  const power = probability("power", options.power ?? DEFAULT_POWER);
  const interimAlphaShare = probability(
    "interimAlphaShare",
    options.interimAlphaShare ?? DEFAULT_INTERIM_ALPHA_SHARE,
    true,
  );
  const interimBetaShare = probability(
    "interimBetaShare",
    options.interimBetaShare ?? DEFAULT_INTERIM_BETA_SHARE,
    true,
  );
  const betweenTask = options.betweenTask ?? 0;
  if (!(betweenTask >= 0)) throw new RangeError(`betweenTask must be ≥ 0, got ${betweenTask}`);
  const tasks = baseline.length;
  const base = {
    test: SEQUENTIAL_TEST,
    effect,
    alpha,
    power,
    interimAlphaShare,
    interimBetaShare,
    betweenTask,
    tasks,
  } as const;
  if (tasks < 2)
    return {
      ...base,
      requiredInformation: Number.POSITIVE_INFINITY,
      trialVariance: 0,
      baselineVariance: 0,
      plannedTrials: null,
      infeasible: { reason: "tasks", message: "a paired comparison over tasks needs at least 2 tasks" },
    };
  const df = tasks - 1;
  const beta = 1 - power;
  const multiplier =
    studentTQuantile(1 - ((1 - interimAlphaShare) * alpha) / 2, df) +
    studentTQuantile(1 - (1 - interimBetaShare) * beta, df);
  const requiredInformation = (multiplier / effect) ** 2;
  // The variance one task's difference may have at the final look.
  const allowed = tasks / requiredInformation;
  const { trialVariance, baselineWithinTask: baselineVariance } = baselineForPlan(baseline);
  const room = allowed - betweenTask - baselineVariance;
  if (!(room > 0)) {
    const shared = allowed - betweenTask;
    const trialsNeeded = shared > 0 ? Math.ceil((2 * trialVariance) / shared - 1e-12) : undefined;
    const floor = multiplier * Math.sqrt((betweenTask + baselineVariance) / tasks);
    return {
      ...base,
      requiredInformation,
      trialVariance,
      baselineVariance,
      plannedTrials: null,
      infeasible:
        trialsNeeded === undefined
          ? {
              reason: "tasks",
              message: `with ${tasks} tasks no number of trials detects ${effect} (the assumed spread between tasks alone allows ${floor.toFixed(3)})`,
            }
          : {
              reason: "baseline",
              message: `the baseline's own trial noise is too large: even unlimited trials of the new run detect only ${floor.toFixed(3)}; both runs need about ${trialsNeeded} trials per task`,
              trialsNeeded,
            },
    };
  }
  const plannedTrials = Math.max(1, Math.ceil(trialVariance / room - 1e-12));
  const maxTrials = options.maxTrials ?? Number.POSITIVE_INFINITY;
  if (!(maxTrials >= 1)) throw new RangeError(`maxTrials must be at least 1, got ${maxTrials}`);
  return {
    ...base,
    requiredInformation,
    trialVariance,
    baselineVariance,
    plannedTrials,
    infeasible:
      maxTrials < plannedTrials
        ? {
            reason: "budget",
            message: `detecting ${effect} needs about ${plannedTrials} trials per task of the new run, more than the ${maxTrials} allowed`,
          }
        : null,
  };
}

/** The paired statistic of a look: mean difference (b − a), its standard error over tasks, z and information. */
export function pairedStatistic(pairs: readonly PairedCounts[]): {
  tasks: number;
  difference: number;
  standardError: number;
  z: number;
  information: number;
} {
  const differences = pairs.map((p) => p.b.successes / p.b.trials - p.a.successes / p.a.trials);
  const tasks = differences.length;
  const difference = mean(differences);
  const variance =
    tasks < 2
      ? Number.POSITIVE_INFINITY
      : differences.reduce((s, d) => s + (d - difference) ** 2, 0) / (tasks - 1);
  const standardError = Math.sqrt(variance / tasks);
  // Every task the same in both runs' noise-free sense: a zero spread decides on the sign alone.
  const z =
    standardError > 0 ? difference / standardError : difference === 0 ? 0 : Math.sign(difference) * Infinity;
  return { tasks, difference, standardError, z, information: 1 / (standardError * standardError) };
}

/**
 * The information the design expects when the new run has `trials` trials
 * of every task (for uneven counts pass the mean of 1 / trials as `inverseTrials`).
 */
export function plannedInformation(design: SequentialDesign, inverseTrials: number): number {
  return design.tasks / (design.betweenTask + design.baselineVariance + design.trialVariance * inverseTrials);
}

/**
 * Takes one look: the statistic over `pairs` (baseline as `a`, the new run as
 * `b`), this look's boundaries after what `previous` looks spent, and the
 * decision. The look is the final one when every paired task has reached the
 * planned trials, or when `final` says so (the run cannot go on).
 */
export function sequentialLook(
  design: SequentialDesign,
  previous: readonly SequentialLook[],
  pairs: readonly PairedCounts[],
  options: { final?: boolean } = {},
): SequentialLook {
  const statistic = pairedStatistic(pairs);
  const { tasks, information, z } = statistic;
  if (tasks < 2) throw new RangeError("a sequential look needs at least 2 paired tasks");
  const df = tasks - 1;
  const beta = 1 - design.power;
  if (design.plannedTrials === null) throw new RangeError(`an infeasible design has no looks`);
  const last = previous.at(-1);
  const trials = pairs.reduce((fewest, p) => Math.min(fewest, p.b.trials), Number.POSITIVE_INFINITY);
  const inverseTrials = mean(pairs.map((p) => 1 / p.b.trials));
  const fraction = Math.min(1, plannedInformation(design, inverseTrials) / design.requiredInformation);
  const final = options.final === true || trials >= design.plannedTrials;
  const alphaTarget = final ? design.alpha : design.interimAlphaShare * design.alpha * fraction;
  const betaTarget = final ? beta : design.interimBetaShare * beta * fraction;
  const alphaNow = Math.max(0, alphaTarget - (last?.alphaSpent ?? 0));
  const betaNow = Math.max(0, betaTarget - (last?.betaSpent ?? 0));
  const efficacyBoundary = alphaNow > 0 ? studentTQuantile(1 - alphaNow / 2, df) : Number.POSITIVE_INFINITY;
  const futilityBoundary =
    betaNow > 0 ? design.effect * Math.sqrt(information) - studentTQuantile(1 - betaNow, df) : null;
  const decision: SequentialDecision =
    Math.abs(z) >= efficacyBoundary
      ? "difference"
      : futilityBoundary !== null && Math.abs(z) < futilityBoundary
        ? "futile"
        : final
          ? "undecided"
          : "continue";
  return {
    look: previous.length + 1,
    trials,
    ...statistic,
    informationFraction: fraction,
    final,
    alphaSpent: (last?.alphaSpent ?? 0) + alphaNow,
    betaSpent: (last?.betaSpent ?? 0) + betaNow,
    efficacyBoundary,
    futilityBoundary,
    decision,
  };
}

/**
 * CPU of the LLM client alone, per model call: an `openai/…` client sends an
 * airline agent request (the data folder's policy and tools, a ten-message
 * context) to a server in a process of its own that answers at once with a
 * tool call, 50 calls in flight, and the client process's CPU is divided by
 * the calls. Measured twice, through the AI SDK model alone (`sdkOnly`) and
 * through the lean path (openai-chat.ts), each in a fresh process.
 * Alone: `npx tsx bench/llm-client.ts [--quick]`.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { loadDomain } from "../src/domains/registry.ts";
import { BUNDLED_PRICES } from "../src/llm/prices.ts";
import { ProviderLlmClient } from "../src/llm/provider-client.ts";
import { DEFAULT_RETRY_POLICY } from "../src/llm/retry.ts";
import type { LlmMessage } from "../src/llm/types.ts";
import { type BenchContext, type BenchModule, type BenchResult, runInChildren } from "./harness.ts";

const REPLY = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "gpt-4.1-2025-04-14",
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "get_reservation_details", arguments: '{"reservation_id": "8JX2WO"}' },
          },
        ],
        refusal: null,
        annotations: [],
      },
      logprobs: null,
      finish_reason: "tool_calls",
    },
  ],
  usage: { prompt_tokens: 6000, completion_tokens: 20, total_tokens: 6020 },
});

/** The answering server (child mode `--serve`): prints its port, answers every POST with {@link REPLY}. */
function serve(): void {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end(REPLY));
  });
  server.listen(0, "127.0.0.1", () => console.log((server.address() as AddressInfo).port));
  process.stdin.resume();
  process.stdin.on("end", () => process.exit(0));
}

function context(policy: string): LlmMessage[] {
  const args = (n: number) => ({ reservation_id: `R${n}`, amount: 2.5, passengers: [{ first: "Mia" }] });
  const messages: LlmMessage[] = [
    { role: "system", content: policy },
    { role: "assistant", content: "Hi! How can I help you today?" },
    { role: "user", content: "I want to change reservation 8JX2WO; my user id is mia_li_3668." },
  ];
  for (let n = 0; n < 3; n++) {
    const id = `call_${n}`;
    messages.push({
      role: "assistant",
      content: null,
      toolCalls: [{ id, name: "get_reservation_details", arguments: args(n), requestor: "assistant" }],
    });
    messages.push({
      role: "tool",
      content: JSON.stringify({ reservation_id: `R${n}`, flights: [] }),
      toolCallId: id,
    });
  }
  messages.push({ role: "assistant", content: "Which flight would you like instead?" });
  return messages;
}

/** Child mode: one path, `calls` calls; prints the CPU ms per call. */
async function measure(path: "sdk" | "lean", calls: number, dataDir: string): Promise<void> {
  const server = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--serve"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const port = await new Promise<string>((resolve) =>
    server.stdout!.once("data", (d) => resolve(String(d).trim())),
  );
  const domain = loadDomain("airline", dataDir);
  const tools = domain.makeEnvironment().getToolSchemas();
  const policy = domain.policy();
  const client = new ProviderLlmClient({
    model: "openai/gpt-4.1",
    provider: "openai",
    modelId: "gpt-4.1",
    apiKey: "fake-key",
    apiKeyVariable: "OPENAI_API_KEY",
    baseUrl: `http://127.0.0.1:${port}/v1`,
    promptCache: true,
    priceTable: BUNDLED_PRICES,
    retry: DEFAULT_RETRY_POLICY,
    timeoutMs: 600_000,
    onEvent: undefined,
    sdkOnly: path === "sdk",
  });
  // Each simulation has its own context: a fresh policy string and message objects, the same tools.
  const run = async (count: number) => {
    let next = 0;
    const worker = async () => {
      while (next < count) {
        next++;
        await client.generate({ messages: context(`${policy} `), tools, args: { temperature: 0 } });
      }
    };
    await Promise.all(Array.from({ length: 50 }, worker));
  };
  await run(Math.min(1000, calls));
  const before = process.cpuUsage();
  await run(calls);
  const used = process.cpuUsage(before);
  server.stdin!.end();
  const result: BenchResult = {
    subject: path === "sdk" ? "llm client (AI SDK path)" : "llm client (lean path)",
    metric: "CPU per model call",
    value: (used.user + used.system) / 1000 / calls,
    unit: "ms",
    note: `${calls} openai/* calls, airline context, 50 in flight`,
  };
  process.stdout.write(JSON.stringify([result]));
}

/** The bench row. */
export const llmClientBench: BenchModule = {
  name: "llm-client",
  description: "CPU per model call of the openai/* client alone, AI SDK path vs lean path",
  run(context: BenchContext): BenchResult[] {
    const calls = Math.max(500, Math.round(10_000 * context.scale));
    const results: BenchResult[] = [];
    const measured = new Map<string, number>();
    for (const path of ["sdk", "lean"] as const) {
      for (const result of runInChildren(import.meta.url, [`${path}:${calls}`], context, {
        TAU_DATA_DIR: context.dataDir,
      })) {
        measured.set(path, result.value);
        results.push(result);
      }
    }
    const sdk = measured.get("sdk");
    const lean = measured.get("lean");
    if (sdk !== undefined && lean !== undefined) {
      results.push({
        subject: "llm client",
        metric: "lean / sdk CPU per call",
        value: lean / sdk,
        unit: "ratio",
      });
    }
    return results;
  },
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const mode = process.argv[2];
  if (mode === "--serve") serve();
  else if (mode?.includes(":")) {
    const [path, calls] = mode.split(":") as ["sdk" | "lean", string];
    await measure(path, Number(calls), process.env.TAU_DATA_DIR ?? "");
  } else {
    const dataDir = process.env.TAU_DATA_DIR ?? "";
    const quick = process.argv.includes("--quick");
    const log = (line: string) => process.stderr.write(`${line}\n`);
    console.log(JSON.stringify(llmClientBench.run({ dataDir, scale: quick ? 0.1 : 1, log }), null, 1));
  }
}

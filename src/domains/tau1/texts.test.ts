/**
 * The prompt texts `tau data pull --tau1` extracts from upstream's sources:
 * each equals what upstream's own modules produce under python3 (the agent
 * instructions as constants, the user templates filled as upstream fills
 * them), and with them in the data folder the models get upstream's words.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { extractTau1Text, TAU1_TEXT_SOURCES } from "./convert.ts";
import { TAU1_MANIFEST } from "./manifest.ts";
import { fillTemplate, tau1Text } from "./texts.ts";
import { upstreamSourceDir } from "./upstream-harness.ts";

const sourceDir = upstreamSourceDir();

/** Upstream's modules with their imports stubbed (litellm records the prompts it is sent). */
const SCRIPT = `
import json, sys, types
sys.path.insert(0, sys.argv[1])
sent = []
class Message:
    def __init__(self, content):
        self.content = content
class Response:
    def __init__(self, content):
        self.choices = [types.SimpleNamespace(message=Message(content))]
        self._hidden_params = {"response_cost": 0.0}
def completion(**kwargs):
    sent.append(kwargs["messages"][0]["content"])
    return Response("true\\nReflection: r\\nResponse: new reply")
litellm = types.ModuleType("litellm")
litellm.completion = completion
sys.modules["litellm"] = litellm
types_module = types.ModuleType("tau_bench.types")
types_module.RESPOND_ACTION_NAME = "respond"
types_module.RESPOND_ACTION_FIELD_NAME = "content"
types_module.Action = types_module.SolveResult = object
sys.modules["tau_bench.types"] = types_module
base = types.ModuleType("tau_bench.envs.base")
base.Env = object
sys.modules["tau_bench.envs.base"] = base
import tau_bench.agents.chat_react_agent as agent
import tau_bench.envs.user as user
history = [{"role": "system", "content": "sys"}, {"role": "user", "content": "Hi there"}]
user.verify("m", "p", "RESPONSE", history)
user.reflect("m", "p", "RESPONSE", history)
print(json.dumps({
    "react_instruction": agent.REACT_INSTRUCTION,
    "act_instruction": agent.ACT_INSTRUCTION,
    "user_llm_system": user.LLMUserSimulationEnv.build_system_prompt(None, "INSTRUCTION"),
    "user_react_system": user.ReactUserSimulationEnv.build_system_prompt(None, "INSTRUCTION"),
    "user_verify_prompt": sent[0],
    "user_reflection_prompt": sent[1],
}))
`;

type TextName = keyof typeof TAU1_TEXT_SOURCES;

describe.skipIf(!sourceDir)("τ-bench's prompt texts from its sources (needs TAU1_SRC_DIR)", () => {
  const extracted = (name: TextName) => {
    const file = TAU1_TEXT_SOURCES[name].file;
    return extractTau1Text(name, file, readFileSync(join(sourceDir!, file), "utf8"));
  };

  it("equal what upstream's modules produce, templates filled as upstream fills them", () => {
    const python = spawnSync("python3", ["-c", SCRIPT, sourceDir!], { encoding: "utf8" });
    expect(python.status, python.stderr).toBe(0);
    const upstream = JSON.parse(python.stdout) as Record<TextName, string>;
    expect(extracted("react_instruction")).toBe(upstream.react_instruction);
    expect(extracted("act_instruction")).toBe(upstream.act_instruction);
    const display = { instruction_display: "\n\nInstruction: INSTRUCTION\n" };
    expect(fillTemplate(extracted("user_llm_system"), display)).toBe(upstream.user_llm_system);
    expect(fillTemplate(extracted("user_react_system"), display)).toBe(upstream.user_react_system);
    const slots = { transcript: "System: sys\nCustomer: Hi there", response: "RESPONSE" };
    expect(fillTemplate(extracted("user_verify_prompt"), slots)).toBe(upstream.user_verify_prompt);
    expect(fillTemplate(extracted("user_reflection_prompt"), slots)).toBe(upstream.user_reflection_prompt);
  });

  it("match the pinned sha256 and are read back as upstream's when the data folder has them", () => {
    const dir = mkdtempSync(join(tmpdir(), "tau1-texts-"));
    mkdirSync(join(dir, "texts"));
    for (const entry of TAU1_MANIFEST.filter((file) => file.kind === "text")) {
      const text = extracted(entry.variable as TextName);
      expect(Buffer.byteLength(text)).toBe(entry.bytes);
      expect(createHash("sha256").update(text).digest("hex")).toBe(entry.sha256);
      writeFileSync(join(dir, entry.path), text);
    }
    expect(tau1Text(dir, "react_instruction", "ours")).toEqual({
      text: extracted("react_instruction"),
      source: "upstream",
    });
    expect(tau1Text(join(dir, "nowhere"), "react_instruction", "ours")).toEqual({
      text: "ours",
      source: "paraphrased",
    });
  });
});

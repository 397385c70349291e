/**
 * Where upstream tau2-bench v1.0.1 keeps every text that reaches a model in a
 * text-mode run, as extraction rules over its Python sources (the files are
 * named with the sha256 of that release; spec upstream-texts.md). The keys are
 * what the rest of taubench asks the texts store for.
 */
import type { TextSource } from "./extract.ts";

/** Keys of the plain texts and templates (tool and model texts are looked up by domain and name). */
export const TAU2_TEXT = {
  agentInstruction: "agent.instruction",
  /** Fields `agent_instruction`, `domain_policy`. */
  agentSystemPrompt: "agent.system_prompt",
  goldPlanInstruction: "agent_gt.instruction",
  /** Fields `agent_instruction`, `domain_policy`, `resolution_steps`. */
  goldPlanSystemPrompt: "agent_gt.system_prompt",
  /** One line of the resolution steps; fields `number`, `instruction`. */
  goldPlanStep: "agent_gt.step",
  /** A user action's instruction; field `call`. */
  goldPlanUserAction: "agent_gt.user_action",
  /** An agent action's instruction; field `call`. */
  goldPlanAgentAction: "agent_gt.agent_action",
  /** Field `stop_function_name`. */
  soloInstruction: "agent_solo.instruction",
  /** Fields `agent_instruction`, `domain_policy`, `ticket`. */
  soloSystemPrompt: "agent_solo.system_prompt",
  /** The solo agent's `done` tool (a `tool` entry). */
  soloDoneTool: "agent_solo.done_tool",
  /** Fields `guidelines`, `instructions`. */
  userSystemPrompt: "user.system_prompt",
  scenarioPersona: "scenario.persona",
  scenarioInstructions: "scenario.instructions",
  /** Field `domain`. */
  scenarioDomain: "scenario.domain",
  /** Field `reason_for_call`. */
  scenarioReasonForCall: "scenario.reason_for_call",
  /** Field `known_info`. */
  scenarioKnownInfo: "scenario.known_info",
  /** Field `unknown_info`. */
  scenarioUnknownInfo: "scenario.unknown_info",
  /** Field `task_instructions`. */
  scenarioTaskInstructions: "scenario.task_instructions",
  greeting: "orchestrator.greeting",
  judgeSystemPrompt: "judge.system_prompt",
  /** Fields `trajectory`, `assertions`. */
  judgeUserPrompt: "judge.user_prompt",
  /** Fields `main_policy`, `tech_support_policy`. */
  telecomPolicy: "telecom.policy",
  /** One knowledge-base document in a policy; fields `title`, `content`. */
  bankingDocument: "banking_knowledge.document",
  bankingDocumentSeparator: "banking_knowledge.document_separator",
  bankingNoDocuments: "banking_knowledge.no_documents",
  /** Fields `provider`, `model`. */
  bankingDenseInstructions: "banking_knowledge.dense_instructions",
  bankingDenseProviderOpenai: "banking_knowledge.dense_provider_openai",
  bankingDenseProviderOpenrouter: "banking_knowledge.dense_provider_openrouter",
  bankingDenseModelOpenai: "banking_knowledge.dense_model_openai",
  bankingDenseModelOpenrouter: "banking_knowledge.dense_model_openrouter",
  /** The run-level policy recorded for `golden_retrieval`, whose policy is per task. */
  bankingPerTaskPolicy: "banking_knowledge.per_task_policy",
} as const;

const toolkit = (domain: string, className: string) =>
  ({ kind: "toolkit", key: `toolkit.${domain}.${className}`, domain, class: className }) as const;
const model = (domain: string, className: string) =>
  ({ kind: "model", key: `model.${domain}.${className}`, domain, class: className }) as const;
const same = (...names: string[]) => Object.fromEntries(names.map((name) => [name, name]));

/** tau2-bench v1.0.1 (tag commit fc0055dc4e0a316c3f83133267fbd6faaa770992). */
export const TAU2_TEXT_SOURCE: TextSource = {
  name: "tau2-bench",
  release: "v1.0.1",
  // The extraction is deterministic: these sources give exactly this texts file (checked by extract.test.ts).
  textsSha256: "8a8aa32a0158894d49cfe2ef1d3b6fff4ba2a52eb6b5de09553594c454147226",
  files: [
    {
      path: "src/tau2/agent/llm_agent.py",
      sha256: "d13412ff502859f0ef0492af0128f1b2666be32640057ba8e076d2602af084d8",
      rules: [
        { kind: "text", key: TAU2_TEXT.agentInstruction, select: { assign: "AGENT_INSTRUCTION" } },
        {
          kind: "template",
          key: TAU2_TEXT.agentSystemPrompt,
          select: { assign: "SYSTEM_PROMPT" },
          fields: same("agent_instruction", "domain_policy"),
        },
        { kind: "text", key: TAU2_TEXT.goldPlanInstruction, select: { assign: "AGENT_GT_INSTRUCTION" } },
        {
          kind: "template",
          key: TAU2_TEXT.goldPlanSystemPrompt,
          select: { assign: "SYSTEM_PROMPT_GT" },
          fields: same("agent_instruction", "domain_policy", "resolution_steps"),
        },
        {
          kind: "template",
          key: TAU2_TEXT.goldPlanStep,
          scope: "LLMGTAgent.make_agent_instructions_from_actions",
          select: { index: 1 },
          fields: {
            "i + 1": "number",
            "self.make_agent_instructions_from_action(action=action, include_function_args=self.provide_function_args)":
              "instruction",
          },
        },
        // The factory never passes provide_function_args, so only the with-arguments forms are used.
        {
          kind: "template",
          key: TAU2_TEXT.goldPlanUserAction,
          scope: "LLMGTAgent.make_agent_instructions_from_action",
          select: { return: 0 },
          fields: { "action.get_func_format()": "call" },
        },
        {
          kind: "template",
          key: TAU2_TEXT.goldPlanAgentAction,
          scope: "LLMGTAgent.make_agent_instructions_from_action",
          select: { return: 2 },
          fields: { "action.get_func_format()": "call" },
        },
        {
          kind: "template",
          key: TAU2_TEXT.soloInstruction,
          select: { assign: "AGENT_SOLO_INSTRUCTION" },
          fields: same("stop_function_name"),
        },
        {
          kind: "template",
          key: TAU2_TEXT.soloSystemPrompt,
          select: { assign: "SYSTEM_PROMPT_SOLO" },
          fields: same("agent_instruction", "domain_policy", "ticket"),
        },
        { kind: "tool", key: TAU2_TEXT.soloDoneTool, scope: "LLMSoloAgent.add_stop_tool.done" },
      ],
    },
    {
      path: "src/tau2/user/user_simulator.py",
      sha256: "bfe1defe73bce25450b2be697c249d6cec2f3ba25a70e32e2452ba75a53a630c",
      rules: [
        {
          kind: "template",
          key: TAU2_TEXT.userSystemPrompt,
          select: { assign: "SYSTEM_PROMPT" },
          fields: { global_user_sim_guidelines_with_persona: "guidelines", instructions: "instructions" },
        },
      ],
    },
    {
      path: "src/tau2/data_model/tasks.py",
      sha256: "0243a6454b2e9c8a14b8364c38ff95dc1dd7512105b69fada9bf9295fc8170fa",
      rules: [
        { kind: "text", key: TAU2_TEXT.scenarioPersona, scope: "UserScenario.__str__", select: { index: 0 } },
        {
          kind: "text",
          key: TAU2_TEXT.scenarioInstructions,
          scope: "UserScenario.__str__",
          select: { index: 2 },
        },
        ...(
          [
            [TAU2_TEXT.scenarioDomain, 1, "self.domain", "domain"],
            [
              TAU2_TEXT.scenarioReasonForCall,
              2,
              "textwrap.indent(self.reason_for_call, tab)",
              "reason_for_call",
            ],
            [TAU2_TEXT.scenarioKnownInfo, 3, "textwrap.indent(self.known_info, tab)", "known_info"],
            [TAU2_TEXT.scenarioUnknownInfo, 4, "textwrap.indent(self.unknown_info, tab)", "unknown_info"],
            [
              TAU2_TEXT.scenarioTaskInstructions,
              5,
              "textwrap.indent(self.task_instructions, tab)",
              "task_instructions",
            ],
          ] as const
        ).map(
          ([key, index, expr, field]) =>
            ({
              kind: "template",
              key,
              scope: "StructuredUserInstructions.__str__",
              select: { index },
              fields: { [expr]: field },
            }) as const,
        ),
      ],
    },
    {
      path: "src/tau2/orchestrator/orchestrator.py",
      sha256: "6c689e5d1037dd08aef8834b46f58efa14359824cbebf7084de0172e5f580cba",
      rules: [
        {
          kind: "text",
          key: TAU2_TEXT.greeting,
          select: { assign: "DEFAULT_FIRST_AGENT_MESSAGE", keyword: "content" },
        },
      ],
    },
    {
      path: "src/tau2/evaluator/evaluator_nl_assertions.py",
      sha256: "cb6b3758cdceb02a726732b4ee1af618affcc08f8ab84b44f060146b8f3ad90a",
      rules: [
        {
          kind: "text",
          key: TAU2_TEXT.judgeSystemPrompt,
          scope: "NLAssertionsEvaluator.evaluate_nl_assertions",
          select: { assign: "system_prompt" },
        },
        {
          kind: "template",
          key: TAU2_TEXT.judgeUserPrompt,
          scope: "NLAssertionsEvaluator.evaluate_nl_assertions",
          select: { assign: "user_prompt" },
          fields: { trajectory_str: "trajectory", nl_assertions: "assertions" },
        },
      ],
    },
    {
      path: "src/tau2/domains/mock/tools.py",
      sha256: "926b077132c8eabd2bbae8173dbed299eea7fcd4a78c74c3986766626a24b928",
      rules: [toolkit("mock", "MockTools")],
    },
    {
      path: "src/tau2/domains/mock/user_tools.py",
      sha256: "75a8e33dca3b358b2fab08786922aa142d03e053bc02c69c0d292af325a3131f",
      rules: [toolkit("mock", "MockUserTools")],
    },
    {
      path: "src/tau2/domains/airline/tools.py",
      sha256: "3987f21c286314cb48764f97052934ff4fd60e27a0b2e4a43423911adf8eaa26",
      rules: [toolkit("airline", "AirlineTools")],
    },
    {
      path: "src/tau2/domains/airline/data_model.py",
      sha256: "a8083e2f590e4b9b66a65d7cd50b7a0247e4fa33d6961aaeb02e4d92488b3cff",
      rules: [model("airline", "FlightInfo"), model("airline", "Passenger"), model("airline", "Payment")],
    },
    {
      path: "src/tau2/domains/retail/tools.py",
      sha256: "34f4fe9702d36f0dd4697700fbcd63d0cf5386e6eb8e7499aaa336243bad8750",
      rules: [toolkit("retail", "RetailTools")],
    },
    {
      path: "src/tau2/domains/telecom/tools.py",
      sha256: "388552434d1b8225e33e7958bdb6efccfe92b49e11d1838568d9b559514e9d01",
      rules: [toolkit("telecom", "TelecomTools")],
    },
    {
      path: "src/tau2/domains/telecom/user_tools.py",
      sha256: "03fa751eeea3734313a3f5274223d42750fd5c1a28f2624265a678f271ac309d",
      rules: [toolkit("telecom", "TelecomUserTools")],
    },
    {
      path: "src/tau2/domains/telecom/user_data_model.py",
      sha256: "27be0006694e9a740dd378f42099d6d1afecbd445f7906aedcd1f800087377c2",
      rules: [model("telecom", "APNSettings")],
    },
    {
      path: "src/tau2/domains/telecom/environment.py",
      sha256: "7bc335d717a8cb6bda54551fa2b5c12ff073f6287878d215f4181572e551abcd",
      rules: [
        {
          kind: "template",
          key: TAU2_TEXT.telecomPolicy,
          scope: "get_environment",
          select: { assign: "policy" },
          fields: same("main_policy", "tech_support_policy"),
        },
      ],
    },
    {
      path: "src/tau2/domains/banking_knowledge/tools.py",
      sha256: "e7287dc76ab74f7c172a9b632b6ebdb067a85bbc0cb7c769f7bdf08ec18aa1c0",
      rules: [
        toolkit("banking_knowledge", "KnowledgeTools"),
        toolkit("banking_knowledge", "KnowledgeUserTools"),
      ],
    },
    {
      path: "src/tau2/domains/banking_knowledge/retrieval_mixins.py",
      sha256: "1eb9051ff164329ab16fb0976ac36f7442346a894061ce657b1fb86c8e1ff86e",
      rules: [
        toolkit("banking_knowledge", "KBSearchMixin"),
        toolkit("banking_knowledge", "GrepMixin"),
        toolkit("banking_knowledge", "KBSearchBm25AllToolsMixin"),
        toolkit("banking_knowledge", "KBSearchDenseAllToolsMixin"),
        toolkit("banking_knowledge", "ShellMixin"),
      ],
    },
    {
      path: "src/tau2/domains/banking_knowledge/retrieval.py",
      sha256: "daa5b514532dd13c6f5caa04195282d6fe80f3af4f2d1ab139949bf208dfe2cd",
      rules: [
        {
          kind: "template",
          key: TAU2_TEXT.bankingDocument,
          scope: "format_full_knowledge_base",
          select: { index: 1 },
          fields: { "doc.title": "title", "doc.content": "content" },
        },
        {
          kind: "text",
          key: TAU2_TEXT.bankingDocumentSeparator,
          scope: "format_full_knowledge_base",
          select: { index: 2 },
        },
        { kind: "text", key: TAU2_TEXT.bankingNoDocuments, scope: "golden_prompt", select: { index: 4 } },
        {
          kind: "template",
          key: TAU2_TEXT.bankingDenseInstructions,
          scope: "format_all_tools_dense_instructions",
          select: { return: 1 },
          fields: same("provider", "model"),
        },
        {
          kind: "text",
          key: TAU2_TEXT.bankingDenseProviderOpenai,
          scope: "format_all_tools_dense_instructions",
          select: { assign: "provider", occurrence: 0 },
        },
        {
          kind: "text",
          key: TAU2_TEXT.bankingDenseProviderOpenrouter,
          scope: "format_all_tools_dense_instructions",
          select: { assign: "provider", occurrence: 1 },
        },
        {
          kind: "text",
          key: TAU2_TEXT.bankingDenseModelOpenai,
          select: { assign: "DEFAULT_DENSE_EMBEDDING_MODEL_OPENAI" },
        },
        {
          kind: "text",
          key: TAU2_TEXT.bankingDenseModelOpenrouter,
          select: { assign: "DEFAULT_DENSE_EMBEDDING_MODEL_OPENROUTER" },
        },
        {
          kind: "text",
          key: TAU2_TEXT.bankingPerTaskPolicy,
          scope: "get_info_policy_override",
          select: { return: 0 },
        },
      ],
    },
  ],
};

/**
 * The files of the original τ-bench data folder that `tau data pull --tau1`
 * builds from upstream's repository archive at the pinned commit, with the
 * sha256 and size of each file's exact bytes. Byte copies come straight from
 * the archive; the others are converted from upstream's Python sources
 * (./convert.ts). Generated from a reference conversion (tau-bench-data); the
 * prompt texts (`texts/`) from the sources at the same commit.
 */

/** Whether a data folder may lack the file (the prompt texts: without them runs use our own wording). */
export function isOptionalTau1File(entry: Pick<Tau1ManifestEntry, "kind">): boolean {
  return entry.kind === "text";
}

/** How a data file is made from the archive. */
export type Tau1FileKind = "copy" | "tasks" | "rules" | "tools" | "text";

/** One file of the τ-bench data folder. */
export interface Tau1ManifestEntry {
  /** Path inside the data folder. */
  readonly path: string;
  readonly kind: Tau1FileKind;
  /** Path inside the archive (below its top-level folder): a file, or the tools package folder. */
  readonly from: string;
  /** The task list's variable in the source module (`tasks` files), or the text's name (`text` files). */
  readonly variable?: string;
  readonly sha256: string;
  readonly bytes: number;
}

/** The pinned upstream commit (sierra-research/tau-bench). */
export const TAU1_COMMIT = "59a200c6d575d595120f1cb70fea53cef0632f6b";

/** Default archive: the repository snapshot at that commit. */
export const DEFAULT_TAU1_URL = `https://github.com/sierra-research/tau-bench/archive/${TAU1_COMMIT}.tar.gz`;

/** Every file of the τ-bench data folder. */
export const TAU1_MANIFEST: readonly Tau1ManifestEntry[] = [
  {
    path: "LICENSE",
    kind: "copy",
    from: "LICENSE",
    sha256: "243d23d45b80122b5ac575586ccef352fdc9c45e6d7d2605449aca8a17478b42",
    bytes: 1063,
  },
  {
    path: "airline/flights.json",
    kind: "copy",
    from: "tau_bench/envs/airline/data/flights.json",
    sha256: "444d7565c68434a3e3fb72efd717f9f9cd5c56dce227f6f56e078f1cb0ed233a",
    bytes: 2114218,
  },
  {
    path: "airline/reservations.json",
    kind: "copy",
    from: "tau_bench/envs/airline/data/reservations.json",
    sha256: "1cf0bbc58ad984be9de7c24dba6dd27393f94cdbd482d8524f6a54db1f561a8c",
    bytes: 2325594,
  },
  {
    path: "airline/tasks_test.json",
    kind: "tasks",
    from: "tau_bench/envs/airline/tasks_test.py",
    variable: "TASKS",
    sha256: "d069d5db278bced5ee6d4f5f5212f5a14111bda7e9eb33de65981d1ca549c94d",
    bytes: 66464,
  },
  {
    path: "airline/tools_info.json",
    kind: "tools",
    from: "tau_bench/envs/airline/tools",
    sha256: "9c3359bbf6db81c560c12b449b2534469df54e5060b0d66c92f3a6b85bd1ed84",
    bytes: 14103,
  },
  {
    path: "airline/users.json",
    kind: "copy",
    from: "tau_bench/envs/airline/data/users.json",
    sha256: "bd264e2a31e0fa35cdfef8987e70a0dd3776828b582fe90e7a44823a12eb4cea",
    bytes: 595947,
  },
  {
    path: "airline/wiki.md",
    kind: "copy",
    from: "tau_bench/envs/airline/wiki.md",
    sha256: "56c335801c16e26b54f600f9db99eb04d31db477e86eb160341d5c66b796c5c8",
    bytes: 6155,
  },
  {
    path: "few_shot/MockAirlineDomainEnv-few_shot.jsonl",
    kind: "copy",
    from: "few_shot_data/MockAirlineDomainEnv-few_shot.jsonl",
    sha256: "7b14cd22355cd8245662e6d2b54e5dcad7e7e7e14f2e2e009a5649f915d9ac11",
    bytes: 129793,
  },
  {
    path: "few_shot/MockRetailDomainEnv-few_shot.jsonl",
    kind: "copy",
    from: "few_shot_data/MockRetailDomainEnv-few_shot.jsonl",
    sha256: "091066a735d3d2605441764e0a2c6dcc93fb6595b400ff5e354416e6c8ba4a3a",
    bytes: 632679,
  },
  {
    path: "retail/orders.json",
    kind: "copy",
    from: "tau_bench/envs/retail/data/orders.json",
    sha256: "2598a12586d28f2d6bd16bc86f4c800029b6af18e0abb5c475ef5c869c11ced1",
    bytes: 1810945,
  },
  {
    path: "retail/products.json",
    kind: "copy",
    from: "tau_bench/envs/retail/data/products.json",
    sha256: "a9eabcc1a9742c5f5288c2779acce52b9308423383ed24706bbaf0889f762a0f",
    bytes: 172258,
  },
  {
    path: "retail/rules.json",
    kind: "rules",
    from: "tau_bench/envs/retail/rules.py",
    sha256: "b5d80e046a522ed92e1ed12d4155bfd4ff86ec217e0d933b71d2d1af9473421b",
    bytes: 927,
  },
  {
    path: "retail/tasks_dev.json",
    kind: "tasks",
    from: "tau_bench/envs/retail/tasks_dev.py",
    variable: "TASKS_DEV",
    sha256: "df113d36042548c08d0fa1fecef72a2243bfe2bb5d22ccbedad775c1984c21d8",
    bytes: 17722,
  },
  {
    path: "retail/tasks_test.json",
    kind: "tasks",
    from: "tau_bench/envs/retail/tasks_test.py",
    variable: "TASKS_TEST",
    sha256: "af83de8ff638e9798df36c631ef4c2f820ad60b031046412fd5e57be462e8b75",
    bytes: 166059,
  },
  {
    path: "retail/tasks_train.json",
    kind: "tasks",
    from: "tau_bench/envs/retail/tasks_train.py",
    variable: "TASKS_TRAIN",
    sha256: "a0141fff984fd991c327453fe1e3c55795fb450802f880ef7f69494d8e3306e6",
    bytes: 427081,
  },
  {
    path: "retail/tools_info.json",
    kind: "tools",
    from: "tau_bench/envs/retail/tools",
    sha256: "70efe69ccec8f8e81750e286bf29cb0e96c7932b699b3a57386a3395d09392f9",
    bytes: 15089,
  },
  {
    path: "retail/users.json",
    kind: "copy",
    from: "tau_bench/envs/retail/data/users.json",
    sha256: "6f4fd104cc5e80b92166c4035315c31532c6cea52a90dcdf18425ee7f87c2b82",
    bytes: 322932,
  },
  {
    path: "retail/wiki.md",
    kind: "copy",
    from: "tau_bench/envs/retail/wiki.md",
    sha256: "d539fd2a46a8b8dd2e934ff9ed92f43e9f6b56bc7a718db8d2803ba8ad8f6bf7",
    bytes: 5718,
  },
  {
    path: "texts/react_instruction.txt",
    kind: "text",
    from: "tau_bench/agents/chat_react_agent.py",
    variable: "react_instruction",
    sha256: "55c63f60091612c58abd959389d9d7c6b3602bc7044daba71bd99ee176205297",
    bytes: 1889,
  },
  {
    path: "texts/act_instruction.txt",
    kind: "text",
    from: "tau_bench/agents/chat_react_agent.py",
    variable: "act_instruction",
    sha256: "34dc702b2b9f7dc24c431cb0a83fc136d6d7812671769edbbdf51bdd4a9dd06e",
    bytes: 1636,
  },
  {
    path: "texts/user_llm_system.txt",
    kind: "text",
    from: "tau_bench/envs/user.py",
    variable: "user_llm_system",
    sha256: "86c3bd3439bedb76a5402c29851244780b54e1b41bb576bbf407ff94d65ebe6e",
    bytes: 847,
  },
  {
    path: "texts/user_react_system.txt",
    kind: "text",
    from: "tau_bench/envs/user.py",
    variable: "user_react_system",
    sha256: "e073060b5c4e954cb2eff724fe1186b5b65de723d7badf3da73fc7ff61c3c509",
    bytes: 1101,
  },
  {
    path: "texts/user_verify_prompt.txt",
    kind: "text",
    from: "tau_bench/envs/user.py",
    variable: "user_verify_prompt",
    sha256: "07475d40f114d9cc2d5b6cbe41c3ab9df49629537d6865cd1a1e4421794f4ee1",
    bytes: 421,
  },
  {
    path: "texts/user_reflection_prompt.txt",
    kind: "text",
    from: "tau_bench/envs/user.py",
    variable: "user_reflection_prompt",
    sha256: "8f6bac30af2bc7910ef053e042db24fa8490499d9c830dd02d22b9444ce12d84",
    bytes: 618,
  },
];

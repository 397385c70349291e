/**
 * The official data files `tau data pull` keeps, with the sha256 of the exact
 * bytes upstream v1.0.1 ships (text-mode domains and user-simulator guidelines).
 */

/** One expected file: its path inside the data folder and its sha256. */
export interface ManifestEntry {
  readonly path: string;
  readonly sha256: string;
  readonly bytes: number;
}

/** The pinned upstream release. */
export const UPSTREAM_RELEASE = "v1.0.1";

/** Default archive of that release (the repository snapshot at the tag). */
export const DEFAULT_DATA_URL =
  "https://github.com/sierra-research/tau2-bench/archive/refs/tags/v1.0.1.tar.gz";

/** Where the data folder lives inside the archive, below its single top-level folder. */
export const ARCHIVE_DATA_PREFIX = "data/tau2/";

/** Every file of the data folder, with its checksum. */
export const DATA_MANIFEST: readonly ManifestEntry[] = [
  {
    path: "domains/airline/db.json",
    sha256: "1af9fea6e03ca7ca15a22bb3fcaf3e351393e3fc9070b6777947da8996f7531b",
    bytes: 7042725,
  },
  {
    path: "domains/airline/policy.md",
    sha256: "10dc0525421521208be39cee235bba84a16e2bcba9899eb93d92cd81d2f62fc4",
    bytes: 7676,
  },
  {
    path: "domains/airline/split_tasks.json",
    sha256: "b22ced4d9a9850ac9aea31c53bdcb6d6009058140bd9acc7db37c1d36222ba8b",
    bytes: 1443,
  },
  {
    path: "domains/airline/tasks.json",
    sha256: "ccd8ba737b4cc371415af70151187788f728d6108d0916e73bb4317b40542052",
    bytes: 155528,
  },
  {
    path: "domains/mock/db.json",
    sha256: "8661f80b4c693bb15ef2fe6781d24a5765240d61fc74387c770133953f9113ea",
    bytes: 281,
  },
  {
    path: "domains/mock/policy.md",
    sha256: "50ccbefac7c9ba77ce54131d61cfc6882f74b88ace66771115f9d867ec098203",
    bytes: 278,
  },
  {
    path: "domains/mock/policy_solo.md",
    sha256: "2608375977bdeedd9cf34ab437b213403c8e97e9929d5094338355a994ac0c86",
    bytes: 224,
  },
  {
    path: "domains/mock/split_tasks.json",
    sha256: "613c3298e6fd3cf03f71f848ecee519068eb4df54a1ceb28596f5aa443ee6581",
    bytes: 416,
  },
  {
    path: "domains/mock/tasks.json",
    sha256: "0d8bcd14798bf2e6e082432147f62570c57b0897b4e4e388c95bb02ecbe5d8cf",
    bytes: 14134,
  },
  {
    path: "domains/mock/user_db.json",
    sha256: "78d424b5177e430b7f483787a956ad3a6a0880e8e5b312be8e373b15c876d51f",
    bytes: 203,
  },
  {
    path: "domains/retail/db.json",
    sha256: "413a65160adbdb5fde0ffc0015c49b6d70250b10c18128de169b597af7766765",
    bytes: 2811616,
  },
  {
    path: "domains/retail/policy.md",
    sha256: "2c9652afbce57d6e087768d37cda64d31c53d50b3e3225cfdb791bac66466467",
    bytes: 6699,
  },
  {
    path: "domains/retail/split_tasks.json",
    sha256: "ed0580ec52575b63fbf76568af42490da6ee7783ecb4aa81af46961291358f20",
    bytes: 3263,
  },
  {
    path: "domains/retail/tasks.json",
    sha256: "8e03ebce7901bd6218e7a7dc3105faa9324091a68058f7fe61c65262868812e8",
    bytes: 345982,
  },
  {
    path: "domains/telecom/db.toml",
    sha256: "562d647ef9d7df8df91eafd8ee76036e707c8f9e32aaedc4a7fde06975aea2c0",
    bytes: 9628,
  },
  {
    path: "domains/telecom/main_policy.md",
    sha256: "95943844a0cf11fdf0e2842b483b81d9f9338aa53235712ed131db075d086ed7",
    bytes: 5699,
  },
  {
    path: "domains/telecom/main_policy_solo.md",
    sha256: "781296ae5419169cb64aac0c4fa2aa6129c78f3c1592f64abd80df6fbabb7042",
    bytes: 5200,
  },
  {
    path: "domains/telecom/split_tasks.json",
    sha256: "605b488bb9a6acb3c7f4505240a855fdc8681d09aadb16a8f38b2efcfc5c3aec",
    bytes: 356149,
  },
  {
    path: "domains/telecom/tasks.json",
    sha256: "37e562e1ae3242577407e1303b1548bc64e7ea68e37d36173e6747990ceaf8a4",
    bytes: 13977063,
  },
  {
    path: "domains/telecom/tasks_full.json",
    sha256: "37e562e1ae3242577407e1303b1548bc64e7ea68e37d36173e6747990ceaf8a4",
    bytes: 13977063,
  },
  {
    path: "domains/telecom/tasks_small.json",
    sha256: "c8ea6f75adc18a8ad363974292cbd26b6e8b0e348ec87d265a4188e0088a8f24",
    bytes: 83833,
  },
  {
    path: "domains/telecom/tech_support_manual.md",
    sha256: "015a3ee49ec8c199c5e1a059c922081937b92cf3a5ea74fedbc4357816f389ba",
    bytes: 17589,
  },
  {
    path: "domains/telecom/tech_support_workflow.md",
    sha256: "64f3ccd13875d14f358b21b9af221dab09e0e7bf5690d0e4322fb91855a43a4d",
    bytes: 16390,
  },
  {
    path: "domains/telecom/tech_support_workflow_solo.md",
    sha256: "b174d1f9705b5d7df49468daf99560a5633f86d23e10499a1166a7753706a412",
    bytes: 15470,
  },
  {
    path: "domains/telecom/user_db.toml",
    sha256: "4886107ea0c16f8e16d74bef91cfb557de61822afe9361f5a9b241806aea2e4c",
    bytes: 933,
  },
  {
    path: "domains/telecom/workflows/tech_support_path1_no_service.dot",
    sha256: "d593247f1b5de4ebdcdeeb8d168b49fbf65eaabd235e6ec5cd09b097245ff163",
    bytes: 5821,
  },
  {
    path: "domains/telecom/workflows/tech_support_path2_mobile_data.dot",
    sha256: "61565fe4d77ff886559dc9a53b99af1a3af00f7d2349ea1a4055c47a81bc571b",
    bytes: 12313,
  },
  {
    path: "domains/telecom/workflows/tech_support_path3_mms.dot",
    sha256: "f3dcf3c4418dcc593cc14eedb09f0d031fda07d4524260bd0387dc7dacb566bb",
    bytes: 5961,
  },
  {
    path: "user_simulator/simulation_guidelines.md",
    sha256: "740a29dfa64d7bc08eea3bf7493575b914a63f744acbaf7f199ee07eddaf72d3",
    bytes: 1449,
  },
  {
    path: "user_simulator/simulation_guidelines_tools.md",
    sha256: "cbf3d8a4d8642fd04e559862f1afef55d7dd4e6a7e727ca49e239023c599de0c",
    bytes: 2747,
  },
];

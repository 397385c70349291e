import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { PyFloat, type PyValue, pyDumps } from "../../core/py-json.ts";
import { dataHashOf, hashableText, Tau1Data } from "./data.ts";

const map = (entries: [string, unknown][]) => new Map(entries) as Map<string, PyValue>;

describe("the data hash (Python str() of the sorted-tuple form)", () => {
  it("reproduces the spec's worked example and the empty dict", () => {
    const value = map([
      ["b", [new PyFloat(1), "x's", 'say "hi"', "both ' and \""]],
      [
        "a",
        map([
          ["t", true],
          ["k", null],
          ["n", 10],
          ["f", new PyFloat(1e16)],
          ["g", 0.0001],
          ["h", 1e-5],
        ]),
      ],
      ["c", []],
      ["d", map([])],
      ["e", ["only"]],
      ["u", "café\u200b\n\\"],
    ]);
    expect(hashableText(value)).toBe(
      `(('a', (('f', 1e+16), ('g', 0.0001), ('h', 1e-05), ('k', None), ('n', 10), ('t', True))), ('b', (1.0, "x's", 'say "hi"', 'both \\' and "')), ('c', ()), ('d', ()), ('e', ('only',)), ('u', 'café\\u200b\\n\\\\'))`,
    );
    expect(dataHashOf(value)).toBe("caef9d57f03081593cfda2124492d87d902f943f6b7b9ca5de835be8e8ee95c9");
    expect(dataHashOf(map([]))).toBe("2e38e77b22c314a449e91fafed92a43826ac6aa403ae6a8acb6cf58239fbaf5d");
  });

  it("writes what python3 writes for random values (quotes, escapes, non-ASCII, float forms, nesting)", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const atoms: unknown[] = [
      0,
      -7,
      123456789012345,
      new PyFloat(0),
      new PyFloat(-0),
      new PyFloat(1e16),
      new PyFloat(250),
      0.1 + 0.2,
      1e-5,
      -1.5e-7,
      0.04999999999999716,
      true,
      false,
      null,
      "",
      "plain",
      "it's",
      'a "quote"',
      "both ' \"",
      "back\\slash",
      "tab\tnew\nline\rcr",
      "\u0001\u007f\u0085",
      "é ü 漢字",
      "\u200b\u00a0\u2028\ue000",
      "😀 astral",
      "\ud800 lone",
    ];
    const build = (depth: number): unknown => {
      const roll = random();
      if (depth > 3 || roll < 0.5) return pick(atoms);
      if (roll < 0.75) return Array.from({ length: Math.floor(random() * 4) }, () => build(depth + 1));
      const entries: [string, unknown][] = [];
      const n = Math.floor(random() * 4);
      for (let i = 0; i < n; i++)
        entries.push([pick(["z", "a", "10", "9", "é", "😀", "\ue000", "A"]), build(depth + 1)]);
      return new Map(entries);
    };
    // Inside a container, as in the data (a bare top-level str would print without quotes).
    const values = Array.from({ length: 300 }, () => [build(0)]);
    const script =
      "import json,sys\n" +
      "def h(v):\n" +
      "    if isinstance(v, dict): return tuple(sorted((k, h(x)) for k, x in v.items()))\n" +
      "    if isinstance(v, list): return tuple(h(x) for x in v)\n" +
      "    return v\n" +
      "print(json.dumps([str(h(v)) for v in json.loads(sys.stdin.read())]))\n";
    const python = spawnSync("python3", ["-c", script], { input: pyDumps(values), encoding: "utf8" });
    expect(python.status, python.stderr).toBe(0);
    const expected = JSON.parse(python.stdout) as string[];
    values.forEach((value, i) => {
      expect({ i, text: hashableText(value) }).toEqual({ i, text: expected[i] });
    });
  });
});

describe("Tau1Data", () => {
  const base = () =>
    Tau1Data.fromCollections(
      new Map([
        [
          "orders",
          map(
            Array.from({ length: 50 }, (_, i) => [
              `#W${String(i * 7).padStart(4, "0")}`,
              map([
                ["status", "pending"],
                ["items", [map([["price", new PyFloat(10 + i)]])]],
              ]),
            ]),
          ),
        ],
        [
          "users",
          map([
            ["u1", map([["balance", 86]])],
            ["u2", map([["balance", 3]])],
          ]),
        ],
      ]),
    );

  it("hashes incrementally exactly as a full serialization does, through writes, inserts and forks", () => {
    const data = base();
    const initial = data.hash();
    expect(initial).toBe(data.hashFull());
    const fork = data.fresh();
    const order = fork.collection("orders").mutate("#W0014") as Map<string, PyValue>;
    order.set("status", "cancelled");
    order.set("cancel_reason", "no longer needed");
    expect(fork.hash()).toBe(fork.hashFull());
    expect(fork.hash()).not.toBe(initial);
    fork.collection("orders").set("#W0000a", map([["status", "new"]]));
    fork.collection("orders").set("#A", map([["status", "first"]]));
    fork.collection("orders").set("#Z", map([["status", "last"]]));
    (fork.collection("users").mutate("u2") as Map<string, PyValue>).set("balance", new PyFloat(4.5));
    expect(fork.hash()).toBe(fork.hashFull());
    const second = fork.fork();
    (second.collection("users").mutate("u1") as Map<string, PyValue>).delete("balance");
    expect(second.hash()).toBe(second.hashFull());
    expect(fork.hash()).toBe(fork.hashFull());
    // Writes never reach the shared base.
    expect(data.fresh().hash()).toBe(initial);
    expect(data.hash()).toBe(initial);
  });

  it("keeps Python's dict order: new keys last, replaced keys in place", () => {
    const data = base().fresh();
    const users = data.collection("users");
    users.set("u0", map([]));
    users.set("u1", map([["balance", 1]]));
    expect([...users.keys()]).toEqual(["u1", "u2", "u0"]);
  });
});

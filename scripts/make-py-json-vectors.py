#!/usr/bin/env python3
"""Writes src/core/fixtures/py-json-vectors.json: what CPython prints for the
number formatting, repr/str and json.dumps/json.loads cases that taubench's
core/py-json.ts must reproduce byte for byte.

Run with the Python upstream targets (>= 3.12; json error texts changed in 3.13):
    python3 scripts/make-py-json-vectors.py
Every float input is written as its repr, which JavaScript's Number() parses to
the same double.
"""

import json
import math
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "core" / "fixtures" / "py-json-vectors.json"

# A float as text JavaScript can parse back exactly (repr round-trips; specials spelled out).
def float_text(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


FLOATS = [
    0.0, -0.0, 1.0, -1.0, 100.0, -186.0, 0.1, 0.2, 0.1 + 0.2, 1.5, 2.675, 71.96000000000001,
    0.04999999999999716, 123456.789, 1e-05, 1e-4, 0.0001, 0.00012345, 9.999e-05, 1.5e-05,
    1e16, 9999999999999998.0, 1e15, 123456789012345.6, 1.5e16, 1.2345e16, 1e17, 1e22, 1e21,
    1.7976931348623157e308, 5e-324, 2.2250738585072014e-308, 1e-310, -1e-310, -0.5, -1e-05,
    -1.5e16, 3.141592653589793, 2.5, 1 / 3, 2 / 3, 4.35, 1234.5, 1e100, 1.1e-100, 12.0, 0.3,
    float("inf"), float("-inf"), float("nan"), 2.0**53, 2.0**53 + 2, 2.0**63, -(2.0**70),
]

FIXED = [
    (0.125, 2), (0.375, 2), (0.625, 2), (0.875, 2), (-0.125, 2), (-0.375, 2), (2.675, 2),
    (1.005, 2), (1.015, 2), (1.025, 2), (0.005, 2), (0.015, 2), (0.045, 2), (2.5, 0),
    (3.5, 0), (0.5, 0), (1.5, 0), (-2.5, 0), (0.25, 1), (0.35, 1), (0.05, 1), (0.0, 2),
    (-0.0, 2), (-0.001, 2), (-0.004, 2), (1e21, 2), (1.5e22, 2), (123456789.125, 2),
    (1234567890123.875, 2), (2**52 + 0.5, 0), (71.96000000000001, 2), (15.1, 2), (99.995, 2),
    (1 / 3, 3), (2 / 3, 5), (4.35, 1), (5e-324, 2), (1e-05, 2), (0.0049999999999999, 2),
    (0.00500000000000001, 2), (100.0, 2), (1e100, 2), (7.0625, 3), (7.1875, 3),
    (float("inf"), 2), (float("-inf"), 2), (float("nan"), 2),
]

ROUND = [
    (2.675, 2), (1.005, 2), (0.125, 2), (0.375, 2), (-0.125, 2), (2.5, 0), (3.5, 0), (0.5, 0),
    (1.15, 1), (1.25, 1), (1.35, 1), (-0.001, 2), (15.123456, 2), (0.1 + 0.2, 2), (1e21, 2),
    (123.455, 2), (99.995, 2), (4.35, 1), (71.96000000000001, 2), (1e-10, 2), (0.285, 2),
    (2.0, 2), (-1.5, 0), (5.0e-324, 2),
]

SAMPLE = {
    "b": [1, 2.0, -3.5, None, True, False, "x"],
    "a": {"z": 0.1 + 0.2, "y": 1e-05, "x": 1.5e16, "nested": {"k": [], "j": {}}},
    "10": "ten",
    "9": "nine",
    "é": "café ☕",
    "emoji": "🙂 smile",
    "ctrl": "tab\tnewline\nreturn\rbell\x07 del\x7f nul\x00 bs\b ff\f",
    "quotes": 'single \' double " back \\ slash /',
    "unicode": "日本語 \u2028 \ufeff \u00a0",
    "empty": "",
    "big": 9007199254740991,
    "neg": -0.0,
    "floats": [100.0, 71.96000000000001, 0.30000000000000004, 1e-4, 1e16],
    "ZZ": 1,
    "aa": 2,
    "_": 3,
}

DUMPS = [
    ("sample", SAMPLE),
    ("list", [1, [2, [3, []]], {}, {"a": None}]),
    ("scalar_string", "héllo\n"),
    ("scalar_float", 2.0),
    ("scalar_int", -7),
    ("empty_list", []),
    ("empty_dict", {}),
    ("surrogates", {"k\ud83d\ude00": "\U0001f600 \U0001d11e"}),
    ("specials", [float("inf"), float("-inf"), float("nan")]),
]

REPRS = [
    "plain",
    "it's",
    'say "hi"',
    "both ' and \"",
    "back\\slash",
    "line\nbreak\ttab\rret",
    "bell\x07 nul\x00 esc\x1b del\x7f",
    "c1\x80\x9f nbsp\xa0 shy\xad",
    "café ☕ 🙂 日本",
    "ls\u2028 ps\u2029 bom\ufeff zwsp\u200b",
    "private\ue000 unassigned\U000e0080",
    "",
    ["a", 1, 2.0, None, True, False, 0.1, -0.0, 1e-05, 1e16],
    {"k": "v", "n": [1, {"x": "it's"}], "f": 2.0},
    [],
    {},
    [["nested", ["deep"]], {"a": {"b": None}}],
    1.5,
    100.0,
    42,
    None,
    True,
]

# Integers beyond 2**53 are left out on purpose: taubench reads them as JavaScript numbers.
LOADS = [
    "1", "1.0", "-0", "-0.0", "1e5", "1E+2", "1.5e-3", "2.50", "100", "-186.0", "0.1",
    "9007199254740991", "-9007199254740991", "1e400", "-1e400", "NaN", "Infinity", "-Infinity",
    '{"a": 1, "b": 1.0, "c": [2, 2.0, 2e0], "d": {"e": -3.0}}',
    '[true, false, null, "x\\u00e9\\ud83d\\ude00"]',
    '{"10": 1, "2": 2, "a": 3, "1": 4}',
    '{"a": 1, "a": 2.0}',
    ' \t\n\r[ 1 , 2 ] ',
]

LOAD_ERRORS = [
    "", " ", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{'a':1}", "[1 2]", "\"abc", "tru", "[1] x",
    "\"\\x\"", "\"\\u12\"", "01", "-", "1.", "1e", "[", "{", "{\"a\":", "\"a\nb\"", "nul",
    "[1,\n  2,\n  ]", "{\"a\":1}\n{}", "- 1", "+1", ".5", "[-]", "\"\\ud83d\"x",
]


def loads_vector(text: str) -> dict:
    value = json.loads(text)
    return {"text": text, "dumps": json.dumps(value), "types": type_tree(value)}


# Int vs float per leaf, so the test can check that the parser kept the distinction.
def type_tree(value):
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return type(value).__name__
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, list):
        return [type_tree(v) for v in value]
    return {k: type_tree(v) for k, v in value.items()}


def load_error_vector(text: str) -> dict:
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        return {"text": text, "message": str(error), "position": error.pos}
    raise AssertionError(f"expected a decode error for {text!r}")


def main() -> None:
    vectors = {
        "python": sys.version.split()[0],
        "float_repr": [{"x": float_text(x), "repr": repr(x), "str": str(x)} for x in FLOATS],
        "fixed": [{"x": float_text(x), "digits": d, "out": format(x, f".{d}f")} for x, d in FIXED],
        "round": [{"x": float_text(x), "digits": d, "out": float_text(round(x, d))} for x, d in ROUND],
        "dumps": [
            {
                "name": name,
                "value": json.dumps(value, ensure_ascii=False),
                "compact": json.dumps(value),
                "sorted": json.dumps(value, sort_keys=True),
                "indent2": json.dumps(value, indent=2),
                "indent2_sorted": json.dumps(value, indent=2, sort_keys=True),
                "no_ascii": json.dumps(value, ensure_ascii=False),
            }
            for name, value in DUMPS
        ],
        "repr": [
            {"value": json.dumps(value, ensure_ascii=False), "repr": repr(value), "str": str(value)}
            for value in REPRS
        ],
        "loads": [loads_vector(text) for text in LOADS],
        "load_errors": [load_error_vector(text) for text in LOAD_ERRORS],
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(vectors, indent=1, ensure_ascii=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT} (python {vectors['python']})")


if __name__ == "__main__":
    main()

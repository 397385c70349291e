import { describe, expect, it } from "vitest";
import { calculateExpression, evaluateToFloat } from "./python-eval.ts";

/**
 * `str(round(float(eval(x)), 2))` after upstream's character check, as
 * CPython 3.10, 3.11, 3.12 and 3.13 all print it ("Error: " + str(e) on failure).
 */
const PYTHON_RESULTS: [string, string][] = [
  ["", "Error: invalid syntax (<string>, line 0)"],
  [" ", "Error: invalid syntax (<string>, line 0)"],
  ["1+", "Error: invalid syntax (<string>, line 1)"],
  ["(1+2", "Error: '(' was never closed (<string>, line 1)"],
  ["1+2)", "Error: unmatched ')' (<string>, line 1)"],
  [
    "01",
    "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
  ],
  ["00", "0.0"],
  ["0.1", "0.1"],
  ["1 2", "Error: invalid syntax (<string>, line 1)"],
  ["1..2", "Error: invalid syntax (<string>, line 1)"],
  ["1.2.3", "Error: invalid syntax (<string>, line 1)"],
  ["()", "Error: float() argument must be a string or a real number, not 'tuple'"],
  ["(", "Error: '(' was never closed (<string>, line 1)"],
  [")", "Error: unmatched ')' (<string>, line 1)"],
  ["1**", "Error: invalid syntax (<string>, line 1)"],
  ["2**-1", "0.5"],
  ["0**-1", "Error: 0.0 cannot be raised to a negative power"],
  ["(-8)**0.5", "Error: float() argument must be a string or a real number, not 'complex'"],
  ["10.0**400", "Error: (34, 'Numerical result out of range')"],
  ["1/0", "Error: division by zero"],
  ["1.0/0", "Error: float division by zero"],
  ["1//0", "Error: integer division or modulo by zero"],
  ["1.0//0", "Error: float floor division by zero"],
  ["-0.0", "-0.0"],
  ["7//-2", "-4.0"],
  ["7.5//-2", "-4.0"],
  ["2**2000", "Error: int too large to convert to float"],
  ["2**2000/2**1999", "2.0"],
  ["2**2000+0.5", "Error: int too large to convert to float"],
  ["3 / 7", "0.43"],
  ["2.675 + 0", "2.67"],
  ["  1+1", "2.0"],
  ["--1", "1.0"],
  ["+-+1", "-1.0"],
  ["1 + (2", "Error: '(' was never closed (<string>, line 1)"],
  [".5", "0.5"],
  ["5.", "5.0"],
  [".", "Error: invalid syntax (<string>, line 1)"],
  ["1 .5", "Error: invalid syntax (<string>, line 1)"],
  ["(1)(2)", "Error: 'int' object is not callable"],
  ["1(2)", "Error: 'int' object is not callable"],
  ["(1)2", "Error: invalid syntax (<string>, line 1)"],
  ["1 +* 2", "Error: invalid syntax (<string>, line 1)"],
  ["*1", "Error: invalid syntax (<string>, line 1)"],
  ["1///2", "Error: invalid syntax (<string>, line 1)"],
  ["(-8)**(1/3)+1", "Error: float() argument must be a string or a real number, not 'complex'"],
  ["((-1)**0.5)//1", "Error: unsupported operand type(s) for //: 'complex' and 'int'"],
  ["0.0**-1", "Error: 0.0 cannot be raised to a negative power"],
  ["00.5", "0.5"],
  [
    "0001",
    "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
  ],
  ["(1 2)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["( )", "Error: float() argument must be a string or a real number, not 'tuple'"],
  [")(", "Error: unmatched ')' (<string>, line 1)"],
  ["9999999999999999999999/3", "3.3333333333333335e+21"],
  ["10**30/7", "1.4285714285714285e+29"],
  ["(1 2", "Error: '(' was never closed (<string>, line 1)"],
  ["1 2)", "Error: unmatched ')' (<string>, line 1)"],
  [
    "1 2 01",
    "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
  ],
  ["(1 2 +)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["((1) 2)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["(1 .5)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["()+1", 'Error: can only concatenate tuple (not "int") to tuple'],
  ["()*2", "Error: float() argument must be a string or a real number, not 'tuple'"],
  ["-()", "Error: bad operand type for unary -: 'tuple'"],
  ["1+()", "Error: unsupported operand type(s) for +: 'int' and 'tuple'"],
  ["()**2", "Error: unsupported operand type(s) for ** or pow(): 'tuple' and 'int'"],
  ["1(2 3)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["1(1/0)", "Error: division by zero"],
  ["1.5()", "Error: 'float' object is not callable"],
  ["(1 +* 2", "Error: invalid syntax (<string>, line 1)"],
  ["(* 1", "Error: '(' was never closed (<string>, line 1)"],
  ["(*1)", "Error: cannot use starred expression here (<string>, line 1)"],
  ["(**1)", "Error: cannot use double starred expression here (<string>, line 1)"],
  ["1(*2)", "Error: 1 argument after * must be an iterable, not int"],
  ["1(**2)", "Error: 1 argument after ** must be a mapping, not int"],
  ["...", "Error: float() argument must be a string or a real number, not 'ellipsis'"],
  ["1+...", "Error: unsupported operand type(s) for +: 'int' and 'ellipsis'"],
  [
    "(1 +* 2 01)",
    "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
  ],
  ["-1/3", "-0.33"],
  ["1.005*1000", "1005.0"],
  ["0.1+0.2", "0.3"],
  ["123456789012345678901234567890", "1.2345678901234568e+29"],
  ["2**0.5", "1.41"],
  ["-2**2", "-4.0"],
  ["2**3**2", "512.0"],
  ["1e5", "Error: Invalid characters in expression"],
  [
    "(1 +* 2 01",
    "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
  ],
  ["(* 1", "Error: '(' was never closed (<string>, line 1)"],
  ["(1 +* 2)", "Error: invalid syntax (<string>, line 1)"],
  ["1 +* 2 (", "Error: invalid syntax (<string>, line 1)"],
  ["1 2 +* 3", "Error: invalid syntax (<string>, line 1)"],
  ["(1 2 +* 3", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["1 +* (2 3)", "Error: invalid syntax (<string>, line 1)"],
  ["((1 +* 2) 3)", "Error: invalid syntax (<string>, line 1)"],
  ["(1) (2 3)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["1 (2 3", "Error: '(' was never closed (<string>, line 1)"],
  [
    "(1 .5 01)",
    "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
  ],
  ["1. .5", "Error: invalid syntax (<string>, line 1)"],
  ["(1. .5)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["(1.5.5)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["(1 + ) 2", "Error: invalid syntax (<string>, line 1)"],
  ["( + )", "Error: invalid syntax (<string>, line 1)"],
  ["1 (2) 3", "Error: invalid syntax (<string>, line 1)"],
  ["(1 (2) 3)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["0.", "0.0"],
  ["-0", "0.0"],
  [
    "09",
    "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
  ],
  ["09.5", "9.5"],
  ["0 9", "Error: invalid syntax (<string>, line 1)"],
  ["1+--2", "3.0"],
  ["2**-1**2", "0.5"],
  ["4**0.5", "2.0"],
  ["(-8)**(1//3)", "1.0"],
  ["(-8)**3.0", "-512.0"],
  ["-7.0//2.5", "-3.0"],
  ["1/3", "0.33"],
  ["(*1 2)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["1+(*2)", "Error: cannot use starred expression here (<string>, line 1)"],
  ["(*1)(2)", "Error: cannot use starred expression here (<string>, line 1)"],
  ["1(*())", "Error: 'int' object is not callable"],
  ["1(**())", "Error: 1 argument after ** must be a mapping, not tuple"],
  ["((*1))", "Error: cannot use starred expression here (<string>, line 1)"],
  ["1()()", "Error: 'int' object is not callable"],
  ["()(1 2)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["(2 * * 3)", "Error: invalid syntax (<string>, line 1)"],
  ["(1 ** * 2)", "Error: invalid syntax (<string>, line 1)"],
  ["1(*1 2)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["...()", "Error: 'ellipsis' object is not callable"],
  ["-...", "Error: bad operand type for unary -: 'ellipsis'"],
  ["()+()", "Error: float() argument must be a string or a real number, not 'tuple'"],
  ["2*()", "Error: float() argument must be a string or a real number, not 'tuple'"],
  ["()*2.5", "Error: can't multiply sequence by non-int of type 'float'"],
  ["1e", "Error: Invalid characters in expression"],
  ["99999999999999999999999999999999999999/7", "1.4285714285714286e+37"],
  ["-1//3", "-1.0"],
  ["1.0//-0.0", "Error: float floor division by zero"],
  ["(-1)**0.5/0", "Error: complex division by zero"],
  ["2**1023*2.0", "inf"],
  ["2**1024*1.0", "Error: int too large to convert to float"],
  ["1/2**1100", "0.0"],
  ["2**1100/3", "Error: integer division result too large for a float"],
  ["0.1*3", "0.3"],
  ["1000000000000000000000000.0", "1e+24"],
  ["(((((1)))))", "1.0"],
  ["1-(-(-1))", "0.0"],
  ["7//2.0", "3.0"],
  ["-(2**63)//3", "-3.0744573456182584e+18"],
  ["+(5(3.6 .", "Error: '(' was never closed (<string>, line 1)"],
  ["(*6)7 ) *06", "Error: unmatched ')' (<string>, line 1)"],
  ["2-(()741*+))+", "Error: unmatched ')' (<string>, line 1)"],
  ["2.48**178", "1.630794308420741e+70"],
  ["1000*1.07**-30", "131.37"],
];

function run(expression: string): string {
  try {
    return calculateExpression(expression);
  } catch (error) {
    return `Error: ${(error as Error).message}`;
  }
}

describe("calculateExpression", () => {
  it("gives CPython's result or error text for 147 expressions", () => {
    const mismatches = PYTHON_RESULTS.filter(([expression, expected]) => run(expression) !== expected).map(
      ([expression, expected]) =>
        `${JSON.stringify(expression)}: expected ${expected}, got ${run(expression)}`,
    );
    expect(mismatches).toEqual([]);
  });

  it("keeps arbitrary-precision ints exact until the final float conversion", () => {
    expect(evaluateToFloat("2**2000//2**1998")).toBe(4);
    expect(evaluateToFloat("99999999999999999999 - 99999999999999999998")).toBe(1);
    expect(run("9**9**9")).toBe("Error: int too large to convert to float");
  });

  it("parses deeply nested parentheses without blowing up", () => {
    const nested = `${"(".repeat(200)}1 + 2${")".repeat(200)}`;
    expect(run(nested)).toBe("3.0");
    expect(run(`${"(".repeat(60)}1 2${")".repeat(60)}`)).toBe(
      "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)",
    );
  });
});

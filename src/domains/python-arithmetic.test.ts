import { describe, expect, it } from "vitest";
import { pythonCalculate } from "./python-arithmetic.ts";

const error = (expression: string) => {
  try {
    return `ok ${pythonCalculate(expression)}`;
  } catch (e) {
    return (e as Error).message;
  }
};

describe("pythonCalculate", () => {
  it("matches Python's str(round(float(eval(x)), 2)) on the spec's examples", () => {
    expect(pythonCalculate("3131.1 + 4777.75 + 367.38")).toBe("8276.23");
    expect(pythonCalculate("100")).toBe("100.0");
    expect(pythonCalculate("10/4")).toBe("2.5");
    expect(pythonCalculate("3 / 7")).toBe("0.43");
    expect(pythonCalculate("2.675 + 0")).toBe("2.67");
  });

  it("follows Python precedence, integer and float rules", () => {
    expect(pythonCalculate("-2**2")).toBe("-4.0");
    expect(pythonCalculate("2**-1")).toBe("0.5");
    expect(pythonCalculate("2**3**2")).toBe("512.0");
    expect(pythonCalculate("7//2")).toBe("3.0");
    expect(pythonCalculate("-7//2")).toBe("-4.0");
    expect(pythonCalculate("7.5//2")).toBe("3.0");
    expect(pythonCalculate(".5 + 5.")).toBe("5.5");
    expect(pythonCalculate("(1 + 2) * 3 - 4 / 8")).toBe("8.5");
    expect(pythonCalculate("0.1 + 0.2")).toBe("0.3");
    expect(pythonCalculate("-0.001")).toBe("-0.0");
    expect(pythonCalculate("1000 * 1000000000000000000000")).toBe("1e+24");
    expect(pythonCalculate("99999999999999999999 - 99999999999999999998")).toBe("1.0");
    expect(pythonCalculate("  00 + 1")).toBe("1.0");
  });

  it("raises Python's errors", () => {
    expect(error("2 + a")).toBe("Invalid characters in expression");
    expect(error("1/0")).toBe("division by zero");
    expect(error("1.0/0")).toBe("float division by zero");
    expect(error("1//0")).toBe("integer division or modulo by zero");
    expect(error("0**-1")).toBe("0.0 cannot be raised to a negative power");
    expect(error("01 + 1")).toBe(
      "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
    );
    expect(error("(1 + 2")).toBe("'(' was never closed (<string>, line 1)");
    expect(error("1 + 2)")).toBe("unmatched ')' (<string>, line 1)");
    expect(error("1 +")).toBe("invalid syntax (<string>, line 1)");
    expect(error("1 2")).toBe("invalid syntax. Perhaps you forgot a comma? (<string>, line 1)");
    expect(error("()")).toBe("float() argument must be a string or a real number, not 'tuple'");
    expect(error("10**400 * 1.0")).toBe("int too large to convert to float");
  });
});

import { describe, expect, it } from "vitest";
import {
  incompleteBeta,
  normalCdf,
  normalQuantile,
  normalUpperTail,
  studentTCdf,
  studentTDensity,
  studentTQuantile,
} from "./distributions.ts";

// Reference values computed with scipy.stats 1.17 (norm, t, special.betainc).
const close = (got: number, want: number, relative = 1e-12) =>
  expect(Math.abs(got - want)).toBeLessThanOrEqual(relative * Math.abs(want));

describe("normal distribution", () => {
  it("matches reference CDF values from the centre to the far tail", () => {
    close(normalCdf(-1), 0.15865525393145707);
    close(normalCdf(1.5), 0.9331927987311419);
    close(normalCdf(-2.9), 0.0018658133003840378, 1e-13);
    close(normalCdf(-3), 0.0013498980316301035, 1e-13);
    close(normalCdf(-5), 2.866515718791939e-7);
    close(normalCdf(-10), 7.61985302416047e-24, 1e-13);
    close(normalUpperTail(6), 9.865876450376946e-10);
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(-50)).toBe(0);
    expect(normalCdf(50)).toBe(1);
  });

  it("inverts the CDF", () => {
    close(normalQuantile(0.975), 1.959963984540054);
    close(normalQuantile(0.8), 0.8416212335729143);
    close(normalQuantile(0.99), 2.3263478740408408);
    close(normalQuantile(1e-5), -4.264890793922825);
    close(normalQuantile(1e-12), -7.034483825301131);
    expect(Math.abs(normalQuantile(0.5))).toBeLessThan(1e-15);
    expect(normalQuantile(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(() => normalQuantile(1.5)).toThrow(RangeError);
  });
});

describe("Student t distribution", () => {
  it("matches reference CDF and density values", () => {
    close(studentTCdf(2, 5), 0.9490302605850708);
    close(studentTCdf(3, 30), 0.9973050179671741);
    close(studentTCdf(-1, 1), 0.25);
    close(studentTDensity(0, 1), 1 / Math.PI);
    close(studentTDensity(1.5, 9), 0.12715127893906833, 1e-12);
    close(incompleteBeta(0.3, 2.5, 4), 0.3521975859067672, 1e-12);
    expect(studentTCdf(1.2, Number.POSITIVE_INFINITY)).toBe(normalCdf(1.2));
  });

  it("gives the textbook quantiles", () => {
    close(studentTQuantile(0.975, 9), 2.262157162798205);
    close(studentTQuantile(0.8, 9), 0.8834038596855346);
    close(studentTQuantile(0.975, 49), 2.009575237129235);
    close(studentTQuantile(0.975, 1), 12.706204736174698);
    close(studentTQuantile(0.9, 200), 1.2857987939948012);
    close(studentTQuantile(1e-6, 5), -24.771029720515948);
    close(studentTQuantile(0.99999, 4), 23.332182700855984);
    close(studentTQuantile(0.999999, 2), 707.1057205157672, 1e-11);
    expect(studentTQuantile(0.5, 7)).toBe(0);
  });
});

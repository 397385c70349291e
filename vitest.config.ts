import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // `npx vitest run --project unit` skips the real-browser suites (`*.browser.test.ts`) and the
    // slow process-level ones (`*.slow.test.ts`: kill -9 and resume, many times over).
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "scripts/**/*.test.ts", "examples/**/*.test.ts"],
          exclude: ["src/**/*.browser.test.ts", "src/**/*.slow.test.ts"],
        },
      },
      { extends: true, test: { name: "slow", include: ["src/**/*.slow.test.ts"] } },
      { extends: true, test: { name: "browser", include: ["src/**/*.browser.test.ts"] } },
    ],
  },
});

import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // `npx vitest run --project unit` skips the real-browser suites (`*.browser.test.ts`).
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "scripts/**/*.test.ts", "examples/**/*.test.ts"],
          exclude: ["src/**/*.browser.test.ts"],
        },
      },
      { extends: true, test: { name: "browser", include: ["src/**/*.browser.test.ts"] } },
    ],
  },
});

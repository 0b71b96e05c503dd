import { defineConfig } from "vitest/config";
import { SummaryReporter } from "./test/summaryReporter.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    reporters: ["default", new SummaryReporter()],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});

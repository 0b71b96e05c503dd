import { defineConfig } from "vitest/config";
import { SummaryReporter } from "./test/summaryReporter.js";

// Most test files spend their time waiting on child processes (the CLI, bwrap, tmux, MCP servers), not on a CPU,
// so more workers than cores pays: on 2 cores, 3 workers took the suite from 8.4 to 4.3 minutes.
// TOOLGATE_TEST_WORKERS overrides it (1 reproduces a serial run).
const workers = Number(process.env.TOOLGATE_TEST_WORKERS) || 3;

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    reporters: ["default", new SummaryReporter()],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    maxWorkers: workers,
  },
});

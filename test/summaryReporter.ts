import type { Reporter, TestModule } from "vitest/node";

/** Prints the closing line CI reads: `N passed, N failed[, N skipped]`. */
export class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      if (mod.state() === "failed" && mod.children.size === 0) failed++;
    }
    failed += unhandledErrors.length;
    const tail = skipped > 0 ? `, ${skipped} skipped` : "";
    process.stdout.write(`\n${passed} passed, ${failed} failed${tail}\n`);
  }
}

/**
 * `bash -n` answers are cached per line, but "bash could not check it" is not an answer: a check that timed
 * out under load must be asked again, or every later call of that line would be refused as a syntax error.
 */
import { afterEach, describe, expect, it } from "vitest";
import { bashSyntaxError, bashSyntaxErrorAsync } from "../../src/shell/parser.js";

afterEach(() => {
  delete process.env.TOOLGATE_BASH_CHECK_TIMEOUT_MS;
});

// Long enough that bash cannot read it within 1 ms on any machine, short enough to read in well under 10 s.
const big = (tag: string) => `${"echo x\n".repeat(400_000)}# ${tag}`;

describe("bash -n checks", () => {
  it("a check cut by its timeout is not remembered: the next check of the same line gets bash's verdict", async () => {
    const line = big("async");
    process.env.TOOLGATE_BASH_CHECK_TIMEOUT_MS = "1";
    expect(await bashSyntaxErrorAsync(line)).toMatch(/^bash could not check it/);
    delete process.env.TOOLGATE_BASH_CHECK_TIMEOUT_MS;
    expect(await bashSyntaxErrorAsync(line)).toBeUndefined();
  });

  it("the same for the blocking check", () => {
    const line = big("sync");
    process.env.TOOLGATE_BASH_CHECK_TIMEOUT_MS = "1";
    expect(bashSyntaxError(line)).toMatch(/^bash could not check it/);
    delete process.env.TOOLGATE_BASH_CHECK_TIMEOUT_MS;
    expect(bashSyntaxError(line)).toBeUndefined();
  });

  it("real verdicts are still remembered (a syntax error stays one)", async () => {
    expect(await bashSyntaxErrorAsync("ls ;; pwd")).toMatch(/syntax error/);
    expect(bashSyntaxError("ls ;; pwd")).toMatch(/syntax error/);
  });
});

import { describe, expect, it } from "vitest";
import { parseTaskFile, TaskFileError } from "../../src/fleet/task.js";
import { parseRate } from "../../src/fleet/worker.js";

function problems(text: string): string[] {
  try {
    parseTaskFile(text, "/tasks.jsonl");
  } catch (error) {
    if (error instanceof TaskFileError) return error.problems;
    throw error;
  }
  return [];
}

describe("parseTaskFile", () => {
  it("reads every line, skipping blank ones, with line numbers and stable ids", () => {
    const text = '{"cwd": "/a", "prompt": "one"}\n\n{"repo": "https://x/r.git", "ref": "main", "prompt": "two", "trust": true}\n{"id": "named", "cwd": "/b", "prompt": "three"}\n';
    const tasks = parseTaskFile(text, "/tasks.jsonl");
    expect(tasks.map((t) => t.line)).toEqual([1, 3, 4]);
    expect(tasks[2]!.jobId).toBe("named");
    expect(tasks[0]!.jobId).toMatch(/^task-[0-9a-f]{24}$/);
    expect(parseTaskFile(text, "/tasks.jsonl").map((t) => t.jobId)).toEqual(tasks.map((t) => t.jobId));
    expect(parseTaskFile(text, "/other.jsonl")[0]!.jobId).not.toBe(tasks[0]!.jobId);
    expect(tasks[1]!.task.trust).toBe(true);
  });

  it("names each bad line and why", () => {
    expect(
      problems(
        [
          '{"cwd": "/a", "prompt": "fine"}',
          "[1, 2",
          '{"prompt": "nowhere"}',
          '{"cwd": "/a", "prompt": ""}',
          '{"repo": "https://x/r.git", "prompt": "no ref"}',
          '{"cwd": "/a", "prompt": "p", "permissionMode": "yolo"}',
          '{"id": "123", "cwd": "/a", "prompt": "p"}',
          '{"id": "x", "cwd": "/a", "prompt": "p"}',
          '{"id": "x", "cwd": "/a", "prompt": "q"}',
          '{"cwd": "/a", "prompt": "p", "sandbox": false}',
        ].join("\n"),
      ),
    ).toEqual([
      expect.stringMatching(/^line 2: not JSON/),
      "line 3: needs cwd (a directory) or repo and ref (a git repository)",
      expect.stringMatching(/^line 4: prompt: /),
      "line 5: ref: repo needs a ref (a branch, tag or commit)",
      expect.stringMatching(/^line 6: permissionMode: /),
      expect.stringMatching(/^line 7: id: must not be only digits/),
      'line 9: id "x" is already used on line 8',
      expect.stringMatching(/^line 10: .*sandbox/),
    ]);
    expect(problems("\n\n")).toEqual(["the file has no tasks"]);
  });
});

describe("parseRate", () => {
  it("reads COUNT/DURATION", () => {
    expect(parseRate("5/1s")).toEqual({ max: 5, durationMs: 1_000 });
    expect(parseRate("100/m")).toEqual({ max: 100, durationMs: 60_000 });
    expect(parseRate("10/500ms")).toEqual({ max: 10, durationMs: 500 });
    expect(() => parseRate("5 per second")).toThrow(/COUNT\/DURATION/);
    expect(() => parseRate("0/1s")).toThrow(/positive/);
  });
});

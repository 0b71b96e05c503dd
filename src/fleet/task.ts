/** The task file of `toolgate fleet submit`: one JSON task per line, every line checked before any is queued. */
import crypto from "node:crypto";
import { z } from "zod";
import { PERMISSION_MODES } from "../core/permissionTypes.js";

const jobIdPattern = /^[A-Za-z0-9._-]{1,100}$/;

export const fleetTaskSchema = z
  .object({
    /** A stable name for the task; without one, the id is derived from the file and the line. */
    id: z
      .string()
      .regex(jobIdPattern, "letters, digits, '.', '_' and '-' only (at most 100)")
      .refine((id) => !/^\d+$/.test(id), "must not be only digits (Redis job ids of that shape are BullMQ's own)")
      .optional(),
    /** An existing directory on the worker's machine. */
    cwd: z.string().min(1).optional(),
    /** A git repository the worker clones for this task, at `ref`. */
    repo: z.string().min(1).optional(),
    ref: z.string().min(1).optional(),
    prompt: z.string().min(1),
    allowedTools: z.array(z.string().min(1)).optional(),
    permissionMode: z.enum(PERMISSION_MODES).optional(),
    model: z.string().min(1).optional(),
    maxTurns: z.number().int().positive().optional(),
    /** An extra settings layer, as `--settings` takes it. */
    settings: z.record(z.string(), z.unknown()).optional(),
    /** Trust the task's folder (its hooks, MCP servers, allow rules); off unless the task says so. */
    trust: z.boolean().optional(),
  })
  .strict()
  .superRefine((task, ctx) => {
    if (task.cwd !== undefined && task.repo !== undefined) ctx.addIssue({ code: "custom", message: "give cwd or repo, not both" });
    if (task.cwd === undefined && task.repo === undefined) ctx.addIssue({ code: "custom", message: "needs cwd (a directory) or repo and ref (a git repository)" });
    if (task.repo !== undefined && task.ref === undefined) ctx.addIssue({ code: "custom", path: ["ref"], message: "repo needs a ref (a branch, tag or commit)" });
    if (task.ref !== undefined && task.repo === undefined) ctx.addIssue({ code: "custom", path: ["ref"], message: "ref needs a repo" });
  });

export type FleetTask = z.infer<typeof fleetTaskSchema>;

export interface QueuedTask {
  /** The BullMQ job id: a resubmitted line gets the same one, so it is not queued twice. */
  jobId: string;
  /** 1-based line number in the task file. */
  line: number;
  task: FleetTask;
}

export class TaskFileError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
    this.name = "TaskFileError";
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message)).join("; ");
}

/**
 * Reads every line of a task file (blank lines are skipped). Throws a TaskFileError naming each bad line and
 * why, so the caller queues nothing unless every line is good. `source` identifies the file in derived ids.
 */
export function parseTaskFile(text: string, source: string): QueuedTask[] {
  const problems: string[] = [];
  const tasks: QueuedTask[] = [];
  const seen = new Map<string, number>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === "") return;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      problems.push(`line ${line}: not JSON (${(error as Error).message})`);
      return;
    }
    const parsed = fleetTaskSchema.safeParse(value);
    if (!parsed.success) {
      problems.push(`line ${line}: ${describeIssues(parsed.error)}`);
      return;
    }
    const jobId = parsed.data.id ?? `task-${crypto.createHash("sha256").update(`${source}\n${line}\n${trimmed}`).digest("hex").slice(0, 24)}`;
    const earlier = seen.get(jobId);
    if (earlier !== undefined) {
      problems.push(`line ${line}: id "${jobId}" is already used on line ${earlier}`);
      return;
    }
    seen.set(jobId, line);
    tasks.push({ jobId, line, task: parsed.data });
  });
  if (problems.length) throw new TaskFileError(problems);
  if (!tasks.length) throw new TaskFileError(["the file has no tasks"]);
  return tasks;
}

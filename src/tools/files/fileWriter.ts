import type { ToolUseContext, ValidationResult } from "../../core/Tool.js";
import type { AssistantMessage } from "../../core/messages.js";
import type { FileState } from "../../core/fileStateCache.js";
import { commitFileWrite } from "./commit.js";
import { FileToolError } from "./errors.js";
import { fileAtPath, openWriteTarget, type FileOnDisk } from "./checkedFile.js";
import { lookupFileState } from "./fileState.js";
import { notifyBeforeWrite } from "./observers.js";
import { editDenial, resolveToolPath } from "./toolPaths.js";

/** A writer's refusal: a stable code for telemetry, its number for ValidationResult.errorCode, the message for the model. */
export interface Refusal<Code extends string = string> {
  ok: false;
  code: Code;
  errorCode: number;
  message: string;
}

export type Prepared<Plan, Code extends string = string> = { ok: true; plan: Plan } | Refusal<Code>;

/**
 * A writer's refusal codes, numbered from 1 in the order given (append new codes at the end: the numbers
 * are telemetry and must not move). Returns the function that builds a refusal.
 */
export function refusalCodes<const Code extends string>(codes: readonly Code[]): (code: Code, message: string) => Refusal<Code> {
  return (code, message) => ({ ok: false, code, errorCode: codes.indexOf(code) + 1, message });
}

/** What the critical section writes. */
export interface FileWrite {
  absPath: string;
  bytes: Buffer;
  /** The decoded new content, remembered as read (absent for byte-mode edits of huge files). */
  text?: string;
  /** The file is new: create its parent directories. */
  createParents: boolean;
  /** Whether the model now knows every line of the file. */
  coversWholeFile: boolean;
  /** The file's bytes and read state the plan was made from; absent for a new file. */
  basis?: { raw: Buffer; state: FileState };
}

export interface FileWriterSpec<Input, Plan> {
  /** Telemetry prefix of refusals thrown from the critical section, e.g. `edit`. */
  label: string;
  /** The path the model named. */
  filePath(input: Input): string;
  /**
   * Every check and the new bytes, synchronously, from the file as it is now: `file` is the file by its path
   * in validation, and in the critical section the target opened and verified to be the one the permission
   * check judged (every read, stat and Edit-rule check goes through it).
   */
  prepare(input: Input, context: ToolUseContext, file: FileOnDisk): Prepared<Plan>;
  /** What to write for a plan. */
  write(plan: Plan): FileWrite;
}

export interface FileWriter<Input, Plan> {
  /** Prepares the write so every refusal reaches the model as a validation error; the plan is handed to call(). */
  validateInput(input: Input, context: ToolUseContext): Promise<ValidationResult>;
  /**
   * The critical section, synchronous from the re-read to the write: the validated plan is written when its
   * file has not changed since (byte for byte, same read state, still not denied); otherwise the write is
   * prepared again against the file as it is now, so a change made while a prompt was open is never lost.
   */
  commit(input: Input, context: ToolUseContext, parentMessage: AssistantMessage): Plan;
}

function stillCurrent(write: FileWrite, absPath: string, context: ToolUseContext, file: FileOnDisk): boolean {
  const { basis } = write;
  if (!basis || absPath !== write.absPath || lookupFileState(context, absPath) !== basis.state) return false;
  const stat = file.stat();
  if (!stat?.isFile() || stat.size !== basis.raw.length) return false;
  return file.read().raw.equals(basis.raw) && editDenial(absPath, context, file.realPath) === undefined;
}

/** The prepare → commit lifecycle shared by Edit, MultiEdit, Write and NotebookEdit. */
export function createFileWriter<Input, Plan>(spec: FileWriterSpec<Input, Plan>): FileWriter<Input, Plan> {
  return {
    async validateInput(input, context) {
      const absPath = resolveToolPath(spec.filePath(input), context);
      const prepared = spec.prepare(input, context, fileAtPath(absPath));
      if (!prepared.ok) return { result: false, message: prepared.message, errorCode: prepared.errorCode };
      await notifyBeforeWrite(context, absPath);
      return { result: true, prepared: prepared.plan };
    },
    commit(input, context, parentMessage) {
      const validated = context.validated as Plan | undefined;
      const absPath = resolveToolPath(spec.filePath(input), context);
      const target = openWriteTarget(absPath, context);
      try {
        let plan: Plan;
        if (validated !== undefined && stillCurrent(spec.write(validated), absPath, context, target.file)) {
          plan = validated;
        } else {
          const prepared = spec.prepare(input, context, target.file);
          if (!prepared.ok) throw new FileToolError(prepared.message, `${spec.label}:${prepared.code}`);
          plan = prepared.plan;
        }
        const { absPath: written, bytes, text, createParents, coversWholeFile } = spec.write(plan);
        commitFileWrite({ context, parentMessage, absPath: written, target, bytes, text, createParents, coversWholeFile });
        return plan;
      } finally {
        target.close();
      }
    },
  };
}

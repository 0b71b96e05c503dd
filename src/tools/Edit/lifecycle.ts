import type { ToolUseContext, ValidationResult } from "../../core/Tool.js";
import type { AssistantMessage } from "../../core/messages.js";
import { commitFileWrite } from "../shared/commit.js";
import { FileToolError } from "../shared/errors.js";
import { prepareFileEdit, reprepareFileEdit, type EditFileRequest, type PreparedEdit } from "./editFile.js";

/**
 * The validate → call lifecycle Edit and MultiEdit share: the edit is prepared in validateInput (so every
 * refusal reaches the model as a validation error), then re-prepared against the file as it is now and
 * written in call(), synchronously from the re-read to the write.
 */
export function createFileEditLifecycle<Input extends object>(toRequest: (input: Input) => EditFileRequest, errorLabel: string) {
  const validated = new WeakMap<object, PreparedEdit>();
  return {
    async validateInput(input: Input, context: ToolUseContext): Promise<ValidationResult> {
      const prepared = prepareFileEdit(toRequest(input), context);
      if (!prepared.ok) return { result: false, message: prepared.message, errorCode: prepared.errorCode };
      validated.set(input, prepared.edit);
      return { result: true };
    },
    commit(input: Input, context: ToolUseContext, parentMessage: AssistantMessage): PreparedEdit {
      const prepared = reprepareFileEdit(toRequest(input), context, validated.get(input));
      validated.delete(input);
      if (!prepared.ok) throw new FileToolError(prepared.message, `${errorLabel}:${prepared.code}`);
      const { edit } = prepared;
      commitFileWrite({
        context,
        parentMessage,
        absPath: edit.absPath,
        bytes: edit.newBytes,
        text: edit.newText,
        createParents: edit.creates,
        coversWholeFile: edit.applied[0]?.strategy === "create" || (edit.state?.coversWholeFile ?? false),
      });
      return edit;
    },
  };
}

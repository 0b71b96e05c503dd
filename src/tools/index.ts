import type { Tools } from "../core/Tool.js";

/** Every built-in tool, in the order they are presented to the model. */
export function getBuiltinTools(): Tools {
  return [];
}

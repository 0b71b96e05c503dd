export {
  createHookRunner,
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  type CommandHookRunner,
  type HookRunnerOptions,
  type CallbackHook,
  type PluginHookSource,
} from "./runner.js";
export { validateHooksSettings, type HookConfigProblem, type HooksValidation } from "./config.js";
export { compileMatcher, type CompiledMatcher } from "./matcher.js";

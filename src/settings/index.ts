export {
  loadSettings,
  mergeSettings,
  readSettingsFile,
  formatSettingsLoadError,
  settingsFileLocations,
  settingsRootFor,
  userSettingsPath,
  projectSettingsPath,
  localSettingsPath,
  DEFAULT_MANAGED_SETTINGS_PATH,
  type LoadSettingsOptions,
  type SettingsFileLocation,
  type ReadSettingsResult,
} from "./load.js";
export { validateSettings, settingsSchema, type SettingsValidation } from "./schema.js";
export { parseJsonWithLocation, type JsonParseResult } from "./json.js";
export { writeSettingsFileAtomic, updateSettingsFile, SettingsWriteError } from "./write.js";
export * from "./types.js";

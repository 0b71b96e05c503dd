export {
  loadSettingsFiles,
  mergeSettings,
  readSettingsFile,
  parseSettingsText,
  isInlineSettings,
  SETTING_SOURCE_NAMES,
  type SettingSourceName,
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
export { validateSettings, buildSettingsSchema, type SettingsSection, type SettingsValidation } from "./schema.js";
export { parseJsonWithLocation, type JsonParseResult } from "./json.js";
export { writeSettingsFileAtomic, updateSettingsFile, SettingsWriteError } from "./write.js";
export * from "./types.js";

export { addTrustedFolder, findTrustingFolder, isWithin, readTrustStore, realFolder, removeTrustedFolder, trustStorePath, TRUST_FILE, type TrustedFolder, type TrustStore } from "./store.js";
export { folderMcpServers, FOLDER_SOURCES, restrictFolderSettings, summarizeIgnored, untrustedNotice, type IgnoredSetting, type RestrictedSettings } from "./restrict.js";
export { decideTrust, trustSettingsSection, type DecideTrustOptions, type TrustDecision } from "./decide.js";

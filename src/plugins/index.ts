export { MANIFEST_FILE, PLUGIN_NAME, ManifestError, parseManifest, readManifest, type PluginManifest, type PluginAuthor } from "./manifest.js";
export { loadPlugin, pluginServerName, PLUGIN_ROOT_VARIABLE, type LoadedPlugin, type ComponentRoot, type PluginHooksFile, type LoadPluginOptions } from "./load.js";
export { addMarketplace, updateMarketplace, removeMarketplace, openMarketplace, readMarketplace, readKnownMarketplaces, pluginsHome, MARKETPLACE_FILE, type Marketplace, type MarketplaceEntry, type KnownMarketplace } from "./marketplace.js";
export { installPlugin, uninstallPlugin, setPluginEnabled, readInstalledPlugins, parsePluginId, type InstalledPlugin, type InstallResult } from "./install.js";
export { loadSessionPlugins, enabledPluginIds, enabledPluginsSettingsSection, type PluginDir, type SessionPlugins } from "./session.js";

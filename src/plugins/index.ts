export { MANIFEST_FILE, PLUGIN_NAME, ManifestError, parseManifest, readManifest, type PluginManifest, type PluginAuthor } from "./manifest.js";
export { loadPlugin, pluginServerName, PLUGIN_ROOT_VARIABLE, type LoadedPlugin, type ComponentRoot, type PluginHooksFile, type LoadPluginOptions } from "./load.js";
export { addMarketplace, updateMarketplace, removeMarketplace, openMarketplace, readMarketplace, readKnownMarketplaces, pluginsHome, MARKETPLACE_FILE, type Marketplace, type MarketplaceEntry, type KnownMarketplace, type AddMarketplaceOptions } from "./marketplace.js";
export { declaredMarketplaces, projectSourceSpec, type DeclaredMarketplace, type DeclaredMarketplacesOptions } from "./declared.js";
export { installPlugin, uninstallPlugin, setPluginEnabled, readInstalledPlugins, parsePluginId, type InstalledPlugin, type InstallResult, type InstallOptions } from "./install.js";
export { loadSessionPlugins, enabledPluginIds, enabledPluginsSettingsSection, type PluginDir, type SessionPlugins } from "./session.js";

import type { Tools } from "../core/Tool.js";
import { loadSettingsFiles, type LoadSettingsOptions, type SettingsSection } from "../settings/index.js";
import type { LoadedSettings } from "../settings/types.js";
import { permissionsSettingsSection } from "../permissions/settingsSection.js";
import { hooksSettingsSection } from "../hooks/settingsSection.js";
import { mcpSettingsSection } from "../mcp/client/settingsSection.js";
import { sandboxSettingsSection } from "../sandbox/settingsSection.js";
import { modelsSettingsSection, providerSettingsSection } from "../providers/settingsSection.js";
import { cleanupSettingsSection } from "../agent/settingsSection.js";
import { lspSettingsSection } from "../lsp/settingsSection.js";
import { getBuiltinTools } from "../tools/index.js";
import { editToolsSettingsSection } from "../tools/editDialect.js";
import { trustSettingsSection } from "../trust/decide.js";
import { passEnvSettingsSection } from "../util/childEnv.js";
import { enabledPluginsSettingsSection } from "../plugins/session.js";
import { outputStyleSettingsSection } from "../agent/outputStyles.js";
import { statusLineSettingsSection } from "../agent/statusLine.js";

/** Every section of settings.json toolgate reads, each declared by its owner; the tools' own come from the tools. */
export function settingsSections(tools: Tools = getBuiltinTools()): SettingsSection[] {
  return [permissionsSettingsSection, hooksSettingsSection, mcpSettingsSection, sandboxSettingsSection, modelsSettingsSection, providerSettingsSection, cleanupSettingsSection, lspSettingsSection, editToolsSettingsSection, trustSettingsSection, passEnvSettingsSection, enabledPluginsSettingsSection, outputStyleSettingsSection, statusLineSettingsSection, ...tools.flatMap((tool) => (tool.settingsSection ? [tool.settingsSection] : []))];
}

let builtinSections: SettingsSection[] | undefined;

/** Load every settings source, checked against every section toolgate has (see `loadSettingsFiles`). */
export function loadSettings(options: LoadSettingsOptions): LoadedSettings {
  return loadSettingsFiles({ ...options, sections: options.sections ?? (builtinSections ??= settingsSections()) });
}

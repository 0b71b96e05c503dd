import { z } from "zod";
import type { SettingsSection } from "../settings/index.js";
import type { LoadedSettings } from "../settings/types.js";
import { expandPath } from "../core/paths.js";
import { findTrustingFolder, isWithin, readTrustStore, realFolder } from "./store.js";
import { FOLDER_SOURCES } from "./restrict.js";

/**
 * `trustedFolders` in the user's own settings (`~/.toolgate/settings.json`), a `--settings` file or managed
 * settings: folders (and everything under them) trusted without asking, e.g. `["~/work"]` on a CI machine.
 * A folder's own settings cannot trust it: the key is ignored there.
 */
export const trustSettingsSection: SettingsSection = {
  key: "trustedFolders",
  schema: z.array(z.string().trim().min(1, "must not be empty")),
};

export interface TrustDecision {
  trusted: boolean;
  /** The folder judged: the project directory's real path. */
  folder: string;
  /** `flag`: --trust; `store`: `toolgate trust add` or the UI's question; `settings`: trustedFolders. */
  source: "flag" | "store" | "settings" | "none";
  /** The stored or configured folder that covers this one. */
  by?: string;
  /** The trust store could not be read: nothing it holds counts. */
  storeError?: string;
}

export interface DecideTrustOptions {
  cwd: string;
  /** toolgate's data home, where the trust store is. */
  home: string;
  loaded: LoadedSettings;
  /** `--trust`. */
  flag?: boolean;
  /** For `~` in trustedFolders; default the OS home. */
  userHome?: string;
}

/** Whether the project directory is trusted, and by what. */
export function decideTrust(options: DecideTrustOptions): TrustDecision {
  const folder = realFolder(options.cwd);
  if (options.flag) return { trusted: true, folder, source: "flag" };
  const store = readTrustStore(options.home);
  const stored = findTrustingFolder(store, folder);
  const storeError = store.error ? { storeError: store.error } : {};
  if (stored) return { trusted: true, folder, source: "store", by: stored.path };
  for (const file of options.loaded.files) {
    if (FOLDER_SOURCES.has(file.source)) continue;
    const listed = file.settings.trustedFolders;
    if (!Array.isArray(listed)) continue;
    for (const entry of listed) {
      if (typeof entry !== "string") continue;
      const configured = realFolder(expandPath(entry, file.root, options.userHome));
      if (isWithin(folder, configured)) return { trusted: true, folder, source: "settings", by: `${configured} (${file.path})` };
    }
  }
  return { trusted: false, folder, source: "none", ...storeError };
}

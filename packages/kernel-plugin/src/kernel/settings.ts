/**
 * The settings as the kernel authority reads them: `settings.json` in its own storage (the file
 * the Node server reads through `getFile`), once per call, fresh. With the kernel endpoint off, the
 * Node server is the authority, so this plugin must not coordinate writes too: strict calls are
 * refused, reads still run. Every call gets the permissions the file holds (none: full access).
 */

import { parseSettings, SETTINGS_FILE, type SisyphusSettings } from "@sisyphus/mcp-tools/settings";
import {
  type SettingsSnapshot,
  shellError,
  unusableSettingsRefusal,
} from "@sisyphus/mcp-tools/shell";
import type { PluginStorage } from "../stores/index.js";

/** The gateway's per-call settings snapshot at the kernel authority. */
export function kernelSettingsSnapshot(storage: PluginStorage) {
  return async (writeClass: boolean): Promise<SettingsSnapshot> => {
    let text: string | undefined;
    try {
      text = await (await storage.get(SETTINGS_FILE)).text();
    } catch {
      text = undefined; // no file: the defaults
    }
    let settings: SisyphusSettings;
    try {
      settings = parseSettings(text);
    } catch (e) {
      return {
        refusal: unusableSettingsRefusal(e instanceof Error ? e.message : String(e), writeClass),
      };
    }
    if (writeClass && !settings.kernelEndpointEnabled) {
      return {
        refusal: shellError(
          "write_coordinator_unavailable",
          "The kernel endpoint is off in the Sisyphus settings, so the Node server is the write authority: send strict calls there (or turn the kernel endpoint on). Nothing was written.",
          { reason: "kernel_endpoint_disabled" },
          { writeAttempted: false },
        ),
      };
    }
    return { permissions: settings.permissions };
  };
}

/**
 * The settings as the kernel authority reads them: `settings.json` in its own storage (the file
 * the Node server reads through `getFile`), once per call, fresh. With the kernel endpoint off, the
 * Node server is the authority, so this plugin must not coordinate writes too: strict calls are
 * refused, reads still run. Every call gets the permissions the file holds (none: full access).
 */

import type { CallToolResult } from "@modelcontextprotocol/server";
import { errorResult, TOOL_ERROR_HINTS } from "@sisyphus/mcp-tools";
import { parseSettings, SETTINGS_FILE, type SisyphusSettings } from "@sisyphus/mcp-tools/settings";
import { type SettingsSnapshot, shellError } from "@sisyphus/mcp-tools/shell";
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
      const message = `The Sisyphus settings cannot be used (${e instanceof Error ? e.message : String(e)})`;
      return {
        refusal: writeClass
          ? shellError(
              "write_coordinator_unavailable",
              `${message}; nothing was written.`,
              { reason: "settings_invalid" },
              { writeAttempted: false },
            )
          : (errorResult({
              code: "permission_denied",
              message: `${message}, so no permission applies; nothing ran.`,
              hint: TOOL_ERROR_HINTS.permission_denied,
              writeAttempted: false,
            }) as CallToolResult),
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

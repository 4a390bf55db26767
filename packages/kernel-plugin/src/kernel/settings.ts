/**
 * The settings as the kernel authority reads them: `settings.json` in its own storage (the file
 * the Node server reads through `getFile`), fresh before every strict call. With the kernel
 * endpoint off, the Node server is the authority, so this plugin must not coordinate writes too:
 * strict calls are refused, reads still run.
 */
import { parseSettings, SETTINGS_FILE } from "@sisyphus/mcp-tools/settings";
import { shellError } from "@sisyphus/mcp-tools/shell";
import type { PluginStorage } from "../stores/index.js";

/** The check the gateway runs before every mutation and external call. */
export function kernelAuthorityCheck(storage: PluginStorage) {
  return async () => {
    let text: string | undefined;
    try {
      text = await (await storage.get(SETTINGS_FILE)).text();
    } catch {
      text = undefined; // no file: the defaults
    }
    let enabled: boolean;
    try {
      enabled = parseSettings(text).kernelEndpointEnabled;
    } catch (e) {
      return shellError(
        "write_coordinator_unavailable",
        `The Sisyphus settings cannot be used (${e instanceof Error ? e.message : String(e)}); nothing was written.`,
        { reason: "settings_invalid" },
        { writeAttempted: false },
      );
    }
    if (enabled) return undefined;
    return shellError(
      "write_coordinator_unavailable",
      "The kernel endpoint is off in the Sisyphus settings, so the Node server is the write authority: send strict calls there (or turn the kernel endpoint on). Nothing was written.",
      { reason: "kernel_endpoint_disabled" },
      { writeAttempted: false },
    );
  };
}

/**
 * The settings as the kernel authority reads them: `settings.json` in its own storage (the file
 * the Node server reads through `getFile`), once per call, fresh. With the kernel endpoint off, the
 * Node server is the authority, so this plugin must not coordinate writes too: strict calls are
 * refused, reads still run. Every call gets the permissions, turned-off tools and kernel options
 * the file holds; `tools/list` lists what it leaves on; `/tasks` compares access fingerprints;
 * browser origins are checked against `options.allowedOrigins`.
 */

import type { ToolDescriptor, ToolRuntime } from "@sisyphus/mcp-tools";
import {
  accessFingerprint,
  originVerdict,
  parseSettings,
  SETTINGS_FILE,
  type SisyphusSettings,
} from "@sisyphus/mcp-tools/settings";
import {
  type SettingsSnapshot,
  shellError,
  unusableSettingsRefusal,
} from "@sisyphus/mcp-tools/shell";
import type { PluginStorage } from "../stores/index.js";

/** One read of the settings: usable ones, or why not. */
export type KernelSettingsRead =
  | { readonly ok: true; readonly settings: SisyphusSettings }
  | { readonly ok: false; readonly message: string };

/** Reads and parses the settings file (absent: the defaults); never throws. */
export async function readKernelSettings(storage: PluginStorage): Promise<KernelSettingsRead> {
  let text: string | undefined;
  try {
    text = await (await storage.get(SETTINGS_FILE)).text();
  } catch {
    text = undefined; // no file: the defaults
  }
  try {
    return { ok: true, settings: parseSettings(text) };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

/** The gateway's per-call settings snapshot at the kernel authority. */
export function kernelSettingsSnapshot(storage: PluginStorage) {
  return async (writeClass: boolean): Promise<SettingsSnapshot> => {
    const read = await readKernelSettings(storage);
    if (!read.ok) return { refusal: unusableSettingsRefusal(read.message, writeClass) };
    if (writeClass && !read.settings.kernelEndpointEnabled) {
      return {
        refusal: shellError(
          "write_coordinator_unavailable",
          "The kernel endpoint is off in the Sisyphus settings, so the Node server is the write authority: send strict calls there (or turn the kernel endpoint on). Nothing was written.",
          { reason: "kernel_endpoint_disabled" },
          { writeAttempted: false },
        ),
      };
    }
    return { settings: read.settings };
  };
}

/**
 * `tools/list` at the kernel authority, one settings read per list: the tools they leave on.
 * Unusable settings list every tool (each call then answers why it cannot run).
 */
export function kernelToolListing(storage: PluginStorage, runtime: ToolRuntime) {
  return async (): Promise<readonly ToolDescriptor[]> => {
    const read = await readKernelSettings(storage);
    return runtime.listTools(read.ok ? read.settings.disabled : []);
  };
}

/**
 * Whether a request's `Origin` header may reach the plugin's routes (the Node server's rule):
 * absent passes; a loopback origin (`localhost`, `127.x`, `[::1]`, any port, http or https)
 * passes; any other must be listed exactly. `allowed` is read only for such other origins, so
 * requests without a foreign `Origin` cost no settings read.
 */
export async function originAllowed(
  origin: string | undefined,
  allowed: () => Promise<readonly string[]>,
): Promise<boolean> {
  const v = originVerdict(origin);
  return v.verdict === "check" ? (await allowed()).includes(v.origin) : v.verdict === "pass";
}

/** A request header by name, whatever its case (the kernel hands canonical Go names). */
function header(
  headers: Readonly<Record<string, readonly string[]>>,
  name: string,
): string | undefined {
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === name) return headers[key]?.[0];
  }
  return undefined;
}

/**
 * Whether a private-route request must be refused for its `Origin` (403 `origin_not_allowed`,
 * before any work): one present that is neither loopback nor in the settings' `allowedOrigins`
 * (unusable settings allow none).
 */
export async function originRefused(
  headers: Readonly<Record<string, readonly string[]>>,
  storage: PluginStorage,
): Promise<boolean> {
  const check = originCheck(headers, storage);
  return typeof check === "string" ? check === "refused" : check;
}

/**
 * {@link originRefused}, answered at once where no settings read is needed: `pass` (no `Origin`,
 * or a loopback one), `refused` (not an origin), else a promise of whether the settings refuse it.
 * The SSE slot needs the synchronous answer: SiYuan 3.7.3 reports a rejected handler only as
 * "promise rejected: <nil>", so a refusal must be thrown before the handler's first await.
 */
export function originCheck(
  headers: Readonly<Record<string, readonly string[]>>,
  storage: PluginStorage,
): "pass" | "refused" | Promise<boolean> {
  const v = originVerdict(header(headers, "origin"));
  if (v.verdict !== "check") return v.verdict === "pass" ? "pass" : "refused";
  return readKernelSettings(storage).then(
    (read) => !(read.ok && read.settings.options.allowedOrigins.includes(v.origin)),
  );
}

/** The access fingerprint of the settings now; `undefined` when they cannot be used. */
export async function currentAccess(storage: PluginStorage): Promise<string | undefined> {
  const read = await readKernelSettings(storage);
  return read.ok ? accessFingerprint(read.settings) : undefined;
}

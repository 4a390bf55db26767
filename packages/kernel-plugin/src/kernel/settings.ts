/**
 * The settings as the kernel authority reads them: `settings.json` in its own storage (the file
 * the Node server reads through `getFile`), once per call, fresh. With the kernel endpoint off, the
 * Node server is the authority, so this plugin must not coordinate writes too: strict calls are
 * refused, reads still run (`perCallSettings`, shared with the Node server). `/tasks` compares
 * access fingerprints; browser origins are checked against `options.allowedOrigins`.
 */

import {
  accessFingerprint,
  originVerdict,
  parseSettings,
  SETTINGS_FILE,
} from "@sisyphus/mcp-tools/settings";
import type { SettingsRead } from "@sisyphus/mcp-tools/shell";
import type { PluginStorage } from "../stores/index.js";

/**
 * Reads and parses the settings file (absent or unreadable: the defaults; a file that does not
 * parse: `invalid`); never throws. The snapshot and listing of every call read it
 * (`perCallSettings` in `@sisyphus/mcp-tools/shell`).
 */
export async function readKernelSettings(storage: PluginStorage): Promise<SettingsRead> {
  let text: string | undefined;
  try {
    text = await (await storage.get(SETTINGS_FILE)).text();
  } catch {
    text = undefined; // no file: the defaults
  }
  try {
    return { ok: true, settings: parseSettings(text) };
  } catch (e) {
    return { ok: false, reason: "invalid", message: e instanceof Error ? e.message : String(e) };
  }
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

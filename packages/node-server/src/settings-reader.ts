/**
 * Reads the plugin's settings (`@sisyphus/mcp-tools` `SETTINGS_WORKSPACE_PATH`) through the
 * kernel's `/api/file/getFile`: at start, to choose the authority before anything else is loaded,
 * and for every call (its permission snapshot; beside the call's first kernel reads, decided before
 * any write and any answer), so a changed authority is refused (`write_coordinator_changed`)
 * instead of followed. Sent through `kernel-request.ts` (kept-alive `node:http` sockets, not `fetch`).
 */
import {
  parseSettings,
  SETTINGS_WORKSPACE_PATH,
  type SisyphusSettings,
} from "@sisyphus/mcp-tools/settings";
import { type KernelAnswer, kernelRequest } from "./kernel-request.js";

/** Which authority the settings select. */
export type AuthorityKind = "node-http" | "kernel";

/** What a read found. */
export type SettingsRead =
  | { readonly ok: true; readonly settings: SisyphusSettings; readonly kind: AuthorityKind }
  /** The kernel did not answer (down, refused, timed out): the caller decides what that means. */
  | { readonly ok: false; readonly reason: "unreachable"; readonly message: string }
  /** The kernel answered, but the file is not usable settings, or the token was refused. */
  | { readonly ok: false; readonly reason: "invalid" | "unauthorized"; readonly message: string };

/** Reads and parses the settings file; never throws. */
export async function readSettings(
  siyuanUrl: string,
  siyuanToken: string | undefined,
  timeoutMs: number,
): Promise<SettingsRead> {
  let res: KernelAnswer;
  try {
    res = await kernelRequest(
      { siyuanUrl, ...(siyuanToken === undefined ? {} : { siyuanToken }) },
      "/api/file/getFile",
      { json: { path: SETTINGS_WORKSPACE_PATH }, timeoutMs, idempotent: true },
    );
  } catch (e) {
    return {
      ok: false,
      reason: "unreachable",
      message: `the SiYuan kernel at ${siyuanUrl} did not answer (${e instanceof Error ? e.message : String(e)})`,
    };
  }
  const text = res.text;
  if (res.status === 401) {
    return {
      ok: false,
      reason: "unauthorized",
      message: "the SiYuan kernel refused the API token",
    };
  }
  // getFile answers a missing file with HTTP 202 and a JSON envelope (code 404), a file with 200.
  let settingsText: string | undefined = text;
  if (res.status === 202) {
    let code: unknown;
    try {
      code = (JSON.parse(text) as { code?: unknown }).code;
    } catch {
      code = undefined;
    }
    if (code !== 404) {
      return {
        ok: false,
        reason: "invalid",
        message: `getFile of the settings answered code ${String(code)}`,
      };
    }
    settingsText = undefined;
  } else if (res.status !== 200) {
    return {
      ok: false,
      reason: "unreachable",
      message: `getFile of the settings answered HTTP ${res.status}`,
    };
  }
  try {
    const settings = parseSettings(settingsText);
    return { ok: true, settings, kind: settings.kernelEndpointEnabled ? "kernel" : "node-http" };
  } catch (e) {
    return { ok: false, reason: "invalid", message: e instanceof Error ? e.message : String(e) };
  }
}

/** What the settings say when the process starts. */
export interface StartupSettings {
  /** The write authority they select. */
  readonly kind: AuthorityKind;
  /**
   * Their Strict Safe Writes switch (true when they cannot be read): a process keeps the value it
   * started with, so leases already issued never change meaning; a change applies after a restart.
   */
  readonly strictSafeWrites: boolean;
}

/**
 * The settings at start. A kernel that cannot be asked leaves the Node authority in place (said
 * through `log`): if the settings select the kernel after all, the first strict call finds out and
 * answers `write_coordinator_changed` — never two authorities. Strict Safe Writes then stays on.
 */
export async function startupSettings(
  siyuanUrl: string,
  siyuanToken: string | undefined,
  timeoutMs: number,
  log: (line: string) => void,
): Promise<StartupSettings> {
  const read = await readSettings(siyuanUrl, siyuanToken, timeoutMs);
  if (read.ok) return { kind: read.kind, strictSafeWrites: read.settings.strictSafeWrites };
  log(
    `sisyphus-server: cannot read the Sisyphus settings (${read.message}); the Node server is the write authority until a restart.`,
  );
  return { kind: "node-http", strictSafeWrites: true };
}

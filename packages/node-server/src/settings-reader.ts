/**
 * Reads the plugin's settings (`@sisyphus/mcp-tools` `SETTINGS_WORKSPACE_PATH`) through the
 * kernel's `/api/file/getFile`: at start, to choose the authority before anything else is loaded,
 * and for every call (its permission snapshot; beside the call's first kernel reads, decided before
 * any write and any answer), so a changed authority is refused (`write_coordinator_changed`)
 * instead of followed. With `node:http` (kept-alive sockets), not `fetch`: the first `fetch` of a
 * process loads Node's bundled undici, tens of milliseconds of a cold start, and every later one
 * costs more than a plain request.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import type { Agent as HttpsAgent, RequestOptions } from "node:https";
import {
  parseSettings,
  SETTINGS_WORKSPACE_PATH,
  type SisyphusSettings,
} from "@sisyphus/mcp-tools/settings";

/** Which authority the settings select. */
export type AuthorityKind = "node-http" | "kernel";

/** What a read found. */
export type SettingsRead =
  | { readonly ok: true; readonly settings: SisyphusSettings; readonly kind: AuthorityKind }
  /** The kernel did not answer (down, refused, timed out): the caller decides what that means. */
  | { readonly ok: false; readonly reason: "unreachable"; readonly message: string }
  /** The kernel answered, but the file is not usable settings, or the token was refused. */
  | { readonly ok: false; readonly reason: "invalid" | "unauthorized"; readonly message: string };

/** Kept-alive sockets for the settings reads (free ones never keep the process alive). */
let httpAgent: HttpAgent | undefined;
let httpsAgent: HttpsAgent | undefined;

/** The answer of one settings read. */
interface Answer {
  readonly status: number;
  readonly text: string;
}

/**
 * One POST of a small JSON body within `timeoutMs`; rejects on network errors and timeouts. A kept
 * socket the kernel closed meanwhile (it fails before any answer) is retried once on a new one:
 * the read is idempotent, and the race is the kept-alive socket's, not the kernel's.
 */
async function postJson(
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<Answer> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    return await postOnce(url, headers, body, signal);
  } catch (e) {
    if (!(e instanceof StaleSocketError)) throw e;
    return postOnce(url, headers, body, signal);
  }
}

/** A request on a reused kept-alive socket failed before its answer began. */
class StaleSocketError extends Error {}

function postOnce(
  url: URL,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<Answer> {
  // node:https (and TLS with it) loads only for a kernel reached over https.
  const https =
    url.protocol === "https:"
      ? (process.getBuiltinModule("node:https") as typeof import("node:https"))
      : undefined;
  let agent: HttpAgent | HttpsAgent;
  if (https === undefined) {
    httpAgent ??= new HttpAgent({ keepAlive: true });
    agent = httpAgent;
  } else {
    httpsAgent ??= new https.Agent({ keepAlive: true });
    agent = httpsAgent;
  }
  const options: RequestOptions = {
    method: "POST",
    agent,
    headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
    signal,
  };
  return new Promise((resolve, reject) => {
    let answered = false;
    const onResponse = (res: IncomingMessage) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
      );
      res.on("error", reject);
    };
    const req =
      https === undefined
        ? httpRequest(url, options, onResponse)
        : https.request(url, options, onResponse);
    req.on("error", (e: NodeJS.ErrnoException) => {
      const stale =
        req.reusedSocket && !answered && !signal.aborted && STALE_SOCKET.has(e.code ?? "");
      reject(stale ? new StaleSocketError(e.message, { cause: e }) : e);
    });
    req.end(body);
  });
}

/** How a kept-alive socket the other end already closed fails. */
const STALE_SOCKET = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

/** Reads and parses the settings file; never throws. */
export async function readSettings(
  siyuanUrl: string,
  siyuanToken: string | undefined,
  timeoutMs: number,
): Promise<SettingsRead> {
  let res: Answer;
  try {
    res = await postJson(
      new URL(`${siyuanUrl}/api/file/getFile`),
      {
        "content-type": "application/json",
        ...(siyuanToken === undefined ? {} : { authorization: `Token ${siyuanToken}` }),
      },
      JSON.stringify({ path: SETTINGS_WORKSPACE_PATH }),
      timeoutMs,
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

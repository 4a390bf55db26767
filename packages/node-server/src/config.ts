/**
 * Command-line and environment configuration of `sisyphus-server`. Flags win over environment
 * variables; every invalid value stops the start with a message naming the setting.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { isLoopbackHost } from "@sisyphus/mcp-tools/settings";
import {
  DEFAULT_BACKGROUND_IDLE_STOP_MS,
  DEFAULT_HTTP_HOST,
  DEFAULT_HTTP_PORT,
  DEFAULT_SHUTDOWN_GRACE_MS,
  MAX_IDLE_STOP_MS,
  MAX_SHUTDOWN_GRACE_MS,
} from "./constants.js";
import { NodeServerError } from "./errors.js";

export { isLoopbackHost } from "@sisyphus/mcp-tools/settings";

/** The resolved configuration of one server process. */
export interface ServerConfig {
  /** `http`: the Streamable HTTP server (and the Node write authority); `stdio`: a delegating stdio server. */
  readonly transport: "http" | "stdio";
  /** SiYuan kernel base URL; absent in HTTP mode means "start the embedded demo sandbox". */
  readonly siyuanUrl?: string;
  /** SiYuan API token (secret; never logged). */
  readonly siyuanToken?: string;
  /** HTTP bind address. */
  readonly host: string;
  /** HTTP port; 0 picks a free one. */
  readonly port: number;
  /** Bearer token of the HTTP endpoint (secret). Absent in HTTP mode only with the embedded demo, which generates one. */
  readonly authToken?: string;
  /** Exact browser origins allowed besides loopback ones (`scheme://host[:port]`). */
  readonly allowedOrigins: readonly string[];
  /** Directory of the ledger, reservations, lock and `authority.json`. */
  readonly dataDir: string;
  /** `--no-strict` not given: Strict Safe Writes on unless the settings turn it off at start. */
  readonly strict: boolean;
  /** Optional explicit authority URL for a delegating stdio process (`--authority-url`, `SISYPHUS_AUTHORITY_URL`). */
  readonly authorityUrl?: string;
  /**
   * How long SIGTERM/SIGINT lets admitted write calls settle before the stores close, in
   * milliseconds (`--shutdown-grace-ms`, `SISYPHUS_SHUTDOWN_GRACE_MS`; default
   * `DEFAULT_SHUTDOWN_GRACE_MS`).
   */
  readonly shutdownGraceMs: number;
  /**
   * `--background`: an HTTP authority started by a stdio process for its data directory (loopback
   * only; its only credential is the local one in `authority.credential`; stops when idle).
   */
  readonly background: boolean;
  /**
   * HTTP: stop after this many milliseconds without an authenticated request and with nothing in
   * flight (0: never; default `DEFAULT_BACKGROUND_IDLE_STOP_MS` with `--background`, else 0).
   * stdio: the value given to the background authority it starts.
   */
  readonly idleStopMs: number;
  /**
   * stdio: start a background authority on the data directory when none serves it (default on;
   * off with `--no-autostart` or an explicit `--authority-url`).
   */
  readonly autostart: boolean;
}

/** What `sisyphus-server --help` prints (stdout, exit 0). */
export const USAGE = `sisyphus-server: the MCP server for SiYuan (Strict Safe Writes)

  sisyphus-server [--http]  [options]   Streamable HTTP on 127.0.0.1:36806, the Node write authority
                                        (no --siyuan-url: an embedded demo SiYuan)
  sisyphus-server --stdio   [options]   MCP over stdio; writes go to the data directory's authority,
                                        started in the background when none runs

Options (environment variable in brackets):
  --siyuan-url URL          SiYuan kernel, e.g. http://127.0.0.1:6806 [SIYUAN_URL]
  --siyuan-token TOKEN      SiYuan API token [SIYUAN_TOKEN]
  --auth-token TOKEN        bearer token of the HTTP endpoint, >= 16 characters [SISYPHUS_AUTH_TOKEN]
  --host HOST               HTTP bind address (default 127.0.0.1)
  --port PORT               HTTP port, 0 = any free one (default 36806) [SISYPHUS_HTTP_PORT]
  --allowed-origins LIST    extra browser origins of this server, comma-separated (the kernel
                            plugin's routes use the settings' options.allowedOrigins) [SISYPHUS_ALLOWED_ORIGINS]
  --data-dir DIR            ledger, reservations, lock (default ~/.sisyphus) [SISYPHUS_DATA_DIR]
  --authority-url URL       stdio: delegate to this authority, start none [SISYPHUS_AUTHORITY_URL]
  --no-autostart            stdio: never start a background authority
  --idle-stop-ms MS         HTTP: stop after MS idle (0 = never); stdio: the background one's [SISYPHUS_IDLE_STOP_MS]
  --background              HTTP: run as a stdio process's background authority (loopback only)
  --no-strict               turn Strict Safe Writes off (otherwise the settings' strictSafeWrites,
                            read at start, decides)
  --shutdown-grace-ms MS    SIGTERM/SIGINT grace for running writes (default 30000) [SISYPHUS_SHUTDOWN_GRACE_MS]
  -h, --help                print this and exit
`;

/** Thrown shape: `NodeServerError` with code `config_invalid` and `details.setting`. */
function invalid(setting: string, message: string): NodeServerError {
  return new NodeServerError("config_invalid", `Invalid configuration: ${setting}: ${message}`, {
    setting,
  });
}

function pick(flag: string | undefined, env: string | undefined): string | undefined {
  if (flag !== undefined) return flag;
  if (env !== undefined && env !== "") return env;
  return undefined;
}

function httpUrl(setting: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(setting, `"${raw}" is not a URL (expected http://host:port)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw invalid(setting, `"${raw}" must use http or https`);
  }
  return url.toString().replace(/\/+$/, "");
}

/**
 * Parses flags (`argv` without node and script) with environment fallbacks.
 * @throws NodeServerError `config_invalid` naming the setting, for unknown flags, bad URLs, ports
 *   outside 0–65535, a shutdown grace that is not 0–`MAX_SHUTDOWN_GRACE_MS` milliseconds, both `--stdio` and `--http`, empty tokens, malformed origins, or HTTP mode
 *   with a configured SiYuan URL but no auth token.
 */
export function parseConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ServerConfig {
  let parsed: ReturnType<typeof parseArgsStrict>;
  try {
    parsed = parseArgsStrict(argv);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const flag = /'(--?[\w-]+)/.exec(message)?.[1] ?? "arguments";
    throw invalid(flag, message);
  }
  const v = parsed.values;
  if (parsed.positionals.length > 0) {
    throw invalid("arguments", `unexpected argument "${parsed.positionals[0]}"`);
  }
  if (v.stdio && v.http) throw invalid("--stdio/--http", "choose one transport, not both");
  const transport = v.stdio ? "stdio" : "http";

  const rawUrl = pick(v["siyuan-url"], env["SIYUAN_URL"]);
  const siyuanUrl = rawUrl === undefined ? undefined : httpUrl("--siyuan-url (SIYUAN_URL)", rawUrl);
  const siyuanToken = pick(v["siyuan-token"], env["SIYUAN_TOKEN"]);

  const host = v.host ?? DEFAULT_HTTP_HOST;
  if (!/^[\w.:[\]-]+$/.test(host))
    throw invalid("--host", `"${host}" is not a host name or address`);

  if (v.background === true && !isLoopbackHost(host)) {
    throw invalid("--host", `"${host}": a --background authority listens on loopback only`);
  }

  const rawPort = pick(v.port, env["SISYPHUS_HTTP_PORT"]);
  let port = v.background === true ? 0 : DEFAULT_HTTP_PORT;
  if (rawPort !== undefined) {
    if (!/^\d{1,5}$/.test(rawPort) || Number(rawPort) > 65535) {
      throw invalid("--port (SISYPHUS_HTTP_PORT)", `"${rawPort}" is not a port number 0-65535`);
    }
    port = Number(rawPort);
  }

  const authToken = pick(v["auth-token"], env["SISYPHUS_AUTH_TOKEN"]);
  if (authToken !== undefined && authToken.trim().length < 16) {
    throw invalid("--auth-token (SISYPHUS_AUTH_TOKEN)", "must be at least 16 characters");
  }
  const background = v.background === true;
  if (background && transport !== "http") throw invalid("--background", "needs --http");
  if (background && siyuanUrl === undefined) {
    throw invalid(
      "--background",
      "needs --siyuan-url (a background authority never starts the demo kernel)",
    );
  }
  if (transport === "http" && siyuanUrl !== undefined && authToken === undefined && !background) {
    throw invalid(
      "--auth-token (SISYPHUS_AUTH_TOKEN)",
      "required for the HTTP server when a SiYuan URL is configured",
    );
  }
  if (transport === "stdio" && siyuanUrl === undefined) {
    throw invalid("--siyuan-url (SIYUAN_URL)", "required for --stdio");
  }

  const rawOrigins = pick(v["allowed-origins"], env["SISYPHUS_ALLOWED_ORIGINS"]);
  const allowedOrigins: string[] = [];
  for (const item of (rawOrigins ?? "").split(",")) {
    const o = item.trim();
    if (o === "") continue;
    let url: URL;
    try {
      url = new URL(o);
    } catch {
      throw invalid("--allowed-origins", `"${o}" is not an origin like http://localhost:3000`);
    }
    if (url.origin === "null" || url.origin !== o.replace(/\/$/, "")) {
      throw invalid("--allowed-origins", `"${o}" is not an origin like http://localhost:3000`);
    }
    allowedOrigins.push(url.origin);
  }

  const rawDir = pick(v["data-dir"], env["SISYPHUS_DATA_DIR"]);
  if (rawDir !== undefined && rawDir.trim() === "")
    throw invalid("--data-dir (SISYPHUS_DATA_DIR)", "empty path");
  const dataDir = resolve(rawDir ?? join(homedir(), ".sisyphus"));

  const rawAuthority = pick(v["authority-url"], env["SISYPHUS_AUTHORITY_URL"]);
  const authorityUrl =
    rawAuthority === undefined
      ? undefined
      : httpUrl("--authority-url (SISYPHUS_AUTHORITY_URL)", rawAuthority);

  const rawGrace = pick(v["shutdown-grace-ms"], env["SISYPHUS_SHUTDOWN_GRACE_MS"]);
  let shutdownGraceMs = DEFAULT_SHUTDOWN_GRACE_MS;
  if (rawGrace !== undefined) {
    if (!/^\d{1,9}$/.test(rawGrace) || Number(rawGrace) > MAX_SHUTDOWN_GRACE_MS) {
      throw invalid(
        "--shutdown-grace-ms (SISYPHUS_SHUTDOWN_GRACE_MS)",
        `"${rawGrace}" is not a number of milliseconds 0-${MAX_SHUTDOWN_GRACE_MS}`,
      );
    }
    shutdownGraceMs = Number(rawGrace);
  }

  const rawIdle = pick(v["idle-stop-ms"], env["SISYPHUS_IDLE_STOP_MS"]);
  let idleStopMs = transport === "stdio" || background ? DEFAULT_BACKGROUND_IDLE_STOP_MS : 0;
  if (rawIdle !== undefined) {
    if (!/^\d{1,9}$/.test(rawIdle) || Number(rawIdle) > MAX_IDLE_STOP_MS) {
      throw invalid(
        "--idle-stop-ms (SISYPHUS_IDLE_STOP_MS)",
        `"${rawIdle}" is not a number of milliseconds 0-${MAX_IDLE_STOP_MS}`,
      );
    }
    idleStopMs = Number(rawIdle);
  }

  return {
    transport,
    ...(siyuanUrl === undefined ? {} : { siyuanUrl }),
    ...(siyuanToken === undefined ? {} : { siyuanToken }),
    host,
    port,
    ...(authToken === undefined ? {} : { authToken }),
    allowedOrigins,
    dataDir,
    strict: v["no-strict"] !== true,
    ...(authorityUrl === undefined ? {} : { authorityUrl }),
    shutdownGraceMs,
    background,
    idleStopMs,
    autostart: transport === "stdio" && v["no-autostart"] !== true && authorityUrl === undefined,
  };
}

function parseArgsStrict(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options: {
      "siyuan-url": { type: "string" },
      "siyuan-token": { type: "string" },
      stdio: { type: "boolean" },
      http: { type: "boolean" },
      host: { type: "string" },
      port: { type: "string" },
      "auth-token": { type: "string" },
      "allowed-origins": { type: "string" },
      "data-dir": { type: "string" },
      "no-strict": { type: "boolean" },
      "authority-url": { type: "string" },
      "shutdown-grace-ms": { type: "string" },
      background: { type: "boolean" },
      "idle-stop-ms": { type: "string" },
      "no-autostart": { type: "boolean" },
    },
  });
}

/** True when `host` is a loopback address or `localhost`. */

/** Every limit and default of the Node server, with units in the names; the README quotes these. */

import { OPTION_LIMITS } from "@sisyphus/mcp-tools/settings";
import { SISYPHUS_VERSION } from "@sisyphus/mcp-tools/shell/gate";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "@sisyphus/siyuan-api/constants";

/** Default HTTP port of the MCP endpoint (`--port`, `SISYPHUS_HTTP_PORT`). */
export const DEFAULT_HTTP_PORT = 36806;
/** Default bind address: loopback only. */
export const DEFAULT_HTTP_HOST = "127.0.0.1";
/** The MCP endpoint path. */
export const MCP_PATH = "/mcp";
/** The authenticated aggregate health path. */
export const HEALTH_PATH = "/health";
/**
 * Largest accepted request body, in bytes (413 above it): room for the largest template the
 * settings allow (`options.templateBudgetBytes` up to 32 MiB) in a JSON-RPC request, with 8 MiB for
 * its escaping and the envelope. Smaller bodies than this are what every other call sends.
 */
export const MAX_REQUEST_BODY_BYTES = OPTION_LIMITS.templateBudgetBytes.max + 8 * 1024 * 1024;
/**
 * Deepest nesting of arrays and objects accepted in a JSON request body; deeper bodies are refused
 * (400, JSON-RPC -32600) by a linear scan before `JSON.parse` or any recursive walk sees them.
 */
export const MAX_JSON_DEPTH = 64;
/**
 * How long SIGTERM/SIGINT lets admitted write calls settle before the stores close, in
 * milliseconds (`--shutdown-grace-ms`, `SISYPHUS_SHUTDOWN_GRACE_MS`); calls still running then
 * answer `outcome_unknown`.
 */
export const DEFAULT_SHUTDOWN_GRACE_MS = 30_000;
/** Largest accepted `--shutdown-grace-ms`, in milliseconds (10 minutes). */
export const MAX_SHUTDOWN_GRACE_MS = 10 * 60 * 1000;
/** After the drain, how long answers still being written get before connections close, in milliseconds. */
export const HTTP_CLOSE_FLUSH_MS = 2_000;
/** Limits of the shared shell pieces (admission, confirmation, legacy sessions), re-exported. */
export {
  ADMISSION_CAP,
  CONFIRMATION_TTL_MS,
  LEGACY_SESSION_IDLE_MS,
  MAX_CONFIRMATIONS,
  MAX_LEGACY_SESSIONS,
  READ_CONCURRENCY,
} from "@sisyphus/mcp-tools/shell/gate";
/** Timeout of one read of the Sisyphus settings through the kernel's file API, in milliseconds. */
export const SETTINGS_READ_TIMEOUT_MS = 5_000;
/**
 * After a delegated kernel call lost its response, its task's result is asked for this many times
 * (spec: 3), each with this timeout (2 s), this far apart (100 ms); the business call is never
 * sent again.
 */
export const TASK_RECOVERY_ATTEMPTS = 3;
export const TASK_RECOVERY_TIMEOUT_MS = 2_000;
export const TASK_RECOVERY_PAUSE_MS = 100;
/** Timeout of one delegated call to the HTTP authority, in milliseconds. */
export const DELEGATION_TIMEOUT_MS = 120_000;
/** Timeout of one kernel HTTP request, in milliseconds: the kernel client's default. */
export const KERNEL_TIMEOUT_MS = DEFAULT_REQUEST_TIMEOUT_MS;
/** Write-ahead log size at which a store compacts, in bytes. */
export const WAL_COMPACT_BYTES = 1024 * 1024;
/** File names inside the data directory. */
export const DATA_FILES = {
  lock: "authority.lock",
  authority: "authority.json",
  ledger: "ledger.wal",
  reservations: "reservations.wal",
  /** The running authority's local credential (0600; see `docs/behaviour.md`, "Local delegation"). */
  credential: "authority.credential",
  /** Output of a background authority started by a stdio process (0600, never a secret). */
  backgroundLog: "authority.log",
} as const;
/**
 * How long a background authority (started by a stdio process) may sit idle before it stops, in
 * milliseconds (`--idle-stop-ms`, `SISYPHUS_IDLE_STOP_MS`): no authenticated request and nothing in
 * flight for this long. The lease lifetime, so a lease issued just before the last call can still
 * be committed while its stdio process lives (which keeps the authority awake by heartbeats).
 */
export const DEFAULT_BACKGROUND_IDLE_STOP_MS = 10 * 60 * 1000;
/** Largest accepted `--idle-stop-ms`, in milliseconds (one day). */
export const MAX_IDLE_STOP_MS = 24 * 60 * 60 * 1000;
/** How long a stdio process waits for the background authority it started to serve, in milliseconds. */
export const AUTHORITY_START_TIMEOUT_MS = 30_000;
/** How often a waiting stdio process looks for the starting authority's `authority.json`, in milliseconds. */
export const AUTHORITY_START_POLL_MS = 50;
/** Size above which `authority.log` is emptied before a background authority starts, in bytes. */
export const BACKGROUND_LOG_MAX_BYTES = 1024 * 1024;
/** Server name and version announced to clients (the version `system.version` reports). */
export const SERVER_INFO = { name: "sisyphus", version: SISYPHUS_VERSION } as const;

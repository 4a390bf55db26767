/**
 * @sisyphus/node-server: the stdio + Streamable HTTP MCP server for SiYuan and the Node write
 * authority (data-directory lock, crash-safe file stores, `authority.json`), plus the pieces other
 * shells reuse: authority discovery and delegation, the admission gate, confirmation states.
 * The executable is `sisyphus-server` (`dist/bin.cjs`, which runs the bundled `dist/server.cjs`).
 */
export {
  Admission,
  type AdmissionClass,
  type AdmissionCounts,
  type AdmissionRefusal,
  type ConfirmationBinding,
  ConfirmationBook,
  type ConfirmationRefusal,
  type ShellErrorCode,
} from "@sisyphus/mcp-tools/shell";
export {
  AUTHORITY_EPOCH_META_KEY,
  AuthorityLink,
  type AuthorityLinkOptions,
  type KernelAuthorityLinkOptions,
  type NodeAuthorityLinkOptions,
  PRECHECK_META_KEY,
  type TaskTimers,
} from "./authority-link.js";
export { isLoopbackHost, parseConfig, type ServerConfig } from "./config.js";
export {
  ADMISSION_CAP,
  CONFIRMATION_TTL_MS,
  DATA_FILES,
  DEFAULT_HTTP_HOST,
  DEFAULT_HTTP_PORT,
  DEFAULT_SHUTDOWN_GRACE_MS,
  DELEGATION_TIMEOUT_MS,
  HEALTH_PATH,
  LEGACY_SESSION_IDLE_MS,
  MAX_CONFIRMATIONS,
  MAX_JSON_DEPTH,
  MAX_REQUEST_BODY_BYTES,
  MCP_PATH,
  READ_CONCURRENCY,
} from "./constants.js";
export {
  type AuthorityRecord,
  acquireDataDirLock,
  type DataDirLock,
  readAuthorityRecord,
} from "./data-dir.js";
export {
  isNodeServerError,
  NodeServerError,
  type NodeServerErrorCode,
  type NodeServerErrorDetails,
} from "./errors.js";
export { type RunningServer, type StartOptions, startServer } from "./main.js";
export type { ExtensionGate, ExtensionTool, ServerExtension } from "./mcp-stack.js";
export { FileLedgerStore, FileReservationStore } from "./stores/file-stores.js";

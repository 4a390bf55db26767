/**
 * `@sisyphus/mcp-tools/shell`: the protocol pieces every MCP shell (the Node server, the kernel
 * plugin) shares around the tool runtime — the call gateway (drain, admission, confirmation,
 * delegation), the admission gate, confirmation states, the shutdown drain, the legacy session
 * table and the shell's own error results. Nothing here opens a socket, reads a file or picks an
 * authority, and nothing needs a Node API.
 */
export {
  Admission,
  type AdmissionClass,
  type AdmissionCounts,
  type AdmissionRefusal,
  isAdmissionRefusal,
} from "./admission.js";
export {
  type ConfirmationBinding,
  ConfirmationBook,
  type ConfirmationRefusal,
  stableJson,
} from "./confirmation-book.js";
export {
  ADMISSION_CAP,
  AUTHORITY_EPOCH_META_KEY,
  CONFIRMATION_TTL_MS,
  LEGACY_SESSION_IDLE_MS,
  MAX_CONFIRMATIONS,
  MAX_LEGACY_SESSIONS,
  PRECHECK_META_KEY,
  READ_CONCURRENCY,
} from "./constants.js";
export { DrainGate, type DrainResult, type DrainTicket } from "./drain.js";
export {
  type AuthorityRole,
  type CallControl,
  createGateway,
  type DelegateLink,
  declaresForm,
  type GatewayConnection,
  type GatewayOptions,
  type SettingsSnapshot,
  type ShellRuntime,
} from "./gateway.js";
export { type ClosableSession, LegacySessionTable } from "./legacy-sessions.js";
export {
  admissionRefusalResult,
  SHELL_ERROR_CODES,
  type ShellErrorCode,
  type ShellErrorTop,
  shellError,
  unusableSettingsRefusal,
} from "./results.js";

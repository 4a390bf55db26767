/**
 * `@sisyphus/mcp-tools/shell`: the protocol pieces every MCP shell (the Node server, the kernel
 * plugin) shares around the tool runtime — the authority endpoint (server construction, era
 * routing, legacy sessions) over web `Request`/`Response`, the call gateway (drain, admission,
 * confirmation, delegation), the per-call settings snapshot and listing, the `/health` body, the
 * admission gate, confirmation states, the shutdown drain, the legacy session table, the `_meta`
 * keys and the shell's own error results. Nothing here opens a socket, reads a file or picks an
 * authority, and nothing needs a Node API.
 */

export {
  admissionRefusalResult,
  SHELL_ERROR_CODES,
  type ShellErrorCode,
  type ShellErrorTop,
  shellError,
  unusableSettingsRefusal,
} from "../tool-result.js";
export {
  Admission,
  type AdmissionClass,
  type AdmissionCounts,
  type AdmissionRefusal,
  DrainGate,
  type DrainResult,
  type DrainTicket,
  isAdmissionRefusal,
} from "./admission.js";
export { declaresForm, type GatewayConnection, type PrecheckVerdict } from "./confirmation.js";
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
  FIRST_UNBATCHED_PROTOCOL_VERSION,
  LEGACY_SESSION_IDLE_MS,
  LEGACY_SESSION_SWEEP_MS,
  MAX_CONFIRMATIONS,
  MAX_LEGACY_SESSIONS,
  PRECHECK_META_KEY,
  PRECHECK_SUBJECT_META_KEY,
  READ_CONCURRENCY,
  SISYPHUS_WIRE_PREFIX,
  TASK_CONTROL_EXTENSION,
  TASK_CONTROL_VERSION,
  TASK_ID_META_KEY,
} from "./constants.js";
export {
  type AuthorityEndpoint,
  type AuthorityEndpointOptions,
  type AuthorityServerFactory,
  type AuthorityServerOptions,
  type CallGateway,
  type ClosableSession,
  createAuthorityEndpoint,
  createAuthorityServer,
  type Gateway,
  LegacySessionTable,
  type PerCallSettings,
  type PerCallSettingsOptions,
  perCallSettings,
  type ResponseMode,
  SERVER_NAME,
  type SelectedAuthority,
  type SettingsRead,
  type StrictCallsNeed,
  selectedAuthority,
} from "./endpoint.js";
export {
  type AuthorityRole,
  type CallControl,
  createGateway,
  type DelegateLink,
  type GatewayOptions,
  type SettingsSnapshot,
  type ShellRuntime,
} from "./gateway.js";
export {
  type AuthorityHealth,
  type AuthorityHealthInput,
  authorityHealth,
  type WriteLaneCounts,
} from "./health.js";

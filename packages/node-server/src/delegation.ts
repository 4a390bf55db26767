/**
 * `@sisyphus/node-server/delegation`: what another shell (the `sisyphus` CLI) needs to delegate to
 * the write authority the way a stdio process does — the link (kernel or Node HTTP authority, fresh
 * taskIds, result recovery, cancel relay, background start), the settings read that selects the
 * authority, and the limits they use — without loading the server itself.
 */
export {
  AuthorityLink,
  type AuthorityLinkOptions,
  type KernelAuthorityLinkOptions,
  type NodeAuthorityLinkOptions,
  TASK_ID_META_KEY,
} from "./authority-link.js";
export {
  type AuthorityRecord,
  readAuthorityRecord,
  readLocalCredential,
} from "./authority-record.js";
export {
  DEFAULT_BACKGROUND_IDLE_STOP_MS,
  SETTINGS_READ_TIMEOUT_MS,
  TASK_RECOVERY_TIMEOUT_MS,
} from "./constants.js";
export {
  type KernelAddress,
  type KernelAnswer,
  type KernelRequest,
  kernelAuthorization,
  kernelRequest,
} from "./kernel-request.js";
export { type AuthorityKind, readSettings, type SettingsRead } from "./settings-reader.js";
export type { OnTransfer, TransferProgress } from "./transfer-progress.js";

/**
 * @sisyphus/siyuan-sandbox: a faithful in-memory SiYuan 3.7.3 kernel (HTTP API on loopback)
 * with fault injection, a request log, an external writer and a deterministic clock, for
 * tests and the demo. Never used by production code paths.
 */
export { REPO_AUDIT_ENV, SNAPSHOT_ACTION_REPO_PATHS, takeRepoRequests } from "./audit.js";
export type { AttributeView, AvEvent, AvKey, AvValue } from "./av-model.js";
export type { Clock, RandomSource } from "./clock.js";
export { formatTimestamp, isValidNodeId, seededRandom, steppingClock } from "./clock.js";
export {
  CONTROL_ROUTE_PREFIX,
  CORRUPTION_MARKER,
  DEFAULT_FLUSH_INTERVAL_MS,
  KERNEL_VERSION,
  SQL_DEFAULT_LIMIT_ROWS,
} from "./constants.js";
export type { ExternalWriter, SandboxControl } from "./control.js";
export type { KernelErrorDetails, SandboxErrorCode } from "./errors.js";
export { isSandboxError, SandboxError } from "./errors.js";
export type { ArmedFault, FaultKind, FaultSpec } from "./faults.js";
export { defaultCorrupt } from "./faults.js";
export type { PushedMessage, TransactionFailure } from "./kernel.js";
export {
  checkLanguageLevel,
  DEFAULT_KERNEL_RESTART_DOWN_MS,
  type LanguageViolation,
  type PluginClientCall,
  type PluginClientInterceptor,
  type PluginEngineKind,
  type PluginHostControl,
  type PluginHostOptions,
  type PluginLogLine,
  type PluginSource,
  type PluginStatus,
  readZip,
  writeZip,
} from "./plugin-host/index.js";
export type { Sandbox, SandboxOptions } from "./sandbox.js";
export { startSandbox } from "./sandbox.js";
export { DEMO_IDS } from "./seed.js";
export type { RequestLogEntry } from "./server.js";
export { isSerialisationExempt } from "./server.js";
export { applyDefaultLimit } from "./sql-index.js";
export type { InsertAnchor } from "./workspace.js";
export type { BoxConf } from "./workspace-index.js";

/** The package name. */
export const PACKAGE_NAME = "@sisyphus/siyuan-sandbox";

/**
 * @sisyphus/mcp-tools: the SiYuan note tools (block, document, fs, file, notebook, search, tag,
 * system) under Strict Safe Writes. A runtime validates and classifies each call by one policy
 * table, runs reads against the kernel and sends every mutation through the write coordinator. No
 * transport, no authority choice: the shells (Node server, kernel plugin, CLI) wire those.
 */
export { NODE_ID_PATTERN } from "@sisyphus/siyuan-api/kernel";
// The wire's error table lives in write-safety (the lowest package that answers errors); it is
// passed on here for the shells and the CLI, which take the tools' vocabulary from this package.
export {
  isWireErrorCode,
  WIRE_ERRORS,
  type WireErrorCode,
  type WireExitClass,
} from "@sisyphus/write-safety";
export {
  APP_EXTENSION_ID,
  APP_MIME_TYPE,
  APP_PREVIEW_TOOL,
  APP_RESOURCE_URI,
  type AppLane,
  type AppOptions,
  registerApp,
} from "./app/index.js";
export type { PreviewChange, PreviewKind, WritePreview } from "./app/preview.js";
export {
  ACTIONS,
  type ActionPolicy,
  type ActionSurface,
  findAction,
  type PreconditionKind,
  policyOf,
  preconditionFieldName,
  TOOL_NAMES,
  type ToolName,
} from "./catalog.js";
export { isToolError, TOOL_ERROR_CODES, ToolError, type ToolErrorCode } from "./errors.js";
export type { KernelReads, KernelWrites } from "./kernel.js";
export { kernelFromClient } from "./kernel-client.js";
export {
  type DownloadManifest,
  EXPORT_FILE_TIMEOUT_MS,
  EXPORT_MAX_BYTES,
  isOutputFailure,
  isSafeRelativePath,
  type OutputEntry,
  type OutputFailure,
  type OutputLayout,
  type OutputPlan,
  type OutputSink,
  parseDownloadManifest,
  type SavedFile,
  type SavedOutput,
} from "./output.js";
export {
  type CallClass,
  type InvalidCall,
  type ParsedCall,
  parseCall,
  safetyFields,
  type ValidCall,
} from "./parsed-call.js";
export { FULL_ACCESS, type Permission, type PermissionMap } from "./permissions.js";
export {
  READ_BUDGET_LIMITS,
  READ_BUDGET_MAX_CALLS,
  READ_BUDGET_MAX_DECODED_BYTES,
  ReadBudget,
  type ReadBudgetLimits,
} from "./read-budget.js";
export {
  type CallRoute,
  registerSkillResources,
  registerToolListing,
  registerTools,
  SKILL_MANIFEST_URI,
  skillResourceUri,
  type ToolListing,
} from "./register.js";
export {
  type AuthorityInfo,
  type CallContext,
  createToolRuntime,
  type ReadBudgetCounts,
  type SettingsVerdict,
  type ToolRuntime,
  type ToolRuntimeConfig,
  type ToolRuntimeOptions,
  type WriteLanePort,
} from "./runtime.js";
export {
  type CallOptions,
  DEFAULT_SETTINGS,
  KERNEL_MCP_PATH,
  PLUGIN_NAME,
  parseSettings,
  SETTINGS_FILE,
  SETTINGS_WORKSPACE_PATH,
  SettingsError,
  type SisyphusSettings,
} from "./settings.js";
export {
  renderSkill,
  SKILL_DESCRIPTION,
  SKILL_NAME,
  type SkillFile,
  type SkillManifest,
  skillFiles,
  skillManifest,
} from "./skill.js";
export {
  readSource,
  type SourceBytes,
  type SourceFailure,
  type SourceReader,
  type SourceRef,
  sourceKind,
  UPLOAD_ASSET_MAX_BYTES,
} from "./source.js";
export { describeTools, type ToolDescriptor } from "./surface.js";
export { type TurnedOff, turnedOff } from "./tool-access.js";
export { errorResult, type ToolResult } from "./tool-result.js";
export {
  FEEDBACK_TIMEOUT_MS,
  type FeedbackDelivery,
  type FeedbackPayload,
  type FeedbackSender,
  fetchFeedbackSender,
} from "./tools/feedback.js";
export {
  bootstrapText,
  CREDENTIAL_NOTE,
  SERVER_INSTRUCTIONS,
  SISYPHUS_VERSION,
} from "./tools/system.js";
export { toolPurposes } from "./tools-table.js";

/**
 * `@sisyphus/mcp-tools/answers`: what a process that forwards calls (the delegation link, the CLI)
 * needs of the tools' answers without the tools: the result shape and its error form, the tool
 * error codes, and the export downloads' manifest, plan and sink types. No zod, no catalog, no
 * MCP SDK, so such a process starts without compiling them.
 */
export { TOOL_ERROR_CODES, ToolError, type ToolErrorCode } from "./errors.js";
export {
  type DownloadManifest,
  EXPORT_FILE_TIMEOUT_MS,
  EXPORT_MAX_BYTES,
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
export { errorResult, type ToolResult } from "./tool-result.js";

/**
 * The tool-level error of `@sisyphus/mcp-tools`: one class, one code union, one hint per code.
 *
 * A `ToolError` is raised by argument validation or by a probe, before any lease or write. Its
 * `message` says what is wrong in this call (and, where there is one, the specific way out); its
 * `hint` is the code's one next step from the wire's error table (`WIRE_ERRORS` of
 * `@sisyphus/write-safety`), the same whichever layer raises it. The tool codes are a subset of
 * that table; the write-safety codes (`state_changed`, `outcome_unknown`, …) are the coordinator's.
 */
import { WIRE_ERRORS, type WireErrorCode } from "@sisyphus/write-safety";

/**
 * What went wrong before anything was written: the tools' codes, a subset of the wire's
 * `WIRE_ERRORS`. `details` carries, per code:
 * - `invalid_arguments`: the offending names or IDs when there are some (e.g. `name`, `children`);
 * - `unknown_tool`: nothing; `unknown_action`: `actions`, the tool's canonical action names;
 * - `not_found`: `id` (an ID, a path or a name);
 * - `ambiguous_path`: the candidates (`ids` or `notebooks`);
 * - `already_exists`: `id` of what is there, when known;
 * - `notebook_closed`: nothing; `permission_denied`: `notebook`, `granted`, `needed`;
 * - `confirmation_required`: `writeAttempted: false`;
 * - `kernel_unavailable` / `kernel_error`: `kernelCode` (the siyuan-api error code);
 * - `cancelled`: `writeAttempted: false` (a read stopped at its checkpoint, `read-checkpoint.ts`);
 * - `source_unavailable`: `source` (`localFilePath` or `uploadSource`, the kind this authority
 *   cannot read or failed to read); `source_too_large`: `limit` and, when known, `size` (bytes);
 * - `output_too_large`: `limit` and `size` (bytes received when the export stopped);
 *   `output_failed`: `reason` and, when one file failed, its `path`; the partial output was removed;
 * - `feedback_unconfigured`: nothing; `feedback_unavailable`: `reason`;
 * - `extension_unavailable`: `reason` and, when the kernel answered, `httpStatus`;
 *   `extension_tool_not_found`: `name`; `extension_error`: `rpcCode` (the JSON-RPC error code);
 * - `unsupported`: `reason` (what this SiYuan lacks or has off, e.g. `embedding_off`);
 * - `internal_error`: nothing.
 */
export const TOOL_ERROR_CODES = [
  "invalid_arguments",
  "unknown_tool",
  "unknown_action",
  "not_found",
  "ambiguous_path",
  "already_exists",
  "notebook_closed",
  "permission_denied",
  "confirmation_required",
  "kernel_unavailable",
  "kernel_error",
  "read_budget_exceeded",
  "cancelled",
  "source_unavailable",
  "source_too_large",
  "output_too_large",
  "output_failed",
  "feedback_unconfigured",
  "feedback_unavailable",
  "extension_unavailable",
  "extension_tool_not_found",
  "extension_error",
  "unsupported",
  "internal_error",
] as const satisfies readonly WireErrorCode[];

/** One of {@link TOOL_ERROR_CODES}. */
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

const TOOL_ERROR_BRAND = Symbol.for("@sisyphus/mcp-tools/ToolError");

/** A tool-level failure with a {@link ToolErrorCode} and that code's wire hint. */
export class ToolError extends Error {
  readonly [TOOL_ERROR_BRAND] = true;
  /**
   * A tool error is raised by validation or a probe, which hold only the read port, so it never
   * follows a write of its own; the coordinator still answers `outcome_unknown` if a tracked write
   * of the same execution may have been dispatched before it.
   */
  readonly writeDispatched = false as const;
  readonly code: ToolErrorCode;
  /** `WIRE_ERRORS[code].hint`. */
  readonly hint: string;
  readonly details: Record<string, unknown>;
  constructor(code: ToolErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = "ToolError";
    this.code = code;
    this.hint = WIRE_ERRORS[code].hint;
    this.details = details;
  }
}

/** Brand check for {@link ToolError} (works across bundle copies, unlike `instanceof`). */
export function isToolError(e: unknown): e is ToolError {
  return (
    typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[TOOL_ERROR_BRAND] === true
  );
}

/** An unknown target (`not_found`, details `id`): reported before any lease or write. */
export function notFound(what: string, id: string): ToolError {
  return new ToolError("not_found", `${what} ${id} does not exist`, { id });
}

/**
 * The tool-level error of `@sisyphus/mcp-tools`: one class, one code union, one hint per code.
 *
 * A `ToolError` is raised by argument validation or by a probe, before any lease or write. Its
 * `message` says what is wrong in this call (and, where there is one, the specific way out); its
 * `hint` is the code's one next step from {@link TOOL_ERROR_HINTS}, the same wherever it is raised.
 * The write-safety codes (`state_changed`, `outcome_unknown`, …) are the coordinator's, with its own
 * hints; they are not repeated here.
 */

/**
 * What went wrong before anything was written. `details` carries, per code:
 * - `invalid_arguments`: the offending names or IDs when there are some (e.g. `name`, `children`);
 * - `unknown_tool`: nothing; `unknown_action`: `actions`, the tool's canonical action names;
 * - `not_found`: `id` (an ID, a path or a name);
 * - `ambiguous_path`: the candidates (`ids` or `notebooks`);
 * - `already_exists`: `id` of what is there, when known;
 * - `notebook_closed`: nothing; `permission_denied`: `notebook`, `granted`, `needed`;
 * - `confirmation_required`: `writeAttempted: false`;
 * - `kernel_unavailable` / `kernel_error`: `kernelCode` (the siyuan-api error code);
 * - `source_unavailable`: `source` (`localFilePath` or `uploadSource`, the kind this authority
 *   cannot read or failed to read); `source_too_large`: `limit` and, when known, `size` (bytes);
 * - `output_too_large`: `limit` and `size` (bytes received when the export stopped);
 *   `output_failed`: `reason` and, when one file failed, its `path`; the partial output was removed;
 * - `feedback_unconfigured`: nothing; `feedback_unavailable`: `reason`;
 * - `extension_unavailable`: `reason` and, when the kernel answered, `httpStatus`;
 *   `extension_tool_not_found`: `name`; `extension_error`: `rpcCode` (the JSON-RPC error code);
 * - `internal_error`: nothing.
 */
export type ToolErrorCode =
  | "invalid_arguments"
  | "unknown_tool"
  | "unknown_action"
  | "not_found"
  | "ambiguous_path"
  | "already_exists"
  | "notebook_closed"
  | "permission_denied"
  | "confirmation_required"
  | "kernel_unavailable"
  | "kernel_error"
  | "read_budget_exceeded"
  | "source_unavailable"
  | "source_too_large"
  | "output_too_large"
  | "output_failed"
  | "feedback_unconfigured"
  | "feedback_unavailable"
  | "extension_unavailable"
  | "extension_tool_not_found"
  | "extension_error"
  | "internal_error";

/** The caller's next step, one per code: every layer of this package answers a code with this hint. */
export const TOOL_ERROR_HINTS: Readonly<Record<ToolErrorCode, string>> = Object.freeze({
  invalid_arguments:
    "Fix the arguments as the message says (the tool description lists each action's signature), then send the call again; nothing was written.",
  unknown_tool: "Call one of the tools listed by tools/list.",
  unknown_action:
    "Use one of the actions in details.actions (the tool description gives their signatures).",
  not_found: "Check the ID, path or name with a read action, then retry.",
  ambiguous_path:
    "Several candidates match the name: address one by ID with the document tool (details list them).",
  already_exists:
    "Read what is there, or choose another destination; fs.write replaces content only with overwrite:true.",
  notebook_closed: "Open the notebook with notebook.set_open_state, then retry.",
  permission_denied:
    "Ask the user to grant the permission in the Sisyphus configuration; do not retry.",
  confirmation_required:
    "Ask the user to confirm, then resend with confirm: true (clients with form elicitation are asked by the server).",
  kernel_unavailable:
    "The SiYuan kernel did not answer: check that SiYuan runs and the URL/token are right, then retry the read.",
  kernel_error: "The kernel refused the request: check the arguments against a fresh read.",
  read_budget_exceeded:
    "The read needed more kernel calls or data than one read may use: narrow it (a smaller page or pageSize, a more specific query or path) and read again.",
  source_unavailable:
    "This authority cannot read that source: give localFilePath only where the Sisyphus Node server runs (an absolute path it can read); with the kernel authority stage the file first and pass the returned uploadSource.",
  source_too_large:
    "The file is larger than one upload may be (details.limit bytes); nothing was written. Upload a smaller file.",
  output_too_large:
    "The export is larger than one may be (details.limit bytes); its partial output was removed. Export fewer or smaller files.",
  output_failed:
    "The export could not be saved (details.reason); its partial output was removed and nothing else was touched. Check the kernel and the destination, then call again.",
  feedback_unconfigured:
    "No feedback destination is set: the user can set options.feedbackUrl in the Sisyphus settings (https, or http on loopback); nothing was sent.",
  feedback_unavailable:
    "The feedback was not sent (details.reason); nothing left this machine. Tell the user, who may send it another way.",
  extension_unavailable:
    "SiYuan's own MCP endpoint could not take the call (details.reason); nothing ran. Check the SiYuan version and settings, or use the Sisyphus tools instead.",
  extension_tool_not_found:
    "SiYuan's MCP endpoint has no tool by that name; nothing ran. List its tools with extension.list.",
  extension_error:
    "SiYuan's MCP endpoint refused the request before running the tool; nothing ran. Check the name and arguments against extension.list.",
  internal_error: "This is a Sisyphus bug; report it with the arguments you sent.",
});

const TOOL_ERROR_BRAND = Symbol.for("@sisyphus/mcp-tools/ToolError");

/** A tool-level failure with a {@link ToolErrorCode} and that code's hint. */
export class ToolError extends Error {
  readonly [TOOL_ERROR_BRAND] = true;
  /**
   * A tool error is raised by validation or a probe, which hold only the read port, so it never
   * follows a write of its own; the coordinator still answers `outcome_unknown` if a tracked write
   * of the same execution may have been dispatched before it.
   */
  readonly writeDispatched = false as const;
  readonly code: ToolErrorCode;
  /** `TOOL_ERROR_HINTS[code]`. */
  readonly hint: string;
  readonly details: Record<string, unknown>;
  constructor(code: ToolErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = "ToolError";
    this.code = code;
    this.hint = TOOL_ERROR_HINTS[code];
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

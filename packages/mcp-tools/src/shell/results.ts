/** Tool-level error results the shell produces itself (same shape as `@sisyphus/mcp-tools` errors). */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { TOOL_ERROR_HINTS } from "../errors.js";
import { errorResult } from "../runtime.js";

/** Error codes the shell answers on its own. */
export type ShellErrorCode =
  | "queue_full"
  | "cancelled"
  | "write_coordinator_unavailable"
  | "write_coordinator_changed"
  | "outcome_unknown"
  | "confirmation_required"
  | "confirmation_declined"
  | "confirmation_cancelled"
  | "confirmation_invalid"
  | "task_rejected"
  | "action_disabled";

/** One-line next step per shell error code. */
export const SHELL_HINTS: Readonly<Record<ShellErrorCode, string>> = {
  queue_full: "Too many calls in flight and nothing ran: retry the same call shortly.",
  cancelled: "The call was cancelled before it ran; nothing was executed.",
  write_coordinator_unavailable:
    "Nothing was written. The message says why the write authority could not be used (not running, failed to start, another kernel, no credential): fix that, then run preflight again.",
  write_coordinator_changed:
    "The write authority changed: drain writes, restart the runtimes, then run preflight again.",
  outcome_unknown:
    "Do not retry with a new requestId; inspect the target, then reconcile with the original requestId at the same authority.",
  confirmation_required:
    "This action is destructive: obtain the user's confirmation, then repeat the call with confirm: true.",
  confirmation_declined: "The user declined: do not repeat the action unless they ask again.",
  confirmation_cancelled:
    "The user dismissed the confirmation: nothing ran; ask again only if they want to.",
  task_rejected:
    "Give every tools/call its own new UUID as the taskId (a live or retained one is refused); to reconcile a write, use its requestId, not a taskId. Nothing ran.",
  action_disabled:
    "This tool or action is turned off in the Sisyphus settings and nothing ran: use another one, or ask the user to turn it on.",
  confirmation_invalid:
    "The confirmation was malformed, missing, expired or reused: repeat the call to get a fresh confirmation (check the client's form elicitation support).",
};

/**
 * Builds an `isError` result with `structuredContent.error = {code, message, hint, ...details}` and
 * the `top` fields beside it. A `writeAttempted` in `top` is also put in `error`, where every tool's
 * error carries it, so a caller finds it in one place whichever layer answered.
 */
export function shellError(
  code: ShellErrorCode,
  message: string,
  details: Record<string, unknown> = {},
  top: Record<string, unknown> = {},
): CallToolResult {
  const error = {
    code,
    message,
    hint: SHELL_HINTS[code],
    ...details,
    ...("writeAttempted" in top ? { writeAttempted: top["writeAttempted"] } : {}),
  };
  const structuredContent = { ...top, error };
  return {
    isError: true,
    content: [{ type: "text", text: JSON.stringify(structuredContent) }],
    structuredContent,
  };
}

/**
 * The refusal of a call whose settings file cannot be used (both authorities answer it alike): a
 * strict call `write_coordinator_unavailable` (`settings_invalid`), a read `permission_denied` — no
 * call runs under permissions nobody configured. `why` names the problem.
 */
export function unusableSettingsRefusal(why: string, writeClass: boolean): CallToolResult {
  const message = `The Sisyphus settings cannot be used (${why})`;
  if (writeClass) {
    return shellError(
      "write_coordinator_unavailable",
      `${message}; nothing was written.`,
      { reason: "settings_invalid" },
      { writeAttempted: false },
    );
  }
  return errorResult({
    code: "permission_denied",
    message: `${message}, so no permission applies; nothing ran.`,
    hint: TOOL_ERROR_HINTS.permission_denied,
    writeAttempted: false,
  }) as CallToolResult;
}

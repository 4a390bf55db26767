/**
 * The MCP tool result and its error forms, apart from the runtime: the tools' (`errorResult`) and
 * the shell's own (`shellError` and its refusals), so a shell, the delegation link and the CLI
 * answer errors without loading the tools, their schemas or zod. Every hint is the code's row of
 * the wire's error table (`WIRE_ERRORS`).
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { WIRE_ERRORS, type WireErrorCode } from "@sisyphus/write-safety";
import type { AdmissionRefusal } from "./shell/admission.js";

/** The MCP tool result shape. */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/**
 * An error result: `structuredContent.error` carries `code`, `message` and `hint` (the caller's next
 * step): the code's `WIRE_ERRORS` hint unless a refinement of it is given (a write-safety error's
 * per-reason hint), then the other fields.
 */
export function errorResult({
  code,
  message,
  hint,
  ...fields
}: {
  code: WireErrorCode;
  message: string;
  hint?: string;
  [k: string]: unknown;
}): ToolResult {
  const structuredContent = {
    error: { code, message, hint: hint ?? WIRE_ERRORS[code].hint, ...fields },
  };
  return {
    content: [{ type: "text", text: JSON.stringify(structuredContent) }],
    structuredContent,
    isError: true,
  };
}

/** Error codes the shell answers on its own: a subset of the wire's `WIRE_ERRORS`. */
export const SHELL_ERROR_CODES = [
  "queue_full",
  "cancelled",
  "write_coordinator_unavailable",
  "write_coordinator_changed",
  "outcome_unknown",
  "confirmation_required",
  "confirmation_declined",
  "confirmation_cancelled",
  "confirmation_invalid",
  "task_rejected",
  "action_disabled",
] as const satisfies readonly WireErrorCode[];

/** One of {@link SHELL_ERROR_CODES}. */
export type ShellErrorCode = (typeof SHELL_ERROR_CODES)[number];

/**
 * The top-level fields of a {@link shellError} answer. `writeAttempted: true` compiles only for a
 * code whose `WIRE_ERRORS` row allows it (`writeAttempted: "possible"`).
 */
export type ShellErrorTop<C extends ShellErrorCode> = Record<string, unknown> & {
  writeAttempted?: (typeof WIRE_ERRORS)[C]["writeAttempted"] extends "possible" ? boolean : false;
};

/**
 * Builds an `isError` result with `structuredContent.error = {code, message, hint, ...details}` and
 * the `top` fields beside it. A `writeAttempted` in `top` is also put in `error`, where every tool's
 * error carries it, so a caller finds it in one place whichever layer answered.
 */
export function shellError<C extends ShellErrorCode>(
  code: C,
  message: string,
  details: Record<string, unknown> = {},
  top: ShellErrorTop<C> = {},
): CallToolResult {
  const error = {
    code,
    message,
    hint: WIRE_ERRORS[code].hint,
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
 * The answer to a call the admission gate refused (`Admission.admit`), the same at every gate
 * (tool calls, the extension's tools, the App's preview): `queue_full` with the cap as
 * `details.limit`, or `cancelled` when the call was cancelled while it waited. Nothing ran.
 */
export function admissionRefusalResult(refusal: AdmissionRefusal, cap: number): CallToolResult {
  return refusal.refused === "queue_full"
    ? shellError("queue_full", `More than ${cap} calls in flight; nothing ran.`, { limit: cap })
    : shellError("cancelled", "The call was cancelled before it ran.");
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
    writeAttempted: false,
  }) as CallToolResult;
}

/**
 * The wire's error vocabulary: every code a tool result's `structuredContent.error.code` can carry,
 * whichever layer answered (this package's coordinator, the tools of `@sisyphus/mcp-tools`, the
 * shared shell, either authority). One row per code: its one hint, the `sisyphus` command's exit
 * class for it, and whether `writeAttempted` can be `true` beside it. The write-safety, tool and
 * shell codes are subsets of it; a hint is looked up here and nowhere else.
 *
 * It lives in this package, the lowest one every layer that answers errors imports, so that the
 * coordinator can use it without depending upward. HTTP route refusals (`{error: "unauthorized"}`
 * from a route, the staging routes' codes) and the CLI's own command-line codes are not tool
 * results and are not in it.
 */

/**
 * The `sisyphus` command's outcome class of an error code; the CLI maps each to an exit status
 * (`packages/cli/src/exit-codes.ts`):
 * - `error`: the tool refused or failed for another reason (exit 1);
 * - `safety`: a safety rejection, nothing written (3);
 * - `confirmation`: the user's confirmation is needed, or was refused (4);
 * - `outcomeUnknown`: the write may or may not have happened (5);
 * - `unavailable`: the kernel or the write authority cannot be used (6);
 * - `denied`: the settings do not allow it (7);
 * - `interrupted`: cancelled before anything was written (130).
 */
export type WireExitClass =
  | "error"
  | "safety"
  | "confirmation"
  | "outcomeUnknown"
  | "unavailable"
  | "denied"
  | "interrupted";

/** One row of {@link WIRE_ERRORS}. */
export interface WireErrorEntry {
  /** The caller's one next step, a single line. */
  readonly hint: string;
  /** The CLI's outcome class; a code does not compile without one. */
  readonly exit: WireExitClass;
  /**
   * Whether an answer with this code may say `writeAttempted: true`: `"possible"` only where a
   * kernel write may have been dispatched before the failure; `"never"` where nothing was written.
   */
  readonly writeAttempted: "never" | "possible";
}

/** Every wire error code with its hint, exit class and `writeAttempted` column. */
export const WIRE_ERRORS = {
  // ---- Strict Safe Writes (the coordinator's codes, spec "Failure semantics")
  precondition_required: {
    hint: "A write needs its preflight first: run the same call with validateOnly:true, then resend it with the returned requestId and hash field; never invent a hash.",
    exit: "safety",
    writeAttempted: "never",
  },
  preflight_lease_invalid: {
    hint: "Nothing was written; details.reason says why and the answer's hint names the next call: usually run the same validateOnly call again, then commit with the new requestId and credential (for a credential that does not match, the requestId is still good).",
    exit: "safety",
    writeAttempted: "never",
  },
  state_changed: {
    hint: "The target changed after preflight; nothing was written and this requestId is used up. details.current, when present, is the target now (block ID → Kramdown); else reread it (block.get_kramdown, document.get, fs.read or av.render). Decide, then run a new validateOnly preflight and commit with its new requestId.",
    exit: "safety",
    writeAttempted: "never",
  },
  outcome_unknown: {
    hint: "The write may have happened. Do not retry with a new requestId: read the target (block.get_kramdown, document.get, fs.read or av.render) to see whether it did; resending the same call with the same requestId never writes twice (it answers the receipt once known; av.create finishes its missing steps).",
    exit: "outcomeUnknown",
    writeAttempted: "possible",
  },
  // A readback that does not show the request: the write ran, its result is not what was asked.
  readback_mismatch: {
    hint: "The write ran but the target does not show what was asked: read it (block.get_kramdown, document.get, fs.read or av.render) before acting again; do not resend with a new requestId.",
    exit: "outcomeUnknown",
    writeAttempted: "possible",
  },
  idempotency_conflict: {
    hint: "This requestId belongs to other arguments; nothing was written: run a validateOnly preflight of these arguments for a new requestId.",
    exit: "safety",
    writeAttempted: "never",
  },
  write_coordinator_unavailable: {
    hint: "Nothing was written. If details.reason is staging_busy or staging_full, wait details.retryAfterMs and send the same call again; if staging_timeout or unreachable, check system.health, then send it again; otherwise the write authority is not serving (the message says why: not running, another kernel, no credential, failing stores): tell the user.",
    exit: "unavailable",
    writeAttempted: "never",
  },
  write_coordinator_changed: {
    hint: "The write authority changed; nothing was written: drain writes, restart the runtimes, then run the validateOnly preflight again.",
    exit: "unavailable",
    writeAttempted: "never",
  },
  preflight_unavailable: {
    hint: "Preflight does not execute this action; call it without validateOnly (it carries no strict guarantee).",
    exit: "safety",
    writeAttempted: "never",
  },
  queue_full: {
    hint: "Too many calls in flight; nothing ran: send the same call again shortly.",
    exit: "unavailable",
    writeAttempted: "never",
  },
  // ---- the tools' codes (raised by validation or a probe, before any lease or write)
  invalid_arguments: {
    hint: "Fix the arguments as the message says (the tool description lists each action's signature), then send the call again; nothing was written.",
    exit: "error",
    writeAttempted: "never",
  },
  unknown_tool: {
    hint: "No tool by that name: call one listed by tools/list.",
    exit: "error",
    writeAttempted: "never",
  },
  unknown_action: {
    hint: "The tool has no such action; nothing ran: call one of the answer's `actions` (the tool description gives their signatures).",
    exit: "error",
    writeAttempted: "never",
  },
  not_found: {
    hint: "No block, document, notebook or file has that ID, path or name; nothing was written: find it with a read (document.find, fs.ls, search.fulltext, av.create's avID for av), then retry.",
    exit: "error",
    writeAttempted: "never",
  },
  ambiguous_path: {
    hint: "Several candidates match the name: address one by ID with the document tool (details list them).",
    exit: "error",
    writeAttempted: "never",
  },
  already_exists: {
    hint: "Something is already at that destination; nothing was written: read it, choose another destination, or for fs.write preflight again with overwrite:true.",
    exit: "error",
    writeAttempted: "never",
  },
  notebook_closed: {
    hint: "The notebook is closed; nothing was written: open it with notebook.set_open_state (open:true), then retry.",
    exit: "error",
    writeAttempted: "never",
  },
  permission_denied: {
    hint: "The Sisyphus settings do not allow this here; nothing ran: tell the user, who may grant it; do not retry.",
    exit: "denied",
    writeAttempted: "never",
  },
  kernel_unavailable: {
    hint: "SiYuan did not answer; nothing was written: check system.health, then send the same call again.",
    exit: "unavailable",
    writeAttempted: "never",
  },
  kernel_error: {
    hint: "SiYuan refused the request; nothing was written: check the arguments against a fresh read of the target, then call again.",
    exit: "error",
    writeAttempted: "never",
  },
  read_budget_exceeded: {
    hint: "The read needed more kernel calls or data than allowed: narrow it (a smaller page or pageSize, a more specific query or path) and read again.",
    exit: "error",
    writeAttempted: "never",
  },
  source_unavailable: {
    hint: "This authority cannot read that source: give localFilePath only where the Sisyphus Node server runs (an absolute path it can read); with the kernel authority stage the file first and pass the returned uploadSource.",
    exit: "error",
    writeAttempted: "never",
  },
  source_too_large: {
    hint: "The file is larger than one upload may be (details.limit bytes); nothing was written. Upload a smaller file.",
    exit: "error",
    writeAttempted: "never",
  },
  output_too_large: {
    hint: "The export is larger than one may be (details.limit bytes); its partial output was removed. Export fewer or smaller files.",
    exit: "error",
    writeAttempted: "never",
  },
  output_failed: {
    hint: "The export could not be saved (details.reason); its partial output was removed and nothing else was touched. Check the kernel and the destination, then call again.",
    exit: "error",
    writeAttempted: "never",
  },
  feedback_unconfigured: {
    hint: "No feedback destination is set: the user can set options.feedbackUrl in the Sisyphus settings (https, or http on loopback); nothing was sent.",
    exit: "error",
    writeAttempted: "never",
  },
  feedback_unavailable: {
    hint: "The feedback was not sent (details.reason); nothing left this machine. Tell the user, who may send it another way.",
    exit: "error",
    writeAttempted: "never",
  },
  extension_unavailable: {
    hint: "SiYuan's own MCP endpoint could not take the call (details.reason); nothing ran. Check the SiYuan version and settings, or use the Sisyphus tools instead.",
    exit: "error",
    writeAttempted: "never",
  },
  extension_tool_not_found: {
    hint: "SiYuan's MCP endpoint has no tool by that name; nothing ran. List its tools with extension.list.",
    exit: "error",
    writeAttempted: "never",
  },
  unsupported: {
    hint: "SiYuan has this off or lacks it (details.reason); nothing ran. Tell the user.",
    exit: "error",
    writeAttempted: "never",
  },
  extension_error: {
    hint: "SiYuan's MCP endpoint refused the request before running the tool; nothing ran. Check the name and arguments against extension.list.",
    exit: "error",
    writeAttempted: "never",
  },
  internal_error: {
    hint: "A Sisyphus bug: tell the user and report it (feedback.submit) with the arguments you sent.",
    exit: "error",
    writeAttempted: "never",
  },
  // ---- the shell's codes (admission, cancellation, confirmation, tasks, settings)
  cancelled: {
    hint: "The call was cancelled before it ran; nothing was executed: send it again if it is still wanted.",
    exit: "interrupted",
    writeAttempted: "never",
  },
  confirmation_required: {
    hint: "This action is destructive: ask the user to confirm, then repeat the same call with confirm: true (clients with form elicitation are asked by the server).",
    exit: "confirmation",
    writeAttempted: "never",
  },
  confirmation_declined: {
    hint: "The user declined; nothing ran: do not repeat the action unless they ask again.",
    exit: "confirmation",
    writeAttempted: "never",
  },
  confirmation_cancelled: {
    hint: "The user dismissed the confirmation; nothing ran: ask again only if they want to.",
    exit: "confirmation",
    writeAttempted: "never",
  },
  confirmation_invalid: {
    hint: "The confirmation was malformed, missing, expired or reused: repeat the call to get a fresh confirmation (check the client's form elicitation support).",
    exit: "confirmation",
    writeAttempted: "never",
  },
  task_rejected: {
    hint: "Give every tools/call its own new UUID as the taskId (a live or retained one is refused); to reconcile a write, use its requestId, not a taskId. Nothing ran.",
    exit: "unavailable",
    writeAttempted: "never",
  },
  action_disabled: {
    hint: "This tool or action is turned off in the Sisyphus settings and nothing ran: use another one, or ask the user to turn it on.",
    exit: "denied",
    writeAttempted: "never",
  },
} as const satisfies Readonly<Record<string, WireErrorEntry>>;

/** A code of {@link WIRE_ERRORS}: every `structuredContent.error.code` a tool result can carry. */
export type WireErrorCode = keyof typeof WIRE_ERRORS;

/** True when `code` is a {@link WireErrorCode} (a code read off the wire may be anything). */
export function isWireErrorCode(code: unknown): code is WireErrorCode {
  return typeof code === "string" && Object.hasOwn(WIRE_ERRORS, code);
}

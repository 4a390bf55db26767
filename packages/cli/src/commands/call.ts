/**
 * `sisyphus <tool> <action> [flags]`: one tool call at the selected authority.
 *
 * Destructive actions: with `--yes` the call carries `confirm: true`; otherwise it is sent without,
 * and when the authority answers `confirmation_required` (its checks passed, so nobody approves a
 * commit that would be refused) a person on a terminal is asked and the call is sent again with
 * `confirm: true`; without a terminal it ends with exit 4.
 *
 * Ctrl-C: at the kernel authority the call's taskId is cancelled through `/tasks` and the answer
 * says whether that was accepted (it stops before writing) or the call is already committing; the
 * command keeps waiting for the call's own answer. A file being staged or downloaded on this host
 * stops at once (a download's partial output is removed). At the Node authority MCP's
 * cancellation is sent; a write that was sent then answers `outcome_unknown` with its requestId.
 * A second Ctrl-C stops waiting at once.
 *
 * Arguments are checked before anything is sent (exit 2, nothing sent). A write's against the
 * catalog's schema (zod); a read's against its JSON Schema from the action index, so a read's start
 * loads neither zod nor the catalog (most of a start's cost), and zod only when that check fails,
 * for its message. A rule only zod states (a refinement) is the authority's to find: its
 * `invalid_arguments` answer is then checked here and given as the same usage error.
 */
import { TASK_ID_META_KEY } from "@sisyphus/node-server/delegation";
import { type ActionEntry, findEntry, TOOLS } from "../action-index.js";
import { openAuthority } from "../authority.js";
import type { Resolved } from "../config.js";
import { CliError } from "../errors.js";
import { classify, EXIT } from "../exit-codes.js";
import { commandLine, parseFlags } from "../flag-parse.js";
import { err, type Io, paint } from "../io.js";
import { progressBars } from "../progress.js";
import { renderResult } from "../render.js";
import { schemaAccepts } from "../schema-gate.js";

export interface CallOptions {
  readonly yes: boolean;
  readonly autostart: boolean;
  readonly json: Record<string, unknown> | undefined;
}

/** The action named on the command line, or a usage error that lists what exists. */
export function actionOf(tool: string, action: string | undefined): ActionEntry {
  if (!TOOLS.includes(tool)) {
    throw new CliError(
      EXIT.usage,
      "unknown_command",
      `unknown command or tool "${tool}" (sisyphus list)`,
    );
  }
  if (action === undefined) {
    throw new CliError(EXIT.usage, "usage", `${tool}: name an action (sisyphus help ${tool})`);
  }
  const surface = findEntry(tool, action.replace(/-/g, "_"));
  if (surface === undefined) {
    throw new CliError(
      EXIT.usage,
      "unknown_action",
      `${tool} has no action "${action}" (sisyphus help ${tool})`,
    );
  }
  return surface;
}

type Structured = Record<string, unknown>;

function errorCode(structured: Structured): string | undefined {
  const e = structured["error"] as { code?: unknown } | undefined;
  return typeof e?.code === "string" ? e.code : undefined;
}

async function askConfirmation(
  io: Io,
  surface: ActionEntry,
  args: Record<string, unknown>,
  structured: Structured,
): Promise<boolean> {
  const { confirm, isCancel } = await import("@clack/prompts");
  const target = ["id", "path", "notebook", "ids"].map((k) => args[k]).find((v) => v !== undefined);
  const on = target === undefined ? "" : ` on ${JSON.stringify(target)}`;
  const subject = subjectOf(structured);
  const answer = await confirm({
    message: `Run the destructive action ${surface.tool} ${surface.action}${on}${subject === undefined ? "" : `: ${subject}`}?`,
    initialValue: false,
    input: io.stdin as NodeJS.ReadStream,
    output: io.stderr as NodeJS.WriteStream,
  });
  return !isCancel(answer) && answer === true;
}

/**
 * What the authority says the call would remove or move (`error.subject` of its
 * `confirmation_required` answer), as one plain line: control characters out, at most 300
 * characters; `undefined` when it says nothing.
 */
function subjectOf(structured: Structured): string | undefined {
  const subject = (structured["error"] as { subject?: unknown } | undefined)?.subject;
  if (typeof subject !== "string" || subject === "") return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  return subject.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").slice(0, 300);
}

/** The schema check of `flags.ts` (zod and the catalog, loaded on first use: `lazy.ts`). */
async function checkCall(
  surface: ActionEntry,
  args: Record<string, unknown>,
): Promise<ActionEntry["kind"]> {
  const { checkCall } = await import("./lazy.js");
  return checkCall(surface.tool, surface.action, args);
}

export async function runCall(
  io: Io,
  config: Resolved,
  surface: ActionEntry,
  argv: readonly string[],
  options: CallOptions,
): Promise<number> {
  const args = parseFlags(surface, argv, options.json);
  const plainRead = surface.schema !== undefined;
  const kind =
    plainRead && schemaAccepts(surface.schema, args) ? "read" : await checkCall(surface, args);
  const authority = await openAuthority(config, options.autostart, await progressBars(io));
  const validateOnly = args["validateOnly"] === true;
  const mayExecute = kind !== "read" && !validateOnly;
  try {
    let sent = {
      action: surface.action,
      ...args,
      ...(options.yes && mayExecute && surface.dangerous !== false ? { confirm: true } : {}),
    };
    let result = await callOnce(io, authority, surface.tool, sent, mayExecute);
    let structured = (result.structuredContent ?? {}) as Structured;
    if (result.isError === true && errorCode(structured) === "confirmation_required") {
      if (!io.interactive) {
        renderResult(io, structured, true, EXIT.confirmation);
        err(io, "Pass --yes to confirm without a terminal.");
        return EXIT.confirmation;
      }
      if (!(await askConfirmation(io, surface, args, structured))) {
        err(io, "Declined: nothing was run.");
        return EXIT.confirmation;
      }
      sent = { ...sent, confirm: true };
      result = await callOnce(io, authority, surface.tool, sent, mayExecute);
      structured = (result.structuredContent ?? {}) as Structured;
    }
    // A read whose arguments the authority refused: zod's usage error (exit 2) for a refinement the
    // JSON Schema could not state, or the authority's answer when zod passes too.
    if (plainRead && result.isError === true && errorCode(structured) === "invalid_arguments") {
      await checkCall(surface, args);
    }
    // A call cancelled before it ran is an answer, not an error: nothing was written (exit 130);
    // so is a download stopped by Ctrl-C (nothing saved, its partial output removed).
    const exit =
      result.isError === true
        ? stoppedTransfer(structured)
          ? EXIT.interrupted
          : classify(errorCode(structured) ?? "internal_error")
        : structured["status"] === "cancelled"
          ? EXIT.interrupted
          : EXIT.ok;
    renderResult(
      io,
      structured,
      result.isError === true,
      exit,
      nextCommand(surface, args, structured, result.isError === true),
      result.taskId === undefined ? {} : { taskId: result.taskId },
    );
    return exit;
  } finally {
    await authority.link.close();
  }
}

/** A download of this host that the user's Ctrl-C stopped (`output_failed`, reason `cancelled`). */
function stoppedTransfer(structured: Structured): boolean {
  const e = structured["error"] as { code?: unknown; reason?: unknown } | undefined;
  return e?.code === "output_failed" && e.reason === "cancelled";
}

/** What `/tasks` answered to the Ctrl-C's cancel, for the person waiting. */
function cancelAnswerText(answer: Record<string, unknown> | undefined): string {
  if (answer === undefined)
    return "Could not reach /tasks to cancel; still waiting for the answer (Ctrl-C again to stop waiting).";
  if (answer["accepted"] === true)
    return "Cancel accepted: the call stops before writing. Waiting for its answer…";
  if (answer["found"] !== true && answer["cancelRequested"] === true)
    return "The call has not reached the kernel yet: it stops when it does, and a file being staged stops now. Waiting for the answer…";
  if (answer["found"] !== true)
    return "The call has not reached the kernel yet; a file being staged stops. Waiting for the answer…";
  if (answer["state"] !== "running")
    return `The kernel call has ended (${String(answer["state"])}); a download stops and its partial output is removed. Waiting for the answer…`;
  if (answer["committing"] === true)
    return "Too late to cancel: the call is already committing. Waiting for its result…";
  return "Cancel not accepted. Waiting for the answer…";
}

/** After a passing preflight: the commit's command line, with the issued requestId and credential. */
function nextCommand(
  surface: ActionEntry,
  args: Record<string, unknown>,
  structured: Structured,
  isError: boolean,
): string | undefined {
  if (isError || args["validateOnly"] !== true || typeof structured["requestId"] !== "string")
    return undefined;
  const { validateOnly: _, ...rest } = args;
  const next: Record<string, unknown> = { ...rest, requestId: structured["requestId"] };
  const field = structured["preconditionField"];
  if (typeof field === "string" && typeof structured[field] === "string")
    next[field] = structured[field];
  const line = commandLine(surface, next);
  return structured["confirmationRequired"] === true ? `${line} --yes` : line;
}

async function callOnce(
  io: Io,
  authority: Awaited<ReturnType<typeof openAuthority>>,
  tool: string,
  args: Record<string, unknown>,
  mayExecute: boolean,
): Promise<{ isError?: boolean | undefined; structuredContent?: unknown; taskId?: string }> {
  const controller = new AbortController();
  // The kernel call is cancelled through /tasks; this stops only the files moved on this host.
  const transfers = new AbortController();
  const taskId = authority.kind === "kernel" ? globalThis.crypto.randomUUID() : undefined;
  let interrupts = 0;
  let giveUp: (() => void) | undefined;
  /** Printing what `/tasks` answered to a Ctrl-C's cancel. */
  let notice: Promise<void> | undefined;
  const stopped = new Promise<never>((_, reject) => {
    giveUp = () =>
      reject(
        new CliError(
          EXIT.interrupted,
          "interrupted",
          `Stopped waiting.${mayExecute ? ` The call may still complete: inspect the target and reconcile with requestId ${String(args["requestId"] ?? "")}${taskId ? ` (taskId ${taskId}: sisyphus task result ${taskId})` : ""}.` : ""}`,
        ),
      );
  });
  const onInterrupt = () => {
    interrupts++;
    if (interrupts > 1) {
      giveUp?.();
      return;
    }
    if (taskId === undefined) {
      err(io, paint(io, "yellow", "Cancelling (MCP cancellation sent)…"));
      controller.abort();
      return;
    }
    transfers.abort();
    notice = authority.link.task(taskId, "cancel").then((answer) => {
      err(io, paint(io, "yellow", cancelAnswerText(answer)));
    });
  };
  process.on("SIGINT", onInterrupt);
  try {
    const result = await Promise.race([
      authority.link.call(
        tool,
        args,
        controller.signal,
        mayExecute,
        taskId === undefined ? {} : { [TASK_ID_META_KEY]: taskId },
        transfers.signal,
      ),
      stopped,
    ]);
    if (controller.signal.aborted && !mayExecute) {
      throw new CliError(EXIT.interrupted, "interrupted", "Interrupted; nothing was written.");
    }
    return taskId === undefined ? result : { ...result, taskId };
  } finally {
    process.off("SIGINT", onInterrupt);
    // The cancel's answer comes before the call's own (the program exits once the call is
    // answered); a second Ctrl-C, which stopped waiting, does not wait for it either.
    if (notice !== undefined) await Promise.race([notice, stopped.catch(() => undefined)]);
  }
}

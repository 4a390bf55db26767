/**
 * The `sisyphus` command's exit codes: one per outcome class, so a script can branch on `$?`
 * without parsing output. Documented in the README; `classify` maps every error code the tools,
 * the write-safety layer and the shell answer to one class, the one its `WIRE_ERRORS` row names.
 */
import { isWireErrorCode, WIRE_ERRORS, type WireExitClass } from "@sisyphus/write-safety";

/**
 * Exit status per outcome class: `ok`, `usage` (the CLI's own) and every {@link WireExitClass} of
 * the wire's error table, so a class added there does not compile until it has a status here.
 */
export const EXIT = Object.freeze({
  /** The call did what was asked (a read, a preflight, `committed`, `no_change`, a replay). */
  ok: 0,
  /** The tool refused or failed for another reason (not found, kernel error, invalid arguments the server found…). */
  error: 1,
  /** The command line is wrong: unknown command or flag, a value of the wrong type. Nothing was sent. */
  usage: 2,
  /** A safety rejection: the preflight is missing, stale or used up, or the target changed. Nothing was written. */
  safety: 3,
  /** The action needs the user's confirmation (pass `--yes`, or answer on a terminal), or it was declined. */
  confirmation: 4,
  /** The write may or may not have happened: inspect the target, then reconcile with the same requestId. */
  outcomeUnknown: 5,
  /** The kernel or the write authority cannot be used (unreachable, not serving, changed, busy). */
  unavailable: 6,
  /** The settings do not allow it: the notebook's permission, or the tool or action is turned off. */
  denied: 7,
  /**
   * Interrupted (Ctrl-C) before anything was written, or a download stopped with its partial
   * output removed.
   */
  interrupted: 130,
} as const satisfies Readonly<Record<WireExitClass | "ok" | "usage", number>>);

/** One of the statuses of {@link EXIT}. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The exit code of an error code (`undefined`: success): its class in the wire's error table
 * (`WIRE_ERRORS`, where a code does not compile without one). A code this build does not know (a
 * newer authority's) is a plain failure.
 */
export function classify(errorCode: string | undefined): ExitCode {
  if (errorCode === undefined) return EXIT.ok;
  return isWireErrorCode(errorCode) ? EXIT[WIRE_ERRORS[errorCode].exit] : EXIT.error;
}

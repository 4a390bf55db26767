/**
 * The `sisyphus` command's exit codes: one per outcome class, so a script can branch on `$?`
 * without parsing output. Documented in the README; `classify` maps every error code the tools,
 * the write-safety layer and the shell answer to one class.
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
});

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const CLASSES: ReadonlyArray<readonly [ExitCode, readonly string[]]> = [
  [
    EXIT.safety,
    [
      "precondition_required",
      "preflight_lease_invalid",
      "state_changed",
      "idempotency_conflict",
      "preflight_unavailable",
    ],
  ],
  [
    EXIT.confirmation,
    [
      "confirmation_required",
      "confirmation_declined",
      "confirmation_cancelled",
      "confirmation_invalid",
    ],
  ],
  // A readback that does not show the request: the write ran, its result is not what was asked.
  [EXIT.outcomeUnknown, ["outcome_unknown", "readback_mismatch"]],
  [
    EXIT.unavailable,
    [
      "write_coordinator_unavailable",
      "write_coordinator_changed",
      "kernel_unavailable",
      "queue_full",
      "task_rejected",
    ],
  ],
  [EXIT.denied, ["permission_denied", "action_disabled"]],
  [EXIT.interrupted, ["cancelled"]],
];

const BY_CODE = new Map<string, ExitCode>(
  CLASSES.flatMap(([exit, codes]) => codes.map((c) => [c, exit] as const)),
);

/** The exit code of an error code (`undefined`: success). */
export function classify(errorCode: string | undefined): ExitCode {
  if (errorCode === undefined) return EXIT.ok;
  return BY_CODE.get(errorCode) ?? EXIT.error;
}

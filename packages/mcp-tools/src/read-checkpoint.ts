/**
 * Read checkpoints (spec, "Kernel concurrency and queued cancellation": running reads stop at
 * checkpoints after the current host call settles). Every kernel call of a read action goes
 * through its budgeted view of the client, and this hook is charged first: once the call's signal
 * has aborted, the read's next kernel call — or the next retry of one — is not sent, and throws
 * the `cancelled` tool error instead. A kernel call already sent is never interrupted (a SiYuan
 * request cannot be), so the read stops when that call settles, and its admission slot is freed
 * when it does. One checkpoint per read action, in the runtime, for both authorities: handlers
 * check nothing themselves. The runtime answers `cancelled` even when the handler caught the
 * error ({@link ReadCheckpoint.stopped}).
 */
import type { BudgetCall, CallBudget } from "@sisyphus/siyuan-api/kernel";
import { ToolError } from "./errors.js";

/** The checkpoint of one read action, in front of each of its kernel calls. */
export class ReadCheckpoint implements CallBudget {
  readonly #signal: AbortSignal | undefined;
  #stopped: ToolError | undefined;

  /** `signal`: the call's own (absent: the read is never stopped). */
  constructor(signal: AbortSignal | undefined) {
    this.#signal = signal;
  }

  /** The error the read stopped with at a checkpoint, if it did (sticky). */
  get stopped(): ToolError | undefined {
    return this.#stopped;
  }

  /** Before a kernel call is sent: throws `cancelled` once the call was cancelled. */
  reserveCall(call: BudgetCall): boolean {
    this.#pass(call);
    return true;
  }

  /** Before a retry is sent: the same checkpoint. */
  reserveRetry(call: BudgetCall): boolean {
    this.#pass(call);
    return true;
  }

  /** Bytes are not this hook's concern. */
  recordBytes(): boolean {
    return true;
  }

  #pass(call: BudgetCall): void {
    if (this.#signal?.aborted !== true) return;
    this.#stopped ??= new ToolError(
      "cancelled",
      `The read was cancelled; it stopped before its next kernel call (${call.endpoint}).`,
      { writeAttempted: false },
    );
    throw this.#stopped;
  }
}

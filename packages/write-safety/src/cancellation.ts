/**
 * The cancellation barrier of one coordinator call. A call can be cancelled until the moment its
 * `executing` ledger record is about to be written; from then on cancellation is refused and the
 * write, readback and ledger record run to completion.
 */

/**
 * - `open`: not cancelled, not yet committing (queued or preparing: probing, resolving);
 * - `cancelled`: cancellation accepted; the call stops before executing;
 * - `committing`: past the barrier; cancellation is refused;
 * - `settled`: the call finished (any way).
 */
export type CancellationState = "open" | "cancelled" | "committing" | "settled";

/**
 * Handle a runtime creates per call (e.g. per MCP request or task ID) and passes in the call.
 * `cancel()` answers whether the cancellation was accepted, as the task-control extension reports it.
 */
export class WriteCancellation {
  #state: CancellationState = "open";
  #listeners: Array<() => void> = [];

  /** Current state. */
  get state(): CancellationState {
    return this.#state;
  }

  /** True once the call passed the barrier (`committing`) and has not settled. */
  get committing(): boolean {
    return this.#state === "committing";
  }

  /**
   * Request cancellation. Returns `true` if accepted (the call will not execute; a queued call
   * leaves the lane at once), `false` if the call is already committing or settled.
   */
  cancel(): boolean {
    if (this.#state === "cancelled") return true;
    if (this.#state !== "open") return false;
    this.#state = "cancelled";
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
    return true;
  }

  /** @internal Coordinator only: pass the barrier. `false` when already cancelled. Synchronous. */
  enterCommit(): boolean {
    if (this.#state !== "open") return false;
    this.#state = "committing";
    this.#listeners = [];
    return true;
  }

  /** @internal Coordinator only: the call finished. */
  settle(): void {
    if (this.#state !== "cancelled") this.#state = "settled";
    this.#listeners = [];
  }

  /** @internal Coordinator only: run `listener` once if the call is cancelled while open. */
  onCancel(listener: () => void): void {
    if (this.#state === "open") this.#listeners.push(listener);
  }
}

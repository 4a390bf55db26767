/**
 * The serial write lane: every preflight and commit of one coordinator runs alone, first come first
 * served, behind an admission cap. A call is admitted (or refused with `queue_full`, or with
 * `write_coordinator_unavailable` while draining) synchronously; a queued call that is cancelled
 * leaves the lane at once.
 */
import { CANCELLED, type CancelledAnswer } from "./answers.js";
import type { WriteCancellation } from "./cancellation.js";
import { WriteSafetyError } from "./errors.js";

interface Waiter {
  resume: () => void;
  done: boolean;
}

/** The error every call made after `drain()` fails with: nothing was executed. */
export function drainingError(): WriteSafetyError {
  return new WriteSafetyError("write_coordinator_unavailable", {
    message: "The write coordinator is draining for a restart; nothing was executed.",
    details: { reason: "draining" },
  });
}

/** True when the call was cancelled. A function, not an inline comparison, so narrowing does not survive an `await`. */
export function isCancelled(cancellation: WriteCancellation | undefined): boolean {
  return cancellation !== undefined && cancellation.state === "cancelled";
}

/** One FIFO lane with an admission cap (calls in flight: running + queued + preparing). */
export class WriteLane {
  /** Most calls admitted at once; one more is refused with `queue_full`. */
  readonly cap: number;
  #inFlight = 0;
  #draining = false;
  #drained: Array<() => void> = [];
  #running = false;
  #waiters: Waiter[] = [];

  constructor(cap: number) {
    this.cap = cap;
  }

  /** `drain()` was called: new calls are refused. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Admitted calls not yet settled (running + queued + preparing). */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Calls waiting for the lane. */
  get queued(): number {
    return this.#waiters.length;
  }

  /** True while a call holds the lane. */
  get running(): boolean {
    return this.#running;
  }

  /** Stop admitting calls; resolves once every admitted call settled. Idempotent. */
  drain(): Promise<void> {
    this.#draining = true;
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  /**
   * Admits one call and runs `body` alone in the lane. Answers {@link CANCELLED} when the call is
   * cancelled before `body` starts; settles `cancellation` however the call ends.
   */
  admit<T>(
    cancellation: WriteCancellation | undefined,
    body: () => Promise<T>,
  ): Promise<T | CancelledAnswer> {
    if (this.#draining) return Promise.reject(drainingError());
    if (this.#inFlight >= this.cap) {
      return Promise.reject(new WriteSafetyError("queue_full", { details: { limit: this.cap } }));
    }
    this.#inFlight++;
    const run = async (): Promise<T | CancelledAnswer> => {
      try {
        if (isCancelled(cancellation)) return CANCELLED;
        const acquired = await this.#acquire(cancellation);
        if (!acquired) return CANCELLED;
        try {
          if (isCancelled(cancellation)) return CANCELLED;
          return await body();
        } finally {
          this.#release();
        }
      } finally {
        this.#inFlight--;
        cancellation?.settle();
        if (this.#inFlight === 0 && this.#drained.length > 0) {
          for (const resolve of this.#drained.splice(0)) resolve();
        }
      }
    };
    return run();
  }

  #acquire(cancellation: WriteCancellation | undefined): Promise<boolean> {
    if (!this.#running) {
      this.#running = true;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        done: false,
        resume: () => {
          waiter.done = true;
          resolve(true);
        },
      };
      this.#waiters.push(waiter);
      cancellation?.onCancel(() => {
        if (waiter.done) return;
        waiter.done = true;
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
        resolve(false);
      });
    });
  }

  #release(): void {
    const next = this.#waiters.shift();
    if (next === undefined) this.#running = false;
    else next.resume();
  }
}

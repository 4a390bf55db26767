/**
 * Call admission of the shell: a gate in front of the one serial write lane, not a second lane.
 * At most `ADMISSION_CAP` calls are in flight (preparing, queued or running) and the next one is
 * refused with `queue_full` before anything runs. Reads run `READ_CONCURRENCY` at a time (nothing
 * else bounds them). Mutations, external effects and the App's entry point are only admitted and
 * counted here: their FIFO lane is the write coordinator's, at the authority, which runs them one
 * at a time (in a delegating process they go straight on to the authority). See docs/decisions.md
 * D-095.
 * A call whose signal aborts before it starts leaves without running.
 */
import { ADMISSION_CAP, READ_CONCURRENCY } from "./constants.js";

/** Which queue a call uses: `read` waits for a read slot; `write` is only admitted. */
export type AdmissionClass = "read" | "write";

/** Why a call did not run. */
export type AdmissionRefusal = { refused: "queue_full" } | { refused: "cancelled" };

/** True when `outcome` (what {@link Admission.admit} resolved to) is its refusal, not the call's answer. */
export function isAdmissionRefusal(outcome: unknown): outcome is AdmissionRefusal {
  const refused = (outcome as { refused?: unknown } | null)?.refused;
  return refused === "queue_full" || refused === "cancelled";
}

interface Waiter {
  start: () => void;
  cancel: () => void;
}

/** Aggregate counters of the gate (no IDs). The write lane's own counts are the coordinator's. */
export interface AdmissionCounts {
  /** Admitted calls not yet settled (preparing, queued or running), reads and writes. */
  inFlight: number;
  readsRunning: number;
  readsQueued: number;
  /** Running reads whose call was cancelled: they stop at their next checkpoint, holding the slot until then. */
  readsCancelledRunning: number;
  /** Admitted mutation and external calls not yet settled (confirming, queued in the lane or running). */
  writesAdmitted: number;
  admissionCap: number;
}

/** The admission gate shared by every transport of one process. */
export class Admission {
  readonly cap: number;
  readonly readLimit: number;
  #inFlight = 0;
  #writesAdmitted = 0;
  #readsRunning = 0;
  #readsCancelledRunning = 0;
  readonly #readQueue: Waiter[] = [];

  constructor(limits: { cap?: number; reads?: number } = {}) {
    this.cap = limits.cap ?? ADMISSION_CAP;
    this.readLimit = limits.reads ?? READ_CONCURRENCY;
  }

  /**
   * Admits a call synchronously (or refuses it with `queue_full`), then runs `prepare` at once
   * (counted in flight: confirmation dialogs wait here) and `run` — for a read once a read slot is
   * free, for a write at once (the coordinator's lane orders it). `prepare` may answer
   * `{ stop: value }` to finish without running. Resolves with the value, or with a refusal when the
   * cap was hit or `signal` aborted before `run` started.
   */
  async admit<P, T>(
    lane: AdmissionClass,
    signal: AbortSignal | undefined,
    prepare: () => Promise<{ stop: T } | { go: P }>,
    run: (prepared: P) => Promise<T>,
  ): Promise<T | AdmissionRefusal> {
    if (this.#inFlight >= this.cap) return { refused: "queue_full" };
    this.#inFlight += 1;
    if (lane === "write") this.#writesAdmitted += 1;
    try {
      const step = await prepare();
      if ("stop" in step) return step.stop;
      const prepared = step.go;
      if (signal?.aborted) return { refused: "cancelled" };
      if (lane === "write") return await run(prepared);
      const started = await this.#enterRead(signal);
      if (!started) return { refused: "cancelled" };
      // Cancelled while running, a read keeps its slot until it settles; /health counts it.
      let cancelled = false;
      const onAbort = () => {
        cancelled = true;
        this.#readsCancelledRunning += 1;
      };
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
      try {
        return await run(prepared);
      } finally {
        signal?.removeEventListener("abort", onAbort);
        if (cancelled) this.#readsCancelledRunning -= 1;
        this.#leaveRead();
      }
    } finally {
      this.#inFlight -= 1;
      if (lane === "write") this.#writesAdmitted -= 1;
    }
  }

  /** Current counts (no IDs). */
  counts(): AdmissionCounts {
    return {
      inFlight: this.#inFlight,
      readsRunning: this.#readsRunning,
      readsQueued: this.#readQueue.length,
      readsCancelledRunning: this.#readsCancelledRunning,
      writesAdmitted: this.#writesAdmitted,
      admissionCap: this.cap,
    };
  }

  #enterRead(signal: AbortSignal | undefined): Promise<boolean> {
    if (this.#readsRunning < this.readLimit && this.#readQueue.length === 0) {
      this.#readsRunning += 1;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          this.#readsRunning += 1;
          resolve(true);
        },
        cancel: () => resolve(false),
      };
      const onAbort = () => {
        const i = this.#readQueue.indexOf(waiter);
        if (i >= 0) {
          this.#readQueue.splice(i, 1);
          waiter.cancel();
        }
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#readQueue.push(waiter);
    });
  }

  #leaveRead(): void {
    this.#readsRunning -= 1;
    this.#readQueue.shift()?.start();
  }
}

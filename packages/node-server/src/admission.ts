/**
 * Call admission of the shell: reads run `READ_CONCURRENCY` at a time; mutations and external
 * effects share one FIFO lane (`WRITE_LANE_CONCURRENCY`); at most `ADMISSION_CAP` calls are in
 * flight (queued, preparing or running) and the next one is refused with `queue_full` before
 * anything runs. A queued call whose signal aborts leaves the queue without running.
 */
import { ADMISSION_CAP, READ_CONCURRENCY, WRITE_LANE_CONCURRENCY } from "./constants.js";

/** Which queue a call uses. */
export type AdmissionClass = "read" | "write";

/** Why a call did not run. */
export type AdmissionRefusal = { refused: "queue_full" } | { refused: "cancelled" };

interface Waiter {
  start: () => void;
  cancel: () => void;
}

class Lane {
  running = 0;
  readonly queue: Waiter[] = [];
  constructor(readonly limit: number) {}
}

/** Aggregate counters for `/health`. */
export interface AdmissionCounts {
  inFlight: number;
  readsRunning: number;
  readsQueued: number;
  writesRunning: number;
  writesQueued: number;
  admissionCap: number;
}

/** The admission gate shared by every transport of one process. */
export class Admission {
  readonly cap: number;
  #inFlight = 0;
  readonly #lanes: Record<AdmissionClass, Lane>;

  constructor(limits: { cap?: number; reads?: number; writes?: number } = {}) {
    this.cap = limits.cap ?? ADMISSION_CAP;
    this.#lanes = {
      read: new Lane(limits.reads ?? READ_CONCURRENCY),
      write: new Lane(limits.writes ?? WRITE_LANE_CONCURRENCY),
    };
  }

  /**
   * Admits a call synchronously (or refuses it with `queue_full`), then runs `prepare` at once
   * (counted in flight, outside the lane: confirmation dialogs wait here) and `run` when its lane
   * has room. `prepare` may answer `{ stop: value }` to finish without entering the lane. Resolves
   * with the value, or with a refusal when the cap was hit or `signal` aborted before `run` started.
   */
  async admit<P, T>(
    lane: AdmissionClass,
    signal: AbortSignal | undefined,
    prepare: () => Promise<{ stop: T } | { go: P }>,
    run: (prepared: P) => Promise<T>,
  ): Promise<T | AdmissionRefusal> {
    if (this.#inFlight >= this.cap) return { refused: "queue_full" };
    this.#inFlight += 1;
    try {
      const step = await prepare();
      if ("stop" in step) return step.stop;
      const prepared = step.go;
      if (signal?.aborted) return { refused: "cancelled" };
      const l = this.#lanes[lane];
      const started = await this.#enter(l, signal);
      if (!started) return { refused: "cancelled" };
      try {
        return await run(prepared);
      } finally {
        this.#leave(l);
      }
    } finally {
      this.#inFlight -= 1;
    }
  }

  /** Current counts (no IDs). */
  counts(): AdmissionCounts {
    return {
      inFlight: this.#inFlight,
      readsRunning: this.#lanes.read.running,
      readsQueued: this.#lanes.read.queue.length,
      writesRunning: this.#lanes.write.running,
      writesQueued: this.#lanes.write.queue.length,
      admissionCap: this.cap,
    };
  }

  #enter(l: Lane, signal: AbortSignal | undefined): Promise<boolean> {
    if (l.running < l.limit && l.queue.length === 0) {
      l.running += 1;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          l.running += 1;
          resolve(true);
        },
        cancel: () => resolve(false),
      };
      const onAbort = () => {
        const i = l.queue.indexOf(waiter);
        if (i >= 0) {
          l.queue.splice(i, 1);
          waiter.cancel();
        }
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      l.queue.push(waiter);
    });
  }

  #leave(l: Lane): void {
    l.running -= 1;
    const next = l.queue.shift();
    next?.start();
  }
}

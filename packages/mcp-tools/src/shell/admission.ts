/**
 * The shell's entry gates: call admission (`Admission`) and the shutdown drain (`DrainGate`).
 *
 * Call admission: a gate in front of the one serial write lane, not a second lane.
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

// The shell's shutdown drain (SIGTERM/SIGINT on the Node authority). From `drain()` on, the
// gateway refuses new mutation and external calls with `write_coordinator_unavailable`
// (`draining`) before anything runs or anybody is asked to confirm, and the calls already admitted
// get a grace period to settle. When the grace ends, every call still pending has its signal
// aborted (a call not yet past the coordinator's commit barrier never starts its write afterwards)
// and is then answered at once by its cut-off, which can see what the abort achieved: the gateway
// answers `write_coordinator_unavailable` when the cancellation was accepted (nothing ran) and
// `outcome_unknown` when the call was already past the barrier.
// Time is not read here: the caller hands `drain` the promise that ends the grace.
//

/** What a tracked call gets from the gate. */
export interface DrainTicket {
  /** Aborted when the grace ends before the call settled, just before its cut-off is asked. */
  readonly signal: AbortSignal;
}

/** How a drain ended. */
export interface DrainResult {
  /** Everything settled before the grace ended. */
  readonly settled: boolean;
  /** Calls answered by the cut-off instead of by themselves. */
  readonly cutOff: number;
}

interface Entry {
  cut(): void;
}

/** One per process; shared by every transport's gateway. */
export class DrainGate {
  #draining = false;
  readonly #pending = new Set<Entry>();
  #idle: Array<() => void> = [];

  /** `drain()` was called: new write-class calls must be refused. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Tracked calls not yet settled. */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Runs one write-class call under the gate. Resolves with its own answer, or, if the grace ends
   * first, at once with `cutOff()`, asked right after the ticket's signal aborted (the call itself
   * keeps running unobserved). `run` must not reject.
   */
  track<T>(run: (ticket: DrainTicket) => Promise<T>, cutOff: () => T): Promise<T> {
    const controller = new AbortController();
    let answerCut: (value: T) => void = () => undefined;
    const cut = new Promise<T>((resolve) => {
      answerCut = resolve;
    });
    const entry: Entry = {
      cut: () => {
        controller.abort(new Error("the server shut down before this call settled"));
        answerCut(cutOff());
      },
    };
    this.#pending.add(entry);
    const own = run({ signal: controller.signal }).finally(() => this.#settled(entry));
    return Promise.race([own, cut]);
  }

  /**
   * Starts draining (idempotent in effect) and resolves once every tracked call and `alsoAwait`
   * settled, or when `graceEnds` resolves — then each call still pending is answered by its
   * cut-off and counted.
   */
  async drain(graceEnds: Promise<void>, alsoAwait?: Promise<unknown>): Promise<DrainResult> {
    this.#draining = true;
    const idle =
      this.#pending.size === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => this.#idle.push(resolve));
    const settled = Promise.all([idle, alsoAwait]).then(() => "settled" as const);
    const which = await Promise.race([settled, graceEnds.then(() => "grace" as const)]);
    if (which === "settled") return { settled: true, cutOff: 0 };
    const left = [...this.#pending];
    this.#pending.clear();
    for (const entry of left) entry.cut();
    return { settled: false, cutOff: left.length };
  }

  #settled(entry: Entry): void {
    if (!this.#pending.delete(entry)) return;
    if (this.#pending.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }
}

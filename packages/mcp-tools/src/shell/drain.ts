/**
 * The shell's shutdown drain (SIGTERM/SIGINT on the Node authority). From `drain()` on, the
 * gateway refuses new mutation and external calls with `write_coordinator_unavailable`
 * (`draining`) before anything runs or anybody is asked to confirm, and the calls already admitted
 * get a grace period to settle. When the grace ends, every call still pending has its signal
 * aborted (a call not yet past the coordinator's commit barrier never starts its write afterwards)
 * and is then answered at once by its cut-off, which can see what the abort achieved: the gateway
 * answers `write_coordinator_unavailable` when the cancellation was accepted (nothing ran) and
 * `outcome_unknown` when the call was already past the barrier.
 * Time is not read here: the caller hands `drain` the promise that ends the grace.
 */

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

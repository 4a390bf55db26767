/**
 * The idle stop of an HTTP authority (`--idle-stop-ms`; a background authority's default): once no
 * authenticated request arrived for the idle period and nothing is in flight, it stops the way
 * SIGTERM does. Delegating stdio processes keep it awake with heartbeats while they live.
 */

/** A monotonic millisecond clock. */
export type MonotonicNow = () => number;

/** Watches activity; calls `onIdle` once, when idle for `idleMs` and not `busy()`. */
export class IdleStop {
  readonly #idleMs: number;
  readonly #busy: () => boolean;
  readonly #onIdle: () => void;
  readonly #now: MonotonicNow;
  #last: number;
  #timer: NodeJS.Timeout | undefined;
  #fired = false;

  constructor(
    idleMs: number,
    busy: () => boolean,
    onIdle: () => void,
    now: MonotonicNow = () => performance.now(),
  ) {
    this.#idleMs = idleMs;
    this.#busy = busy;
    this.#onIdle = onIdle;
    this.#now = now;
    this.#last = now();
  }

  /** Records activity (an authenticated request). */
  touch(): void {
    this.#last = this.#now();
  }

  /** Checks now: fires `onIdle` (once) when idle long enough and not busy. */
  check(): boolean {
    if (this.#fired) return true;
    if (this.#busy()) {
      // Work in flight counts as activity: the idle period starts when it ends.
      this.#last = this.#now();
      return false;
    }
    if (this.#now() - this.#last < this.#idleMs) return false;
    this.#fired = true;
    this.stop();
    this.#onIdle();
    return true;
  }

  /** Checks periodically (a quarter of the idle period, at most every 5 s); the timer never keeps the process alive. */
  start(): void {
    const every = Math.max(25, Math.min(5_000, Math.floor(this.#idleMs / 4)));
    this.#timer = setInterval(() => this.check(), every);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

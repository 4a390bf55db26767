/**
 * The legacy (2025-era) session table of every MCP shell: one sessionful transport per
 * `Mcp-Session-Id` (the Node server's `NodeStreamableHTTPServerTransport`, the kernel plugin's
 * web-standard one), closed after `LEGACY_SESSION_IDLE_MS` without a request. Time is injected.
 */
import type { Clock } from "@sisyphus/write-safety";
import { LEGACY_SESSION_IDLE_MS, MAX_LEGACY_SESSIONS } from "./constants.js";

/** What the table needs of a session: something it can close. */
export interface ClosableSession {
  close(): Promise<void>;
}

/** Sessions keyed by ID, with last-activity times and idle expiry. */
export class LegacySessionTable<S extends ClosableSession> {
  readonly #sessions = new Map<string, { session: S; lastSeenMs: number }>();
  readonly #clock: Clock;
  readonly #idleMs: number;

  constructor(clock: Clock, idleMs: number = LEGACY_SESSION_IDLE_MS) {
    this.#clock = clock;
    this.#idleMs = idleMs;
  }

  /** Number of open sessions. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Registers a session; evicts the least recently used one beyond `MAX_LEGACY_SESSIONS`. */
  add(id: string, session: S): void {
    this.#sessions.set(id, { session, lastSeenMs: this.#clock.now() });
    if (this.#sessions.size > MAX_LEGACY_SESSIONS) {
      let oldest: string | undefined;
      let oldestMs = Number.POSITIVE_INFINITY;
      for (const [key, entry] of this.#sessions) {
        if (entry.lastSeenMs < oldestMs) {
          oldestMs = entry.lastSeenMs;
          oldest = key;
        }
      }
      if (oldest !== undefined) this.#closeOne(oldest);
    }
  }

  /** Looks a session up and marks it active; `undefined` when unknown or already idle-expired. */
  touch(id: string): S | undefined {
    const entry = this.#sessions.get(id);
    if (entry === undefined) return undefined;
    const now = this.#clock.now();
    if (now - entry.lastSeenMs >= this.#idleMs) {
      this.#closeOne(id);
      return undefined;
    }
    entry.lastSeenMs = now;
    return entry.session;
  }

  /** Forgets a session without closing it (its transport already closed). */
  remove(id: string): void {
    this.#sessions.delete(id);
  }

  /** Closes every session idle for at least the idle time; returns how many. */
  sweep(): number {
    const now = this.#clock.now();
    let closed = 0;
    for (const [id, entry] of [...this.#sessions]) {
      if (now - entry.lastSeenMs >= this.#idleMs) {
        this.#closeOne(id);
        closed += 1;
      }
    }
    return closed;
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(all.map((e) => e.session.close()));
  }

  #closeOne(id: string): void {
    const entry = this.#sessions.get(id);
    this.#sessions.delete(id);
    void entry?.session.close().catch(() => undefined);
  }
}

/** Fake timers for tests of deadlines and pauses: nothing waits in real time. */
import type { TaskTimers } from "../src/authority-link.js";

/**
 * A fake clock's timers (the kernel link's `TaskTimers`, and staging's deadline): they fire only
 * when the test advances the clock, so a test of a 2-second or 120-second deadline waits for nothing.
 */
export class FakeTimers implements TaskTimers {
  now = 0;
  /** Every timer asked for, in order: what it was and its length in milliseconds. */
  readonly asked: Array<{ kind: "deadline" | "pause"; ms: number }> = [];
  #pending: Array<{ kind: "deadline" | "pause"; at: number; fire: () => void }> = [];

  deadline(ms: number): AbortSignal {
    const controller = new AbortController();
    this.#add("deadline", ms, () => controller.abort(new Error("fake deadline")));
    return controller.signal;
  }

  pause(ms: number): Promise<void> {
    return new Promise((resolve) => this.#add("pause", ms, resolve));
  }

  /** When each pending timer of `kind` fires, on this clock. */
  pending(kind: "deadline" | "pause"): number[] {
    return this.#pending.filter((t) => t.kind === kind).map((t) => t.at);
  }

  /** Moves the clock on by `ms`, firing the timers that are due. */
  advance(ms: number): void {
    this.now += ms;
    const due = this.#pending.filter((t) => t.at <= this.now);
    this.#pending = this.#pending.filter((t) => t.at > this.now);
    for (const t of due) t.fire();
  }

  #add(kind: "deadline" | "pause", ms: number, fire: () => void): void {
    this.asked.push({ kind, ms });
    this.#pending.push({ kind, at: this.now + ms, fire });
  }
}

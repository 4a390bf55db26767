/**
 * The record of one execution's kernel writes. "Not dispatched" proves "nothing written" only
 * while it holds for every write the execution started: once any write may have reached the
 * kernel, a later failure can leave a partial state, and the answer must be `outcome_unknown`.
 * The coordinator owns one tracker per execution and hands executors only tracked write ports.
 */
import { isNotDispatched } from "./errors.js";

/** A set of kernel writes: every member is an async function that makes (at most) one kernel write. */
export type WritePort<W> = { readonly [K in keyof W]: (...args: never[]) => Promise<unknown> };

/** Counts the writes of one execution and whether each provably never left the process. */
export class WriteTracker {
  #started = 0;
  #notDispatched = 0;
  #closed = false;

  /** Writes started so far. */
  get started(): number {
    return this.#started;
  }

  /** True while every write started so far failed provably before dispatch (or none started). */
  get nothingWritten(): boolean {
    return this.#started === this.#notDispatched;
  }

  /**
   * Runs one kernel write. A write started after the execution settled is a programming error
   * (`TypeError`): its effect would escape the ledger record.
   */
  async dispatch<T>(write: () => Promise<T>): Promise<T> {
    if (this.#closed) {
      throw new TypeError("a kernel write was started after its execution settled");
    }
    this.#started++;
    try {
      return await write();
    } catch (error) {
      if (isNotDispatched(error)) this.#notDispatched++;
      throw error;
    }
  }

  /** The same port with every method routed through {@link dispatch}. */
  track<W extends WritePort<W>>(port: W): W {
    const tracked: Record<string, (...args: never[]) => Promise<unknown>> = {};
    for (const name of Object.keys(port)) {
      const write = port[name as keyof W] as (...args: never[]) => Promise<unknown>;
      tracked[name] = (...args: never[]) => this.dispatch(() => write(...args));
    }
    return Object.freeze(tracked) as W;
  }

  /** Ends the execution: later writes are refused. */
  close(): void {
    this.#closed = true;
  }
}

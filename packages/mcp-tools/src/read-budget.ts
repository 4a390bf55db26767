/**
 * The read budget (spec, "Read budgets"): every owned ordinary read action runs under at most
 * `READ_BUDGET_MAX_CALLS` kernel API calls — each retry counting as a call — and
 * `READ_BUDGET_MAX_DECODED_BYTES` bytes of answers in aggregate. Overflow answers
 * `read_budget_exceeded` even if the handler caught the kernel client's `budget_exceeded`: the
 * budget remembers it was exceeded, and the runtime asks it after the handler returned.
 * Mutations, external effects, and their probes and readbacks are never charged (a commit's
 * readback must not be cut short).
 */
import type { BudgetCall, CallBudget } from "@sisyphus/siyuan-api/kernel";

/** Kernel API calls one read action may make, retries included (spec: 128). */
export const READ_BUDGET_MAX_CALLS = 128;
/** Bytes of kernel answers one read action may receive in aggregate (spec: 8 MiB). */
export const READ_BUDGET_MAX_DECODED_BYTES = 8 * 1024 * 1024;

/** The limits of one read budget (tests use small ones). */
export interface ReadBudgetLimits {
  readonly maxCalls: number;
  readonly maxDecodedBytes: number;
}

export const READ_BUDGET_LIMITS: ReadBudgetLimits = Object.freeze({
  maxCalls: READ_BUDGET_MAX_CALLS,
  maxDecodedBytes: READ_BUDGET_MAX_DECODED_BYTES,
});

/** One read action's budget; sticky once exceeded. */
export class ReadBudget implements CallBudget {
  readonly #limits: ReadBudgetLimits;
  #calls = 0;
  #bytes = 0;
  #exceeded: "calls" | "bytes" | undefined;

  constructor(limits: ReadBudgetLimits = READ_BUDGET_LIMITS) {
    this.#limits = limits;
  }

  /** Which limit was exceeded, if any. */
  get exceeded(): "calls" | "bytes" | undefined {
    return this.#exceeded;
  }

  usage(): { calls: number; bytes: number } {
    return { calls: this.#calls, bytes: this.#bytes };
  }

  reserveCall(_call: BudgetCall): boolean {
    return this.#charge();
  }

  reserveRetry(_call: BudgetCall): boolean {
    return this.#charge();
  }

  recordBytes(call: BudgetCall & { readonly bytes: number }): boolean {
    this.#bytes += call.bytes;
    if (this.#bytes > this.#limits.maxDecodedBytes) this.#exceeded ??= "bytes";
    return this.#exceeded === undefined;
  }

  #charge(): boolean {
    if (this.#exceeded !== undefined) return false;
    if (this.#calls >= this.#limits.maxCalls) {
      this.#exceeded = "calls";
      return false;
    }
    this.#calls++;
    return true;
  }
}

/**
 * Call accounting: a per-client counter by endpoint, and an optional budget hook a caller can use
 * to cap the number of calls and the decoded bytes of read answers.
 */
import type { EndpointKind } from "./endpoints.js";

/** What a budget is asked about. */
export interface BudgetCall {
  /** URL pathname of the endpoint. */
  readonly endpoint: string;
  readonly kind: EndpointKind;
}

/**
 * A budget hook. `reserveCall` runs once per method call before anything is sent; returning false
 * makes the call fail with `budget_exceeded` (`writeDispatched: false`). `recordBytes` runs after an
 * answer arrived with its size in bytes; returning false fails a **read** with `budget_exceeded`
 * (the answer is discarded). For writes the return value is ignored: the write already happened, and
 * hiding its result would turn a known outcome into an unknown one. `reserveCall` and
 * `reserveRetry` may also throw: the call then fails with that error as is, nothing sent (the
 * tools' read checkpoint stops a cancelled read this way).
 */
export interface CallBudget {
  reserveCall(call: BudgetCall): boolean;
  recordBytes(call: BudgetCall & { readonly bytes: number }): boolean;
  /**
   * Optional: runs before each retry of a read (its second and later HTTP attempts); returning
   * false fails the read with `budget_exceeded` instead of sending the retry. A budget that counts
   * every attempt as a call (the tools' read budget) implements it; without it retries are free.
   */
  reserveRetry?(call: BudgetCall): boolean;
}

/**
 * Both budgets charged for every call (the first refusal wins; a budget that refused is not
 * charged by the other for that call).
 */
export function bothBudgets(a: CallBudget, b: CallBudget): CallBudget {
  return {
    reserveCall: (call) => a.reserveCall(call) && b.reserveCall(call),
    recordBytes: (call) => {
      const okA = a.recordBytes(call);
      const okB = b.recordBytes(call);
      return okA && okB;
    },
    reserveRetry: (call) => (a.reserveRetry?.(call) ?? true) && (b.reserveRetry?.(call) ?? true),
  };
}

/** Snapshot of a client's counters (see `SiyuanClient.stats`). */
export interface ClientStats {
  /** Method calls by endpoint pathname (one per call, whatever the retries). */
  readonly calls: Readonly<Record<string, number>>;
  /** HTTP attempts by endpoint pathname (retries included; what the kernel log should show). */
  readonly attempts: Readonly<Record<string, number>>;
  readonly totalCalls: number;
  readonly totalAttempts: number;
  /** Bytes of answer bodies received (UTF-8 length for text). */
  readonly decodedBytes: number;
}

/** A simple {@link CallBudget} with fixed limits, plus its usage. */
export interface FixedCallBudget extends CallBudget {
  usage(): { readonly calls: number; readonly bytes: number };
}

/**
 * Creates a budget that allows at most `maxCalls` method calls and `maxDecodedBytes` bytes of answers
 * (either limit may be omitted = unlimited). A read whose answer pushes the total over the byte limit
 * fails; the bytes still count.
 */
export function createCallBudget(limits: {
  readonly maxCalls?: number;
  readonly maxDecodedBytes?: number;
}): FixedCallBudget {
  let calls = 0;
  let bytes = 0;
  return {
    reserveCall(): boolean {
      if (limits.maxCalls !== undefined && calls >= limits.maxCalls) return false;
      calls++;
      return true;
    },
    recordBytes(call): boolean {
      bytes += call.bytes;
      return limits.maxDecodedBytes === undefined || bytes <= limits.maxDecodedBytes;
    },
    usage: () => ({ calls, bytes }),
  };
}

/** Mutable counters behind `SiyuanClient.stats()`. */
export class CallCounter {
  private calls: Record<string, number> = {};
  private attempts: Record<string, number> = {};
  private totalCalls = 0;
  private totalAttempts = 0;
  private bytes = 0;

  call(endpoint: string): void {
    this.calls[endpoint] = (this.calls[endpoint] ?? 0) + 1;
    this.totalCalls++;
  }
  attempt(endpoint: string): void {
    this.attempts[endpoint] = (this.attempts[endpoint] ?? 0) + 1;
    this.totalAttempts++;
  }
  received(bytes: number): void {
    this.bytes += bytes;
  }
  snapshot(): ClientStats {
    return {
      calls: { ...this.calls },
      attempts: { ...this.attempts },
      totalCalls: this.totalCalls,
      totalAttempts: this.totalAttempts,
      decodedBytes: this.bytes,
    };
  }
  reset(): void {
    this.calls = {};
    this.attempts = {};
    this.totalCalls = 0;
    this.totalAttempts = 0;
    this.bytes = 0;
  }
}

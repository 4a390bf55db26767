/**
 * The recorded history of a run: every call's invocation and completion (ok / fail / unknown)
 * with timestamps, every application the kernel saw (a tap on the write endpoint plus the direct
 * external edits), and the nemesis events. Plain data, so the checker is a pure function of it.
 */
import { performance } from "node:perf_hooks";

export type Outcome = "ok" | "fail" | "unknown";

/** One call by one process. */
export interface Call {
  id: number;
  /** `agent-<n>`, `external` or `nemesis-<kind>`. */
  process: string;
  kind: "preflight" | "commit" | "external" | "nemesis";
  /** The write's unique marker (commits and external edits). */
  marker?: string;
  /** The target block. */
  block?: string;
  requestId?: string;
  invokeAt: number;
  completeAt?: number;
  outcome?: Outcome;
  /** The answer's `status` (committed, no_change, …) or error code, or the exception text. */
  detail?: string;
}

/** A write the kernel received (tap) or an external edit applied to the tree. */
export interface Application {
  marker: string;
  block: string;
  at: number;
  source: "kernel" | "external";
}

export interface History {
  seed: number;
  calls: Call[];
  applications: Application[];
}

/** The target as it is after the run (the queue flushed) and what the request log counted. */
export interface FinalState {
  /** Kramdown of every target block. */
  blocks: Record<string, string>;
  /** Write requests to the write endpoint that reached the handler (request log). */
  kernelWritesLogged: number;
}

/** Error codes that mean "this call did not execute" (the spec's failure table, minus the uncertain ones). */
const UNCERTAIN_CODES = new Set(["outcome_unknown", "readback_mismatch"]);

/** The outcome of a tool result (or of the exception the client threw instead). */
export function classify(result: unknown, thrown: boolean): { outcome: Outcome; detail: string } {
  if (thrown) return { outcome: "unknown", detail: `exception: ${String(result).slice(0, 120)}` };
  const r = result as { isError?: boolean; structuredContent?: Record<string, unknown> };
  const s = r.structuredContent ?? {};
  const err = s["error"] as { code?: string } | undefined;
  if (r.isError || err) {
    const code = err?.code ?? "error";
    return { outcome: UNCERTAIN_CODES.has(code) ? "unknown" : "fail", detail: code };
  }
  return { outcome: "ok", detail: String(s["status"] ?? "ok") };
}

export const MARKER_PATTERN = /m\d+x\d+/g;

/** The markers in a piece of content. */
export function markersIn(text: string): string[] {
  return text.match(MARKER_PATTERN) ?? [];
}

/** Appends calls and applications as they happen. */
export class Recorder {
  readonly history: History;
  private readonly t0 = performance.now();

  constructor(seed: number) {
    this.history = { seed, calls: [], applications: [] };
  }

  now(): number {
    return Math.round((performance.now() - this.t0) * 1000) / 1000;
  }

  invoke(call: Omit<Call, "id" | "invokeAt">): Call {
    const c: Call = { ...call, id: this.history.calls.length + 1, invokeAt: this.now() };
    this.history.calls.push(c);
    return c;
  }

  complete(call: Call, outcome: Outcome, detail: string): void {
    call.completeAt = this.now();
    call.outcome = outcome;
    call.detail = detail;
  }

  applied(marker: string, block: string, source: Application["source"]): void {
    this.history.applications.push({ marker, block, at: this.now(), source });
  }

  /** Runs `fn` as a call and records its classified outcome; never throws. */
  async call(
    call: Omit<Call, "id" | "invokeAt">,
    fn: () => Promise<unknown>,
  ): Promise<{ call: Call; result: unknown }> {
    const c = this.invoke(call);
    try {
      const result = await fn();
      const { outcome, detail } = classify(result, false);
      this.complete(c, outcome, detail);
      return { call: c, result };
    } catch (e) {
      const { outcome, detail } = classify(e, true);
      this.complete(c, outcome, detail);
      return { call: c, result: undefined };
    }
  }
}

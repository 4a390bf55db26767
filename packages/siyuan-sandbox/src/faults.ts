/** Fault injection: faults armed per endpoint and per call count. */
import { CORRUPTION_MARKER } from "./constants.js";

/**
 * Fault kinds:
 * - `refuse`: the socket is destroyed before the body is read and before anything is applied
 *   (the client sees a reset after sending: per endpoint, the path is only known once the
 *   request arrives). For a refusal at connect time (ECONNREFUSED, nothing dispatched) use
 *   `control.refuseConnections(true)`;
 * - `delay`: wait `delayMs` before handling (nothing else changes);
 * - `hold`: like `delay`, but the call waits (holding the path's lock) until
 *   `control.releaseHeld()`, however long that takes: a test that needs "the write is held" waits
 *   for `control.held()` to count it and releases it when its race is set up, instead of guessing
 *   a delay long enough;
 * - `http5xx`: answer `status` (default 500) before applying anything;
 * - `resetAfterApply`: handle the call, flush the queue so the write is applied, then destroy the
 *   socket without answering;
 * - `silentDrop`: answer as usual (code 0, the transaction) but apply nothing;
 * - `corrupt`: alter the written content before applying (default: append a marker to strings);
 * - `holdQueue`: hold the write queue from this call on, until `control.releaseQueue()`.
 */
export type FaultKind =
  | "refuse"
  | "delay"
  | "hold"
  | "http5xx"
  | "resetAfterApply"
  | "silentDrop"
  | "corrupt"
  | "holdQueue";

/** What to arm. */
export interface FaultSpec {
  /** Exact URL path (e.g. `/api/block/updateBlock`), or `*` for every path. */
  endpoint: string;
  kind: FaultKind;
  /** Matching calls let through before the fault fires (default 0: the next call). */
  skip?: number;
  /** Calls the fault hits once it fires (default 1); `"always"` until disarmed. */
  times?: number | "always";
  /** For `delay` (ms). */
  delayMs?: number;
  /** For `http5xx` (default 500). */
  status?: number;
  /** For `corrupt`: custom body transform (in-process only). */
  corrupt?: (body: Record<string, unknown>) => Record<string, unknown>;
}

/** An armed fault and its counters. */
export interface ArmedFault extends FaultSpec {
  id: string;
  /** Matching calls seen since arming. */
  seen: number;
  /** Calls it has hit. */
  fired: number;
}

const CORRUPTIBLE = new Set(["data", "markdown", "md", "title", "name"]);

const corruptAttrs = (attrs: unknown): unknown => {
  if (!attrs || typeof attrs !== "object") return attrs;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attrs))
    out[k] = typeof v === "string" ? v + CORRUPTION_MARKER : v;
  return out;
};

/** The default corruption: appends CORRUPTION_MARKER to written strings and attribute values. */
export function defaultCorrupt(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  for (const [k, v] of Object.entries(body)) {
    if (CORRUPTIBLE.has(k) && typeof v === "string") out[k] = v + CORRUPTION_MARKER;
  }
  if ("attrs" in body) out.attrs = corruptAttrs(body.attrs);
  if (Array.isArray(body.blocks)) {
    out.blocks = body.blocks.map((e) => (e && typeof e === "object" ? defaultCorrupt(e) : e));
  }
  if (Array.isArray(body.blockAttrs)) {
    out.blockAttrs = body.blockAttrs.map((e) =>
      e && typeof e === "object"
        ? { ...e, attrs: corruptAttrs((e as { attrs?: unknown }).attrs) }
        : e,
    );
  }
  return out;
}

/** The set of armed faults, and the calls a `hold` fault holds. */
export class FaultBook {
  private readonly armed: ArmedFault[] = [];
  private readonly waiting: Array<() => void> = [];
  private next = 0;

  /** Resolves when {@link releaseHeld} runs; counted by {@link heldCount} meanwhile. */
  hold(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Calls a `hold` fault holds now. */
  heldCount(): number {
    return this.waiting.length;
  }

  /** Lets every held call go on; returns how many there were. */
  releaseHeld(): number {
    const released = this.waiting.splice(0);
    for (const go of released) go();
    return released.length;
  }

  /** Arms a fault; returns its id. */
  arm(spec: FaultSpec): string {
    const id = `fault-${++this.next}`;
    this.armed.push({ ...spec, id, seen: 0, fired: 0 });
    return id;
  }

  /** Disarms one fault. */
  disarm(id: string): void {
    const i = this.armed.findIndex((f) => f.id === id);
    if (i >= 0) this.armed.splice(i, 1);
  }

  /** Disarms all. */
  clear(): void {
    this.armed.length = 0;
  }

  /** Snapshot of the armed faults with their counters. */
  list(): ArmedFault[] {
    return this.armed.map((f) => ({ ...f }));
  }

  /** Counts a call to `path` and returns the faults that hit it. */
  take(path: string): ArmedFault[] {
    const hits: ArmedFault[] = [];
    for (const f of this.armed) {
      if (f.endpoint !== "*" && f.endpoint !== path) continue;
      f.seen++;
      const times = f.times ?? 1;
      if (f.seen > (f.skip ?? 0) && (times === "always" || f.fired < times)) {
        f.fired++;
        hits.push(f);
      }
    }
    return hits;
  }
}

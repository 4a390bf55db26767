/**
 * The one `/health` body of every authority endpoint: the Node authority's, the kernel plugin's and
 * the kernel-front Node server's. Flat aggregate numbers and booleans (no IDs, tokens or content),
 * each field meaning one thing wherever it appears. SDK-free: the Node shell answers `/health`
 * before its MCP half loads.
 */
import type { ReadBudgetCounts } from "../runtime.js";
import type { AdmissionCounts } from "./admission.js";

/** The write lane's counts, from the coordinator that owns it (`WriteCoordinator.health()`). */
export interface WriteLaneCounts {
  readonly running: number;
  readonly queued: number;
  readonly leases: number;
  readonly ledgerEntries: number;
  readonly reservations: number;
}

/** What {@link authorityHealth} reads. */
export interface AuthorityHealthInput {
  /** Who runs this endpoint's writes: its own coordinator (`node-http`) or the kernel plugin. */
  readonly authority: "node-http" | "kernel";
  /** Strict Safe Writes in force for this process's life. */
  readonly strict: boolean;
  /** New write-class calls are refused (the shutdown drain, or the coordinator's `drain()`). */
  readonly draining: boolean;
  /** The gateway's admission gate (`Admission.counts()`). */
  readonly admission: AdmissionCounts;
  /** The coordinator's lane; absent in a kernel-front Node server, which has none. */
  readonly lane?: WriteLaneCounts;
  /** Open legacy (2025) sessions (0 before the endpoint loaded). */
  readonly legacySessions: number;
  /** The tool runtime's read-budget counters (zeros before the endpoint loaded). */
  readonly readBudget?: ReadBudgetCounts;
  /** Counters only one runtime has (the kernel's tasks, staging, streams and host probe). */
  readonly more?: Readonly<Record<string, number | boolean>>;
}

/** The `/health` body. */
export interface AuthorityHealth {
  readonly [field: string]: number | boolean | string;
}

/**
 * Builds the `/health` body. Its fields, the same at every endpoint:
 * - `ok`; `authority: "kernel"` when the kernel plugin runs the writes (absent at the Node
 *   authority, whose body is numbers and booleans only); `strict`; `draining`.
 * - The admission gate (spec: "capped at 128 in-flight calls including preparation"): `inFlight`
 *   (calls admitted and not settled, reads and writes, confirmation included), `admissionCap`,
 *   `readsRunning`, `readsQueued`, `readsCancelledRunning`, `writesAdmitted`. `callsInFlight` is
 *   `inFlight` under the kernel plugin's earlier name.
 * - The coordinator's FIFO lane, where there is one: `writesRunning`, `writesQueued` (`running`
 *   and `queued` under the kernel plugin's earlier names), `leases`, `ledgerEntries`,
 *   `reservations`.
 * - `legacySessions`, `readBudgetReads`, `readBudgetExceededCalls`, `readBudgetExceededBytes`.
 * - Then `more`: counters of one runtime only.
 */
export function authorityHealth(input: AuthorityHealthInput): AuthorityHealth {
  const a = input.admission;
  const lane = input.lane;
  return {
    ok: true,
    ...(input.authority === "kernel" ? { authority: "kernel" } : {}),
    strict: input.strict,
    draining: input.draining,
    inFlight: a.inFlight,
    callsInFlight: a.inFlight,
    admissionCap: a.admissionCap,
    readsRunning: a.readsRunning,
    readsQueued: a.readsQueued,
    readsCancelledRunning: a.readsCancelledRunning,
    writesAdmitted: a.writesAdmitted,
    ...(lane === undefined
      ? {}
      : {
          writesRunning: lane.running,
          writesQueued: lane.queued,
          running: lane.running,
          queued: lane.queued,
          leases: lane.leases,
          ledgerEntries: lane.ledgerEntries,
          reservations: lane.reservations,
        }),
    legacySessions: input.legacySessions,
    readBudgetReads: input.readBudget?.reads ?? 0,
    readBudgetExceededCalls: input.readBudget?.exceededCalls ?? 0,
    readBudgetExceededBytes: input.readBudget?.exceededBytes ?? 0,
    ...input.more,
  };
}

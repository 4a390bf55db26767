/**
 * The idempotency ledger: one record per request ID, written through a durable
 * {@link LedgerStore}. States: `issued` (preflight) → `executing` (durable before dispatch) →
 * `committed` (only after readback) | `unknown` | `failed_before_execute`. Records hold
 * identifiers, digests and small receipts, never note bodies or binary payloads.
 */
import type { StateDigest } from "@sisyphus/core-hash";
import type { Clock } from "./clock.js";
import { LEDGER_RETENTION_MS } from "./constants.js";
import type { PreconditionKind } from "./policy.js";
import type { LeaseScope } from "./scope.js";

/**
 * Ledger states of a request ID.
 * - `issued`: preflight issued it; it may start executing while `now < requestIdExpiresAt`.
 * - `executing`: written durably before the kernel write was dispatched. A record left here (a
 *   crash) means the outcome is unknown; it is never executed again, except that a resumable
 *   creation (hooks `resumable`) continues from its recorded progress (see `recordResuming`).
 * - `committed`: readback confirmed the result (`committed` or `no_change`); replays return the receipt.
 * - `unknown`: the write may have happened (failure after dispatch, readback mismatch); a
 *   resumable creation may continue from here too.
 * - `failed_before_execute`: the executor proved the write was never dispatched; the same request
 *   ID and arguments may execute again while `now < requestIdExpiresAt`.
 */
export type LedgerState =
  | "issued"
  | "executing"
  | "committed"
  | "unknown"
  | "failed_before_execute";

/**
 * The tool receipt field holding other complete digests a tool reports (e.g. a database's relation
 * pre/postimage): the ledger keeps them complete, each answer names them by their alias in the
 * shared pool, under the field's own name (`{digests: {relationPreimageHash: "sha256:v1:…"}}` is
 * answered `relationPreimageHash: "abcd"`). Values that are not digests are dropped.
 */
export const RECEIPT_DIGESTS = "digests";

/** Small JSON receipt data (IDs, counts, flags). Never note bodies. */
export type ToolReceipt = Record<string, unknown>;

/** The result a `committed` record keeps for replay. Digests are complete. */
export interface StoredResult {
  status: "committed" | "no_change";
  previousDigest?: StateDigest;
  resultDigest: StateDigest;
  /** The tool's small receipt, if it fit {@link LEDGER_RECEIPT_MAX_CHARS}. */
  toolReceipt?: ToolReceipt;
  /** Set when the tool receipt was too large to keep (the live answer omitted it too). */
  receiptOmitted?: true;
}

/** Multi-stage creations: what is known before the final readback (e.g. AV IDs reserved before dispatch). */
export interface CreationProgress {
  /** IDs the creation will use, reserved before dispatch. */
  reservedIds: string[];
  /** Stage names confirmed so far, in order. */
  confirmedStages: string[];
  /** The complete small creation receipt, once known (replayed with the result). */
  receipt?: ToolReceipt;
}

/** One ledger record. JSON-serialisable; the store keeps exactly these fields. */
export interface LedgerEntry {
  requestId: string;
  tool: string;
  action: string;
  /** Scope key (tool + action + argument digest + target IDs). */
  scopeKey: StateDigest;
  argsDigest: StateDigest;
  /** Sorted, de-duplicated. */
  targetIds: string[];
  precondition: PreconditionKind;
  state: LedgerState;
  /** Process epoch that issued the request ID. */
  epoch: string;
  issuedAt: number;
  /** First execution must start while `now < requestIdExpiresAt`. */
  requestIdExpiresAt: number;
  /** When the first `executing` record was written; retention counts from here. */
  executingAt?: number;
  updatedAt: number;
  /** Complete digest probed right before execution (precondition actions). */
  beforeDigest?: StateDigest;
  /** `committed` only. */
  result?: StoredResult;
  /** `unknown` / `failed_before_execute`: verdict and a short reason. */
  verdict?: "outcome_unknown" | "readback_mismatch" | "committed" | "no_change";
  reason?: string;
  /** Complete digest read back, when one was read. */
  resultDigest?: StateDigest;
  creation?: CreationProgress;
}

/**
 * What a ledger needs of every record at open: its request ID and deadlines (see
 * {@link LedgerStore.loadKeys}). A {@link LedgerEntry} is one.
 */
export interface LedgerKey {
  readonly requestId: string;
  readonly requestIdExpiresAt: number;
  readonly executingAt?: number | undefined;
}

/**
 * Durable port for the ledger. `put` upserts by `requestId` and resolves only once the record is
 * durable (a store may make several concurrent puts durable together: group commit). `delete`
 * removes records past their deadline (retention) and need not be durable when it resolves: a
 * deletion lost in a crash is repeated after the next load, which drops such records anyway, so a
 * store may let it ride on the next put's sync. A single authority writes a store; the contract
 * tests in `@sisyphus/write-safety/testing` check the observable part.
 */
export interface LedgerStore {
  /** Every record, any order. */
  loadAll(): Promise<readonly LedgerEntry[]>;
  /**
   * Optional, together with `read` (a store offers both or neither): the key of every record,
   * any order, without reading the records. A ledger over such a store opens from the keys and
   * reads a record the first time it is looked up, so opening a store of a million records (a
   * week at 100 writes a minute) does not parse them all. The keys are read-only for the caller.
   */
  loadKeys?(): Promise<readonly LedgerKey[]>;
  /**
   * The record of `requestId`, `undefined` if the store has none. Synchronous, because
   * `Ledger.get` is. Throws (fail closed) when the record cannot be read or fails its check.
   */
  read?(requestId: string): LedgerEntry | undefined;
  put(entry: LedgerEntry): Promise<void>;
  delete(requestIds: readonly string[]): Promise<void>;
}

/** The JSON text shared by {@link MemoryLedgerStore} instances opened over the same backing. */
export type MemoryLedgerBacking = Map<string, string>;

/**
 * In-memory {@link LedgerStore} for tests and benchmarks. Records are stored as JSON text, so a
 * caller mutating an object after `put` cannot change the stored record. `reopen()` gives a fresh
 * store over the same records (a simulated restart). It offers `loadKeys` and `read`, so a ledger
 * over it runs as over the Node authority's file store (records read on lookup).
 */
export class MemoryLedgerStore implements LedgerStore {
  readonly #backing: MemoryLedgerBacking;
  constructor(backing?: MemoryLedgerBacking) {
    this.#backing = backing ?? new Map();
  }
  /** Records held. */
  get size(): number {
    return this.#backing.size;
  }
  /** A new store over the same records, as after a process restart. */
  reopen(): MemoryLedgerStore {
    return new MemoryLedgerStore(this.#backing);
  }
  async loadAll(): Promise<readonly LedgerEntry[]> {
    return [...this.#backing.values()].map((text) => JSON.parse(text) as LedgerEntry);
  }
  async loadKeys(): Promise<readonly LedgerKey[]> {
    return (await this.loadAll()).map(({ requestId, requestIdExpiresAt, executingAt }) => ({
      requestId,
      requestIdExpiresAt,
      executingAt,
    }));
  }
  read(requestId: string): LedgerEntry | undefined {
    const text = this.#backing.get(requestId);
    return text === undefined ? undefined : (JSON.parse(text) as LedgerEntry);
  }
  async put(entry: LedgerEntry): Promise<void> {
    this.#backing.set(entry.requestId, JSON.stringify(entry));
  }
  async delete(requestIds: readonly string[]): Promise<void> {
    for (const id of requestIds) this.#backing.delete(id);
  }
}

/** Options of {@link Ledger.open}. */
export interface LedgerOptions {
  store: LedgerStore;
  clock: Clock;
  /** Default {@link LEDGER_RETENTION_MS}. */
  retentionMs?: number;
}

/** Input of {@link Ledger.recordIssued}. */
export interface IssuedRecord {
  requestId: string;
  scope: LeaseScope;
  precondition: PreconditionKind;
  epoch: string;
  issuedAt: number;
  requestIdExpiresAt: number;
}

/** True when an entry can no longer matter: an `issued` ID past its deadline, or any executed record past retention. */
function expiredAt(entry: LedgerKey, retentionMs: number): number {
  return entry.executingAt === undefined
    ? entry.requestIdExpiresAt
    : entry.executingAt + retentionMs;
}

/** True for a loaded record, false for a key whose record is still in the store. */
function isEntry(value: LedgerEntry | LedgerKey): value is LedgerEntry {
  return (value as LedgerEntry).state !== undefined;
}

/** The key of a record (what the ledger keeps of a settled record over a store that can `read`). */
function keyOf(entry: LedgerEntry): LedgerKey {
  return {
    requestId: entry.requestId,
    requestIdExpiresAt: entry.requestIdExpiresAt,
    executingAt: entry.executingAt,
  };
}

/** Deep-freeze a record: the ledger hands out and stores the same immutable objects, no copies. */
function freeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) freeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

/**
 * Write-through ledger over a {@link LedgerStore}: each `record*` awaits the store and only then
 * changes the in-memory view, so a failed write leaves the previous state in force (callers fail
 * closed before dispatch, and report `outcome_unknown` after). Illegal transitions throw `TypeError`
 * (programming errors). Entries past their deadline (`issued`: `requestIdExpiresAt`; executed:
 * `executingAt + LEDGER_RETENTION_MS`) disappear from `get` at once and are deleted from the store
 * by {@link Ledger.prune}.
 *
 * Over a store that offers `loadKeys` and `read`, the ledger holds only the key of a record loaded
 * at open, or of a `committed` one, and reads the record from the store when it is looked up
 * (then keeps it): opening is not a parse of every record, and a week of committed records costs
 * memory for their keys only.
 */
export class Ledger {
  readonly retentionMs: number;
  readonly #store: LedgerStore;
  readonly #clock: Clock;
  /** Request ID → its record, or only its key while the record is left in the store. */
  readonly #entries = new Map<string, LedgerEntry | LedgerKey>();
  /** The store offers `loadKeys` and `read`. */
  readonly #lazy: boolean;
  /** Pending store deletions (entries already gone from memory). */
  #toDelete: string[] = [];
  /**
   * Two FIFO queues of (deadline, request ID): deadlines of `issued` records (requestIdExpiresAt)
   * and of executed records (executingAt + retention). Within each queue deadlines are
   * non-decreasing while the clock is, so pruning only looks at the heads.
   */
  readonly #queues: [ExpiryQueue, ExpiryQueue] = [
    { deadlines: [], ids: [], head: 0 },
    { deadlines: [], ids: [], head: 0 },
  ];

  private constructor(store: LedgerStore, clock: Clock, retentionMs: number) {
    this.#store = store;
    this.#clock = clock;
    this.retentionMs = retentionMs;
    this.#lazy = store.loadKeys !== undefined && store.read !== undefined;
  }

  /** Load every record from the store; throws what the store throws (callers map it to `write_coordinator_unavailable`). */
  static async open(options: LedgerOptions): Promise<Ledger> {
    const ledger = new Ledger(
      options.store,
      options.clock,
      options.retentionMs ?? LEDGER_RETENTION_MS,
    );
    const { store } = options;
    const records: Array<LedgerEntry | LedgerKey> = [
      ...(ledger.#lazy && store.loadKeys ? await store.loadKeys() : await store.loadAll()),
    ];
    const now = options.clock.now();
    const deadlines = records.map((r) => expiredAt(r, ledger.retentionMs));
    // A store returns records in about the order they were written, so a sort is rarely needed.
    const order = records.map((_, i) => i);
    if (!deadlines.every((d, i) => i === 0 || (deadlines[i - 1] as number) <= d)) {
      order.sort((a, b) => (deadlines[a] as number) - (deadlines[b] as number));
    }
    for (const i of order) {
      const record = records[i] as LedgerEntry | LedgerKey;
      if (now >= (deadlines[i] as number)) ledger.#toDelete.push(record.requestId);
      else {
        ledger.#entries.set(record.requestId, isEntry(record) ? freeze(record) : record);
        ledger.#enqueue(record);
      }
    }
    return ledger;
  }

  /** Live records (after pruning). */
  get size(): number {
    this.#pruneMemory();
    return this.#entries.size;
  }

  /** The request IDs of every record held, live or not yet pruned. */
  requestIds(): IterableIterator<string> {
    return this.#entries.keys();
  }

  /**
   * The live record of `requestId` (deeply frozen), or `undefined` (never issued here, or past its
   * deadline). Throws what the store's `read` throws for a record it cannot read (fail closed).
   */
  get(requestId: string): Readonly<LedgerEntry> | undefined {
    this.#pruneMemory();
    return this.#lookup(requestId);
  }

  /** Record a freshly issued request ID bound to its scope. */
  async recordIssued(record: IssuedRecord): Promise<LedgerEntry> {
    if (this.#entries.has(record.requestId)) {
      throw new TypeError(`request ID ${record.requestId} already has a ledger record`);
    }
    const entry: LedgerEntry = {
      requestId: record.requestId,
      tool: record.scope.tool,
      action: record.scope.action,
      scopeKey: record.scope.key,
      argsDigest: record.scope.argsDigest,
      targetIds: [...record.scope.targetIds],
      precondition: record.precondition,
      state: "issued",
      epoch: record.epoch,
      issuedAt: record.issuedAt,
      requestIdExpiresAt: record.requestIdExpiresAt,
      updatedAt: this.#clock.now(),
    };
    return this.#write(entry, true);
  }

  /**
   * `issued` | `failed_before_execute` → `executing`, durably, before dispatch. Creation progress
   * of a failed attempt is dropped: it wrote nothing, so the new execution reserves afresh.
   */
  async recordExecuting(
    requestId: string,
    before: { beforeDigest?: StateDigest } = {},
  ): Promise<LedgerEntry> {
    const entry = this.#require(requestId, ["issued", "failed_before_execute"]);
    const now = this.#clock.now();
    const next: LedgerEntry = { ...entry, state: "executing", updatedAt: now };
    delete next.creation;
    const firstExecution = next.executingAt === undefined;
    if (firstExecution) next.executingAt = now;
    if (before.beforeDigest !== undefined) next.beforeDigest = before.beforeDigest;
    else delete next.beforeDigest;
    return this.#write(next, firstExecution);
  }

  /** `executing` → `committed` with the result kept for replay. */
  async recordCommitted(requestId: string, result: StoredResult): Promise<LedgerEntry> {
    const entry = this.#require(requestId, ["executing"]);
    const next: LedgerEntry = {
      ...entry,
      state: "committed",
      updatedAt: this.#clock.now(),
      result,
      verdict: result.status,
      resultDigest: result.resultDigest,
    };
    return this.#write(next, false);
  }

  /**
   * `executing` | `unknown` → `executing` again: a resumable creation continues from its recorded
   * progress. The first `executingAt` (retention), the before digest and the creation progress
   * stay; the previous verdict goes.
   */
  async recordResuming(requestId: string): Promise<LedgerEntry> {
    const entry = this.#require(requestId, ["executing", "unknown"]);
    const next: LedgerEntry = { ...entry, state: "executing", updatedAt: this.#clock.now() };
    delete next.verdict;
    delete next.reason;
    delete next.resultDigest;
    return this.#write(next, false);
  }

  /** `executing` → `unknown`: the write may have happened. */
  async recordUnknown(
    requestId: string,
    info: {
      verdict: "outcome_unknown" | "readback_mismatch";
      reason: string;
      resultDigest?: StateDigest;
    },
  ): Promise<LedgerEntry> {
    const entry = this.#require(requestId, ["executing"]);
    const next: LedgerEntry = {
      ...entry,
      state: "unknown",
      updatedAt: this.#clock.now(),
      verdict: info.verdict,
      reason: info.reason,
    };
    if (info.resultDigest !== undefined) next.resultDigest = info.resultDigest;
    return this.#write(next, false);
  }

  /** `executing` → `failed_before_execute`: the executor proved nothing was dispatched. */
  async recordFailedBeforeExecute(requestId: string, reason: string): Promise<LedgerEntry> {
    const entry = this.#require(requestId, ["executing"]);
    const next: LedgerEntry = {
      ...entry,
      state: "failed_before_execute",
      updatedAt: this.#clock.now(),
      reason,
    };
    return this.#write(next, false);
  }

  /**
   * While `executing`: durably merge creation progress (reserved IDs, a newly confirmed stage, the
   * complete creation receipt), so a crash or lost response can be reconciled from the ledger.
   */
  async recordCreationProgress(
    requestId: string,
    progress: { reservedIds?: readonly string[]; confirmedStage?: string; receipt?: ToolReceipt },
  ): Promise<LedgerEntry> {
    const entry = this.#require(requestId, ["executing"]);
    const prev = entry.creation ?? { reservedIds: [], confirmedStages: [] };
    const creation: CreationProgress = {
      reservedIds: [...new Set([...prev.reservedIds, ...(progress.reservedIds ?? [])])],
      confirmedStages:
        progress.confirmedStage === undefined ||
        prev.confirmedStages.includes(progress.confirmedStage)
          ? [...prev.confirmedStages]
          : [...prev.confirmedStages, progress.confirmedStage],
    };
    const receipt = progress.receipt ?? prev.receipt;
    if (receipt !== undefined) creation.receipt = receipt;
    return this.#write({ ...entry, creation, updatedAt: this.#clock.now() }, false);
  }

  /**
   * Delete records past their deadline from the store. Returns how many were deleted; a store
   * failure is swallowed (the records are already inert and are retried on the next prune or load).
   */
  async prune(): Promise<number> {
    this.#pruneMemory();
    if (this.#toDelete.length === 0) return 0;
    const batch = this.#toDelete;
    this.#toDelete = [];
    try {
      await this.#store.delete(batch);
      return batch.length;
    } catch {
      this.#toDelete.push(...batch);
      return 0;
    }
  }

  #require(requestId: string, states: readonly LedgerState[]): LedgerEntry {
    this.#pruneMemory();
    const entry = this.#lookup(requestId);
    if (entry === undefined || !states.includes(entry.state)) {
      throw new TypeError(
        `ledger: ${requestId} is ${entry?.state ?? "absent"}, expected ${states.join(" | ")}`,
      );
    }
    return entry;
  }

  /** The record of a live key, read from the store the first time (and kept). */
  #lookup(requestId: string): LedgerEntry | undefined {
    const value = this.#entries.get(requestId);
    if (value === undefined || isEntry(value)) return value;
    const entry = this.#store.read?.(requestId);
    if (entry?.requestId !== requestId) {
      throw new Error(`ledger store lost the record of ${requestId}`);
    }
    this.#entries.set(requestId, freeze(entry));
    return entry;
  }

  async #write(entry: LedgerEntry, deadlineChanged: boolean): Promise<LedgerEntry> {
    freeze(entry);
    await this.#store.put(entry);
    // A committed record is settled: over a store that can read it back, keep only its key.
    this.#entries.set(
      entry.requestId,
      this.#lazy && entry.state === "committed" ? keyOf(entry) : entry,
    );
    if (deadlineChanged) this.#enqueue(entry);
    return entry;
  }

  #enqueue(entry: LedgerKey): void {
    const queue = this.#queues[entry.executingAt === undefined ? 0 : 1];
    queue.deadlines.push(expiredAt(entry, this.retentionMs));
    queue.ids.push(entry.requestId);
  }

  #pruneMemory(): void {
    const now = this.#clock.now();
    for (const queue of this.#queues) {
      while (queue.head < queue.ids.length) {
        if (now < (queue.deadlines[queue.head] as number)) break;
        const requestId = queue.ids[queue.head] as string;
        queue.head++;
        const entry = this.#entries.get(requestId);
        if (entry !== undefined && now >= expiredAt(entry, this.retentionMs)) {
          this.#entries.delete(requestId);
          this.#toDelete.push(requestId);
        }
      }
      if (queue.head > EXPIRY_QUEUE_COMPACT_MIN_HEAD && queue.head * 2 > queue.ids.length) {
        queue.deadlines = queue.deadlines.slice(queue.head);
        queue.ids = queue.ids.slice(queue.head);
        queue.head = 0;
      }
    }
  }
}

/**
 * Consumed entries an expiry queue keeps before it is compacted (and only when they are more than
 * half of it), so pruning stays amortised O(1) per entry.
 */
const EXPIRY_QUEUE_COMPACT_MIN_HEAD = 1024;

/** Parallel arrays (no object per entry: a week's ledger holds a million). */
interface ExpiryQueue {
  deadlines: number[];
  ids: string[];
  head: number;
}

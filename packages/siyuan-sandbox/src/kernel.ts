/**
 * Kernel state: the workspace, the asynchronous write queue (drained every flush interval),
 * the lagging SQL index, and persistence. HTTP handlers and the external writer use this.
 */
import type { IdIssuer } from "./clock.js";
import type { FileStore } from "./file-store.js";
import { saveWorkspace } from "./persist.js";
import type { SqlIndex } from "./sql-index.js";
import { Workspace } from "./workspace.js";

/** A block transaction waiting in the queue. */
export interface QueuedTransaction {
  seq: number;
  endpoint: string;
  /** IDs of blocks this transaction creates (known to writes before it is applied). */
  createdIds: string[];
  apply: () => void;
}

/** A queued transaction that failed when applied (the caller had already got code 0). */
export interface TransactionFailure {
  seq: number;
  endpoint: string;
  message: string;
}

/** A toast pushed to the (absent) UI: pushMsg, pushErrMsg, or an async transaction failure. */
export interface PushedMessage {
  id: string;
  msg: string;
  timeout: number;
  error: boolean;
}

/** The sandbox kernel's state. */
export class Kernel {
  readonly ws: Workspace;
  /** Toasts pushed so far (oldest first). */
  readonly messages: PushedMessage[] = [];
  private readonly queue: QueuedTransaction[] = [];
  private readonly pendingIds = new Set<string>();
  private readonly failures: TransactionFailure[] = [];
  private readonly waiters: Array<() => void> = [];
  private held = false;
  private seq = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly ids: IdIssuer,
    readonly sql: SqlIndex,
    readonly files: FileStore,
    readonly dataDir: string | null,
  ) {
    this.ws = new Workspace(ids);
    this.ws.reserved = (id) => this.pendingIds.has(id);
  }

  /** Starts the background loop. */
  start(intervalMs: number): void {
    this.timer = setInterval(() => this.tick(), intervalMs);
    this.timer.unref();
  }

  /** Stops the loop, applies what is queued (unless held) and persists. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.held = false;
    this.tick();
  }

  /** Queues a transaction; returns its sequence number. */
  enqueue(endpoint: string, createdIds: string[], apply: () => void): number {
    const seq = ++this.seq;
    for (const id of createdIds) this.pendingIds.add(id);
    this.queue.push({ seq, endpoint, createdIds, apply });
    return seq;
  }

  /** True when the block exists in the tree or will be created by a queued transaction. */
  knows(id: string): boolean {
    return this.pendingIds.has(id) || this.ws.locate(id) !== null;
  }

  /** True when `id` is only known from a queued transaction. */
  isPending(id: string): boolean {
    return this.pendingIds.has(id);
  }

  /** Queued transactions not yet applied. */
  pendingCount(): number {
    return this.queue.length;
  }

  /** Asynchronous failures so far (oldest first). */
  transactionFailures(): TransactionFailure[] {
    return [...this.failures];
  }

  /** One loop iteration: apply the queue, update the SQL index, persist. Nothing while held. */
  tick(): void {
    if (this.held) return;
    while (this.queue.length > 0) {
      const tx = this.queue.shift()!;
      try {
        tx.apply();
      } catch (e) {
        const message = `Transaction failed: ${e instanceof Error ? e.message : String(e)}`;
        this.failures.push({ seq: tx.seq, endpoint: tx.endpoint, message });
        this.messages.push({ id: this.ids.shortId(), msg: message, timeout: 0, error: true });
      } finally {
        for (const id of tx.createdIds) this.pendingIds.delete(id);
      }
    }
    this.sql.sync(this.ws);
    if (this.dataDir) saveWorkspace(this.dataDir, this.ws);
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until the queue is applied and the index is current (blocks while the queue is held). */
  async flush(): Promise<void> {
    if (!this.held) {
      this.tick();
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Holds the queue: transactions and index updates wait until release. */
  hold(): void {
    this.held = true;
  }

  /** Releases a held queue and applies it at once. */
  release(): void {
    this.held = false;
    this.tick();
  }

  /** True while held. */
  isHeld(): boolean {
    return this.held;
  }
}

/** The control surface for tests: request log, counters, faults, queue control, external writer. */
import type { SqlValue } from "sql.js";
import type { Block } from "./block.js";
import { SandboxError } from "./errors.js";
import type { ArmedFault, FaultBook, FaultSpec } from "./faults.js";
import { type AvControl, avControl } from "./handlers-av.js";
import { setRepoKey } from "./handlers-repo.js";
import type { Kernel, PushedMessage, TransactionFailure } from "./kernel.js";
import { renderKramdown } from "./render.js";
import type { RequestLog, RequestLogEntry } from "./server.js";
import type { InsertAnchor } from "./workspace.js";
import type { BoxConf } from "./workspace-index.js";

/**
 * Changes made "from outside", as the SiYuan UI or another plugin would: applied to the
 * tree at once (no queue), visible to the next read; the SQL index follows on the next
 * flush. Failures throw SandboxError `kernel_error` (details.kernelCode/msg as the kernel).
 */
export interface ExternalWriter {
  /** Replaces a block's content and IAL (like updateBlock; `updated` = now). */
  updateBlock(id: string, markdown: string): void;
  /** Inserts Markdown at an anchor; returns the new top-level block IDs. */
  insertBlock(markdown: string, anchor: InsertAnchor): string[];
  /** Appends Markdown as the last children of a container; returns the new IDs. */
  appendBlock(parentID: string, markdown: string): string[];
  deleteBlock(id: string): void;
  /** Merges attributes (null or "" deletes), like setBlockAttrs. */
  setBlockAttrs(id: string, attrs: Record<string, string | null>): void;
  /** Creates a document at an hpath (parents created as needed); returns its ID. */
  createDoc(notebook: string, hpath: string, markdown: string): string;
  renameDoc(id: string, title: string): void;
  removeDoc(id: string): void;
  /** Moves a document under another (toParentId) or to a notebook root (null). */
  moveDoc(id: string, toNotebook: string, toParentId: string | null): void;
  /** Rewrites the custom order of siblings (like changeSort, by IDs). */
  changeSort(notebook: string, orderedDocIds: string[]): void;
  createNotebook(name: string): string;
  renameNotebook(id: string, name: string): void;
  removeNotebook(id: string): void;
  setNotebookClosed(id: string, closed: boolean): void;
  /** Merges into the notebook conf. */
  setNotebookConf(id: string, patch: Partial<BoxConf>): void;
}

/** What tests (and the `/__sandbox/*` route) can do to a running sandbox. */
export interface SandboxControl extends AvControl {
  /** Request log, oldest first (at most REQUEST_LOG_MAX_ENTRIES). */
  log(): RequestLogEntry[];
  /** Requests per exact path (including failed and faulted ones). */
  counts(): Record<string, number>;
  /** Requests to one path. */
  count(path: string): number;
  /** Clears log and counters. */
  resetLog(): void;
  /** Arms a fault; returns its id. */
  armFault(spec: FaultSpec): string;
  disarmFault(id: string): void;
  clearFaults(): void;
  /** Armed faults with their counters. */
  faults(): ArmedFault[];
  /** Calls a `hold` fault holds now (each holds its path's lock). */
  held(): number;
  /** Lets every call a `hold` fault holds go on; returns how many there were. */
  releaseHeld(): number;
  /**
   * Stops (true) or resumes (false) accepting TCP connections on the sandbox port, so new
   * connections fail with ECONNREFUSED; open connections are destroyed. `forMs` resumes
   * automatically after that many ms.
   */
  refuseConnections(on: boolean, forMs?: number): Promise<void>;
  /** Holds the write queue (transactions and the SQL index wait). */
  holdQueue(): void;
  /** Releases the queue and applies it. */
  releaseQueue(): void;
  /** Applies the queue and updates the index now (waits while held). */
  flush(): Promise<void>;
  /** Queued transactions not applied yet. */
  pendingTransactions(): number;
  /** Async transaction failures (the callers got code 0). */
  transactionFailures(): TransactionFailure[];
  /** Toasts pushed (pushMsg, pushErrMsg, transaction failures). */
  messages(): PushedMessage[];
  /** Changes from outside. */
  external: ExternalWriter;
  /** Current kramdown of a block straight from the tree, or null. */
  kramdown(id: string): string | null;
  /** Current attributes of a block straight from the tree, or null. */
  attrs(id: string): Record<string, string> | null;
  /** Runs SQL on the index as it is now (no LIMIT added). */
  sql(stmt: string): Record<string, SqlValue>[];
  /**
   * Gives the workspace a data repo key, as a person does in SiYuan's settings (a fresh sandbox has
   * none, like a fresh SiYuan), with its "[Init]" snapshot of the data as they are. Tests only.
   */
  setRepoKey(): void;
  /**
   * Marks this sandbox as one that tests history.snapshot_*: its requests to the three repo
   * paths those actions call are left out of the suite's `/api/repo/*` audit.
   */
  expectSnapshotActions(): void;
  /** Whether `expectSnapshotActions()` marked this sandbox (a test's restart carries it over). */
  expectsSnapshotActions(): boolean;
}

const idsOf = (blocks: Block[]): string[] => blocks.map((b) => b.id);

/** Builds the control object. */
export function createControl(
  kernel: Kernel,
  faults: FaultBook,
  log: RequestLog,
  listener: { refuse(on: boolean): Promise<void> },
): SandboxControl {
  const ws = kernel.ws;
  const external: ExternalWriter = {
    updateBlock: (id, markdown) =>
      ws.updateBlock(id, ws.blocksFromMarkdown(markdown), ws.ids.timestamp()),
    insertBlock: (markdown, anchor) => {
      const blocks = ws.blocksFromMarkdown(markdown);
      ws.insertBlocks(blocks, anchor);
      return idsOf(blocks);
    },
    appendBlock: (parentID, markdown) => {
      const blocks = ws.blocksFromMarkdown(markdown);
      ws.addChildren(blocks, parentID, "last");
      return idsOf(blocks);
    },
    deleteBlock: (id) => ws.deleteBlock(id),
    setBlockAttrs: (id, attrs) => ws.setAttrs(id, attrs),
    createDoc: (notebook, hpath, markdown) => ws.createDocWithMd(notebook, hpath, markdown).id,
    renameDoc: (id, title) => ws.renameDoc(id, title),
    removeDoc: (id) => ws.removeDoc(id),
    moveDoc: (id, toNotebook, toParentId) => ws.moveDoc(id, toNotebook, toParentId),
    changeSort: (notebook, ids) =>
      ws.changeSort(
        notebook,
        ids.map((id) => ws.docPath(id)),
      ),
    createNotebook: (name) => ws.createNotebook(name).id,
    renameNotebook: (id, name) => ws.renameNotebook(id, name),
    removeNotebook: (id) => ws.removeNotebook(id),
    setNotebookClosed: (id, closed) => ws.setClosed(id, closed),
    setNotebookConf: (id, patch) => {
      const b = ws.notebooks.get(id);
      if (!b) throw new SandboxError("not_found", `notebook [${id}] not found`, { id });
      Object.assign(b.conf, patch);
      ws.dirtyBoxes.add(id);
      ws.version++;
    },
  };
  return {
    log: () => log.list(),
    counts: () => log.counts(),
    count: (path) => log.counts()[path] ?? 0,
    resetLog: () => log.reset(),
    armFault: (spec) => faults.arm(spec),
    disarmFault: (id) => faults.disarm(id),
    clearFaults: () => faults.clear(),
    faults: () => faults.list(),
    held: () => faults.heldCount(),
    releaseHeld: () => faults.releaseHeld(),
    refuseConnections: async (on, forMs) => {
      await listener.refuse(on);
      if (on && forMs !== undefined) {
        setTimeout(() => void listener.refuse(false), forMs).unref();
      }
    },
    holdQueue: () => kernel.hold(),
    releaseQueue: () => kernel.release(),
    flush: () => kernel.flush(),
    pendingTransactions: () => kernel.pendingCount(),
    transactionFailures: () => kernel.transactionFailures(),
    messages: () => [...kernel.messages],
    external,
    kramdown: (id) => {
      const loc = ws.locate(id);
      return loc ? renderKramdown(loc.block) : null;
    },
    attrs: (id) => {
      const loc = ws.locate(id);
      return loc ? { ...loc.block.attrs } : null;
    },
    sql: (stmt) => kernel.sql.query(stmt),
    setRepoKey: () => setRepoKey(kernel),
    expectSnapshotActions: () => {
      log.snapshotActionsExpected = true;
    },
    expectsSnapshotActions: () => log.snapshotActionsExpected,
    ...avControl(kernel),
  };
}

/**
 * Serves the `/__sandbox/*` control route: `log`, `counts`, `reset-log`, `faults`,
 * `faults/arm` (body = FaultSpec without `corrupt`), `faults/disarm` {id}, `faults/clear`, `faults/held`, `faults/release-held`, `connections/refuse` {forMs},
 * `queue/hold`, `queue/release`, `flush`, `transaction-failures`, `messages`, `process-cpu`,
 * `av` {id}, `av-log` {id?}, `repo-key` (setRepoKey),
 * `external/<method>` {args: [...]}.
 */
export function controlRouteHandler(control: SandboxControl) {
  return async (path: string, body: Record<string, unknown>): Promise<unknown> => {
    const op = path.slice("/__sandbox/".length);
    switch (op) {
      case "log":
        return control.log();
      case "counts":
        return control.counts();
      case "reset-log":
        control.resetLog();
        return null;
      case "faults":
        return control.faults();
      case "faults/arm":
        return { id: control.armFault(body as unknown as FaultSpec) };
      case "faults/disarm":
        control.disarmFault(String(body.id));
        return null;
      case "faults/clear":
        control.clearFaults();
        return null;
      case "faults/held":
        return { held: control.held() };
      case "faults/release-held":
        return { released: control.releaseHeld() };
      case "connections/refuse":
        await control.refuseConnections(
          true,
          typeof body.forMs === "number" ? body.forMs : undefined,
        );
        return null;
      case "queue/hold":
        control.holdQueue();
        return null;
      case "queue/release":
        control.releaseQueue();
        return null;
      case "flush":
        await control.flush();
        return null;
      case "transaction-failures":
        return control.transactionFailures();
      case "av":
        return control.av(String(body.id));
      case "av-log":
        return control.avLog(typeof body.id === "string" ? body.id : undefined);
      case "messages":
        return control.messages();
      case "repo-key":
        control.setRepoKey();
        return null;
      case "process-cpu": {
        const u = process.cpuUsage();
        return { userMicros: u.user, systemMicros: u.system };
      }
    }
    if (op.startsWith("external/")) {
      const method = op.slice("external/".length) as keyof ExternalWriter;
      const fn = control.external[method] as ((...a: unknown[]) => unknown) | undefined;
      if (typeof fn !== "function")
        throw new SandboxError("invalid_argument", `unknown external method [${method}]`);
      const args = Array.isArray(body.args) ? body.args : [];
      return fn(...args) ?? null;
    }
    throw new SandboxError("invalid_argument", `unknown control operation [${op}]`);
  };
}

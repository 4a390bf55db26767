/**
 * The fault-kinds matrix's environment: the tools-level matrix's kernel + tools + coordinator
 * (packages/mcp-tools/test/support/fault-matrix.ts), extended with what its fault kinds need — a
 * kernel that can restart over its persisted workspace on the same port, a ledger store that can
 * fail one record, and a transport hook that runs an action around the n-th kernel write.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createSiyuanClient,
  type Transport,
  type TransportRequest,
  type TransportResponse,
  undiciTransport,
} from "@sisyphus/siyuan-api";
import { type RequestLogEntry, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { type LedgerEntry, type LedgerState, MemoryLedgerStore } from "@sisyphus/write-safety";
import type { ToolResult } from "../../../mcp-tools/src/index.js";
import {
  type Env,
  isWriteEndpoint,
  MatrixTransport,
  matrixTools,
} from "../../../mcp-tools/test/support/fault-matrix.js";

/** A ledger store that throws on the next `put` of a record in a given state (once). */
export class FlakyLedgerStore extends MemoryLedgerStore {
  private failState: LedgerState | null = null;
  /** The state whose put failed, once it did. */
  failed: LedgerState | null = null;

  /** Fail the next put of a record in `state`. */
  failNext(state: LedgerState): void {
    this.failState = state;
  }

  override async put(entry: LedgerEntry): Promise<void> {
    if (this.failState !== null && entry.state === this.failState) {
      this.failed = this.failState;
      this.failState = null;
      throw new Error(`ledger store unavailable (injected on a ${entry.state} record)`);
    }
    return super.put(entry);
  }
}

/** An action run around the `write`-th kernel write (0-based) of the current phase. */
export interface WriteHook {
  readonly write: number;
  /** `before`: before the request leaves; `after`: once its answer came back, before the client sees it. */
  readonly when: "before" | "after";
  readonly run: (req: TransportRequest) => Promise<void>;
}

/** Runs one armed hook around a kernel write; counts writes per phase. */
class HookTransport implements Transport {
  readonly name = "matrix-hooks";
  private writes = 0;
  hook: WriteHook | null = null;
  fired = false;

  constructor(private readonly inner: Transport) {}

  begin(): void {
    this.writes = 0;
    this.hook = null;
    this.fired = false;
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    const n = isWriteEndpoint(req.endpoint) ? this.writes++ : -1;
    const h = this.hook !== null && !this.fired && this.hook.write === n ? this.hook : null;
    if (h !== null) this.fired = true;
    if (h?.when === "before") await h.run(req);
    const res = await this.inner.send(req);
    if (h?.when === "after") await h.run(req);
    return res;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * Another runtime the calls go through instead of the in-process tools (a delegating stdio front),
 * its kernel requests sent through this env's transport (so its hooks and records see them).
 */
export interface Front {
  call(tool: string, args: Record<string, unknown>, confirmed: boolean): Promise<ToolResult>;
  stage(fileName: string, bytes: Uint8Array): string;
  stop(): Promise<void>;
}
/** Starts (or hands out) a front whose kernel requests go through `kernel` (with `token`). */
export type FrontFactory = (kernel: Transport, token: string) => Promise<Front>;

/** Where a cell arms its one write hook, per phase (HookTransport, or the plugin host's tap). */
export interface WriteHooks {
  begin(): void;
  hook: WriteHook | null;
}

/** A ledger store whose next put of a record in a given state can be made to fail. */
export interface LedgerFaults {
  failNext(state: LedgerState): void;
  /** The state whose put failed, once it did. */
  readonly failed: LedgerState | null;
}

/** The tools-level Env plus a restartable kernel, a flaky ledger store and write hooks. */
export interface KindsEnv extends Env {
  /** The front the calls go through, when not the in-process tools. */
  readonly front?: Front;
  readonly ledger: LedgerFaults;
  readonly hooks: WriteHooks;
  /** Request-log entries of kernels stopped by `restart` since the last `resetLog`. */
  readonly logBeforeRestart: RequestLogEntry[];
  /** Sequence numbers of the log entries `external` made (not the tools' writes). */
  readonly externalSeqs: Set<number>;
  /** Stops the kernel (it applies its queue and persists) and starts it again on the same port. */
  restart(): Promise<void>;
  /** Posts a raw kernel request outside the tools (as the UI would); its envelope's `code`. */
  external(endpoint: string, body: string): Promise<number>;
  /** Reloads the authority between steps (the kernel plugin): its memory goes, its stores stay. */
  reload?(): Promise<void>;
}

const START_MS = Date.UTC(2026, 0, 1, 12, 0, 0);

/**
 * A fresh kernel (persisted on disk when `persisted`), the tools, and a plain verify client. With
 * `front`, calls go through it; its kernel requests go through this env's transport.
 */
export async function startKindsEnv(persisted: boolean, front?: FrontFactory): Promise<KindsEnv> {
  const dataDir = persisted ? mkdtempSync(join(tmpdir(), "matrix-kinds-")) : undefined;
  let generation = 0;
  let token: string | undefined;
  const boot = (port?: number) =>
    startSandbox({
      seed: "empty",
      flushIntervalMs: 5,
      // A restarted kernel's clock starts an hour later with another seed: no ID is issued twice.
      deterministic: { startMs: START_MS + generation * 3_600_000, randomSeed: generation + 1 },
      utcTimestamps: false,
      ...(token !== undefined ? { token } : {}),
      ...(dataDir ? { dataDir } : {}),
      ...(port !== undefined ? { port } : {}),
    });
  let sandbox: Sandbox = await boot();
  const port = sandbox.port;
  token = sandbox.token;
  const http = () =>
    undiciTransport({ baseUrl: sandbox.url, token: sandbox.token, timeoutMs: 5000 });
  const hooks = new HookTransport(http());
  // The recorder only uses the sandbox to refuse connections, which this matrix never asks for.
  const proxy = {
    get control() {
      return sandbox.control;
    },
  } as Sandbox;
  const transport = new MatrixTransport(hooks, proxy);
  const client = createSiyuanClient({ transport, random: () => 0.5 });
  const verify = createSiyuanClient({ transport: http() });
  const ledger = new FlakyLedgerStore();
  const tools = await matrixTools(client, ledger, "fault-kinds");
  const logBeforeRestart: RequestLogEntry[] = [];
  const externalSeqs = new Set<number>();
  const via = front ? await front(transport, sandbox.token) : undefined;
  const env: KindsEnv = {
    get sandbox() {
      return sandbox;
    },
    transport,
    verify,
    ledger,
    hooks,
    logBeforeRestart,
    externalSeqs,
    ...tools,
    ...(via ? { front: via, call: via.call.bind(via), stage: via.stage.bind(via) } : {}),
    async restart() {
      if (!dataDir) throw new Error("restart needs a persisted kernel");
      logBeforeRestart.push(...sandbox.control.log());
      // a snapshot action's scenario marked its kernel for the suite's /api/repo audit
      const marked = sandbox.control.expectsSnapshotActions();
      await sandbox.stop();
      generation++;
      sandbox = await boot(port);
      if (marked) sandbox.control.expectSnapshotActions();
    },
    async external(endpoint, body) {
      const res = await fetch(`${sandbox.url}${endpoint}`, {
        method: "POST",
        headers: { Authorization: `Token ${sandbox.token}`, "Content-Type": "application/json" },
        body,
      });
      const json = (await res.json()) as { code?: number };
      // Nothing else talks to the kernel meanwhile: the newest entry is this request's.
      const mine = sandbox.control.log().at(-1);
      if (mine?.path === endpoint) externalSeqs.add(mine.seq);
      await sandbox.control.flush();
      return json.code ?? -1;
    },
    async stop() {
      await via?.stop();
      await client.close();
      await verify.close();
      await sandbox.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return env;
}

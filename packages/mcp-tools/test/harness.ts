/**
 * Test harness: a sandbox kernel on loopback, a real client over undici, a real coordinator with
 * in-memory stores, and the tool runtime on top.
 */
import { seededRandomSource } from "@sisyphus/core-hash";
import { createSiyuanClient, type SiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import { type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import {
  createWriteCoordinator,
  MemoryLedgerStore,
  MemoryReservationStore,
  type WriteCoordinator,
} from "@sisyphus/write-safety";
import { afterAll, beforeAll } from "vitest";
import {
  createToolRuntime,
  type PermissionMap,
  type SourceReader,
  type ToolResult,
  type ToolRuntime,
} from "../src/index.js";

export interface Harness {
  readonly sandbox: Sandbox;
  readonly client: SiyuanClient;
  readonly coordinator: WriteCoordinator;
  readonly runtime: ToolRuntime;
  /** First open notebook of the demo seed. */
  readonly notebook: string;
  /** Its name. */
  readonly notebookName: string;
  permissions: PermissionMap;
  call(tool: string, args: Record<string, unknown>, confirmed?: boolean): Promise<ToolResult>;
  /** Preflight then commit; returns both answers. */
  write(
    tool: string,
    args: Record<string, unknown>,
    confirmed?: boolean,
  ): Promise<{ preflight: Record<string, unknown>; commit: ToolResult }>;
  /** Builds commit arguments from a preflight answer. */
  commitArgs(
    args: Record<string, unknown>,
    preflight: Record<string, unknown>,
  ): Record<string, unknown>;
  /** Kernel write requests received since the last `clearLog`. */
  writes(endpoint: string): number;
  /** A document `/<title>` in the notebook from Markdown, flushed: its ID and its top-level blocks' IDs. */
  doc(title: string, markdown: string): Promise<{ id: string; blocks: string[] }>;
  stop(): Promise<void>;
}

/** Options of a harness: strict mode, and the upload-source reader its runtime gets. */
export interface HarnessOptions {
  readonly strict?: boolean;
  readonly sources?: SourceReader;
  /** How often the sandbox applies its write queue by itself (default 5 ms). */
  readonly flushIntervalMs?: number;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const sandbox = await startSandbox({
    seed: "demo",
    flushIntervalMs: options.flushIntervalMs ?? 5,
  });
  const client = createSiyuanClient({
    transport: undiciTransport({ baseUrl: sandbox.url, token: sandbox.token, timeoutMs: 5000 }),
  });
  const now = 1_790_000_000_000;
  const coordinator = await createWriteCoordinator({
    clock: { now: () => now },
    random: seededRandomSource(7),
    epoch: "test-epoch",
    ledgerStore: new MemoryLedgerStore(),
    reservationStore: new MemoryReservationStore(),
    strict: options.strict ?? true,
  });
  void now;
  const notebooks = await client.notebook.lsNotebooks();
  const open = notebooks.notebooks.find((n) => !n.closed);
  const notebook = open?.id as string;
  const h: Harness = {
    sandbox,
    client,
    coordinator,
    notebook,
    notebookName: open?.name as string,
    permissions: { default: "delete" },
    runtime: undefined as unknown as ToolRuntime,
    call: (tool, args, confirmed) =>
      h.runtime.callTool(tool, args, { confirmed: confirmed ?? false }),
    commitArgs(args, preflight) {
      const out: Record<string, unknown> = { ...args, requestId: preflight["requestId"] };
      const field = preflight["preconditionField"];
      if (typeof field === "string") out[field] = preflight[field];
      return out;
    },
    async write(tool, args, confirmed) {
      const pre = await h.call(tool, { ...args, validateOnly: true }, confirmed);
      if (pre.isError)
        throw new Error(`preflight failed: ${JSON.stringify(pre.structuredContent)}`);
      const commit = await h.call(tool, h.commitArgs(args, pre.structuredContent), confirmed);
      return { preflight: pre.structuredContent, commit };
    },
    writes: (endpoint) => sandbox.control.count(endpoint),
    async doc(title, markdown) {
      const id = await client.filetree.createDocWithMd({
        notebook: h.notebook,
        path: `/${title}`,
        markdown,
      });
      await client.flush();
      const children = await client.block.getChildBlocks({ id });
      return { id, blocks: children.map((c) => c.id) };
    },
    async stop() {
      await client.close();
      await sandbox.stop();
    },
  };
  (h as { runtime: ToolRuntime }).runtime = createToolRuntime({
    client,
    coordinator,
    config: { loadPermissions: () => h.permissions },
    ...(options.sources ? { sources: options.sources } : {}),
  });
  return h;
}

/**
 * The fixture most files share: one harness, started before the file's (or the enclosing
 * `describe`'s) tests and stopped after them. The answer stands for that harness; use it inside
 * tests and hooks, not while the file is being collected.
 */
export function useHarness(options: HarnessOptions = {}): Harness {
  let started: Harness | undefined;
  beforeAll(async () => {
    started = await startHarness(options);
  });
  afterAll(async () => {
    await started?.stop();
  });
  const current = (): Harness => {
    if (started === undefined) throw new Error("the harness is used before beforeAll started it");
    return started;
  };
  return new Proxy({} as Harness, {
    get: (_target, key) => Reflect.get(current(), key),
    set: (_target, key, value) => Reflect.set(current(), key, value),
  });
}

/** The structured error code of a result, or `undefined` for a success. */
export function errorCode(r: ToolResult): string | undefined {
  return r.isError
    ? ((r.structuredContent["error"] as { code: string }).code as string)
    : undefined;
}

/**
 * The fault matrix's `Env` (mcp-tools test/support/fault-matrix.ts) on a real SiYuan kernel: what
 * the scenarios of the registry use of `env.sandbox.control` implemented through the kernel's
 * HTTP API, `env.verify` a plain client of the kernel, `env.call` one of the fronts.
 *
 * | sandbox control                  | real kernel                                                      |
 * | -------------------------------- | ---------------------------------------------------------------- |
 * | `external.createNotebook(name)`  | `/api/notebook/createNotebook` (synchronous: curl)               |
 * | `external.createDoc(nb, hp, md)` | `/api/filetree/createDocWithMd` (curl)                           |
 * | `external.setBlockAttrs(id, a)`  | `/api/attr/setBlockAttrs` (curl)                                 |
 * | `flush()`                        | `/api/sqlite/flushTransaction`                                   |
 * | `kramdown(id)`                   | `/api/block/getBlockKramdown` (curl); `""` → null                |
 * | `attrs(id)`                      | `/api/attr/getBlockAttrs` (curl); `{}` → null                    |
 * | `sql(stmt)`                      | `/api/query/sql` (curl)                                          |
 * | `av(id)`                         | `/api/file/getFile` of `data/storage/av/<id>.json` (curl)        |
 * | `avBlocks(id)`                   | `/api/av/getMirrorDatabaseBlocks` (curl), the `refID`s           |
 * | `avLog()` (sandbox-only)         | replaced: a `created` entry per file of `data/storage/av/` that  |
 * |                                  | was not there when the scenario began (the workspace is emptied  |
 * |                                  | before each scenario, so: the files the scenario made)           |
 * | `setRepoKey()`                   | `/api/repo/initRepoKey` when `conf.repo.key` is unset (this      |
 * |                                  | scratch workspace only; the product never sets one, D-321), then |
 * |                                  | waits for its "[Init]" snapshot to be listed                     |
 * | `expectSnapshotActions()`        | nothing (no suite audit here)                                    |
 */
import { createSiyuanClient, type SiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import type { ToolResult } from "../../mcp-tools/src/index.js";
import type { Env } from "../../mcp-tools/test/support/fault-matrix.js";
import type { Front } from "./fronts.js";
import { callSync, flush, getFileSync, type Kernel, postSync } from "./kernel.js";

interface DirEntry {
  readonly isDir: boolean;
  readonly name: string;
}

/** How long a new notebook's queued indexing task is given (see `createNotebook`). */
const NOTEBOOK_INDEX_WAIT_MS = 600;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Names of the database files in `data/storage/av/` now (synchronous). */
function avFiles(k: Kernel): string[] {
  const e = postSync<DirEntry[] | null>(k, "/api/file/readDir", { path: "/data/storage/av" });
  if (e.code !== 0) return [];
  return (e.data ?? [])
    .filter((d) => !d.isDir && d.name.endsWith(".json"))
    .map((d) => d.name.slice(0, -".json".length));
}

/** The part of the sandbox's control surface the scenarios use, on the real kernel. */
function control(k: Kernel, avBaseline: ReadonlySet<string>) {
  return {
    external: {
      createNotebook(name: string): string {
        const id = callSync<{ notebook: { id: string } }>(k, "/api/notebook/createNotebook", {
          name,
        }).notebook.id;
        // SiYuan 3.7.3 indexes a new notebook in a queued task (`indexBox`, run every 100 ms)
        // after answering; a document created before it ran is indexed twice (two `blocks` rows),
        // and a later move, rename and notebook removal then fail on the full-text index
        // ("database disk image is malformed") and stop the kernel. Let that task run first.
        sleepSync(NOTEBOOK_INDEX_WAIT_MS);
        return id;
      },
      createDoc(notebook: string, hpath: string, markdown: string): string {
        return callSync<string>(k, "/api/filetree/createDocWithMd", {
          notebook,
          path: hpath,
          markdown,
        });
      },
      setBlockAttrs(id: string, attrs: Record<string, string | null>): void {
        callSync(k, "/api/attr/setBlockAttrs", { id, attrs });
      },
    },
    flush: () => flush(k),
    kramdown(id: string): string | null {
      const d = callSync<{ kramdown?: string } | null>(k, "/api/block/getBlockKramdown", { id });
      const text = d?.kramdown ?? "";
      return text === "" ? null : text;
    },
    attrs(id: string): Record<string, string> | null {
      const d = callSync<Record<string, string> | null>(k, "/api/attr/getBlockAttrs", { id });
      return d === null || Object.keys(d).length === 0 ? null : d;
    },
    sql(stmt: string): Record<string, unknown>[] {
      return callSync<Record<string, unknown>[] | null>(k, "/api/query/sql", { stmt }) ?? [];
    },
    av(id: string): unknown {
      const bytes = getFileSync(k, `/data/storage/av/${id}.json`);
      return bytes === null ? null : JSON.parse(Buffer.from(bytes).toString("utf8"));
    },
    avBlocks(id: string): string[] {
      const d = callSync<{ refDefs?: Array<{ refID: string }> }>(
        k,
        "/api/av/getMirrorDatabaseBlocks",
        { avID: id },
      );
      return (d.refDefs ?? []).map((r) => r.refID);
    },
    setRepoKey(): void {
      const conf = callSync<{ conf: { repo?: { key?: string | null } } }>(
        k,
        "/api/system/getConf",
        {},
      );
      if (conf.conf.repo?.key) return;
      callSync(k, "/api/repo/initRepoKey", {});
      // SiYuan 3.7.3 adds its "[Init] Init local data repo" snapshot about two seconds later
      for (let i = 0; i < 100; i++) {
        const page = callSync<{ totalCount: number }>(k, "/api/repo/getRepoSnapshots", { page: 1 });
        if (page.totalCount > 0) return;
        sleepSync(100);
      }
      throw new Error("initRepoKey: no [Init] snapshot listed within 10 s");
    },
    expectSnapshotActions(): void {},
    avLog(): Array<{ kind: "created"; avID: string }> {
      return avFiles(k)
        .filter((id) => !avBaseline.has(id))
        .map((avID) => ({ kind: "created" as const, avID }));
    },
  };
}

/** A plain kernel client outside every front, for setup and for reading the live state. */
export function verifyClient(k: Kernel): SiyuanClient {
  return createSiyuanClient({
    transport: undiciTransport({ baseUrl: k.url, token: k.token, timeoutMs: 60_000 }),
  });
}

/**
 * An `Env` for one scenario on the real kernel (emptied before: see `emptyWorkspace`). Staged
 * files are placeholders until a call sends them; then the front turns them into its own source
 * (the plugin's staging handle, or a local file), once, so the preflight, the commit and the
 * replay send the same arguments.
 */
export function realEnv(k: Kernel, front: Front, verify: SiyuanClient): Env {
  const baseline = new Set(avFiles(k));
  const placeholders = new Map<string, { fileName: string; bytes: Uint8Array }>();
  const sources = new Map<string, Record<string, string>>();
  const withSource = async (args: Record<string, unknown>) => {
    const ref = args["uploadSource"];
    const staged = typeof ref === "string" ? placeholders.get(ref) : undefined;
    if (typeof ref !== "string" || staged === undefined) return args;
    let source = sources.get(ref);
    if (source === undefined) {
      source = await front.source(staged.fileName, staged.bytes);
      sources.set(ref, source);
    }
    const { uploadSource: _placeholder, ...rest } = args;
    return { ...rest, ...source };
  };
  const env = {
    sandbox: { control: control(k, baseline) },
    transport: undefined,
    verify,
    stage(fileName: string, bytes: Uint8Array): string {
      const ref = `real-kernel-staged-${placeholders.size + 1}`;
      placeholders.set(ref, { fileName, bytes });
      return ref;
    },
    async call(tool: string, args: Record<string, unknown>, confirmed: boolean) {
      return (await front.call(tool, await withSource(args), confirmed)) as ToolResult;
    },
    async stop() {},
  };
  return env as unknown as Env;
}

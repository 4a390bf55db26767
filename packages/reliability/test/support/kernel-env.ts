/**
 * The fault-kinds environment with the kernel plugin as the authority: a fresh sandbox kernel with
 * the built plugin (`kernel-plugin/dist/package.zip`) in its plugin host, called with the official
 * MCP client over loopback HTTP. It has the same shape as the tools-level one (support/matrix-env.ts)
 * so the same kinds and judge run on it:
 * - the plugin's kernel requests are seen through the host's client interceptor, which records them
 *   per phase (a MatrixTransport fed by the tap) and runs the cell's write hook around the n-th write;
 * - the ledger fails through the host's storage fault: the plugin's next segment `put` whose newest
 *   record is in the given state rejects, as a full or broken disk would;
 * - a kernel restart is the host's: every plugin stops (the commit in flight drains first, as
 *   `onunload` waits for it), the listener goes away, the plugins start again on their storage;
 * - `reload` reloads the plugin (its memory, leases and staging are gone; its stores stay).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  createSiyuanClient,
  type Transport,
  type TransportRequest,
  undiciTransport,
} from "@sisyphus/siyuan-api";
import {
  type PluginClientCall,
  type PluginClientInterceptor,
  type PluginHostControl,
  type Sandbox,
  startSandbox,
} from "@sisyphus/siyuan-sandbox";
import type { LedgerState } from "@sisyphus/write-safety";
import {
  PACKAGE_ZIP,
  PLUGIN_NAME,
  routeOf,
  writeSettings,
} from "../../../kernel-plugin/test/harness.js";
import type { ToolResult } from "../../../mcp-tools/src/index.js";
import { isWriteEndpoint, MatrixTransport } from "../../../mcp-tools/test/support/fault-matrix.js";
import type { KindsEnv, LedgerFaults, WriteHook, WriteHooks } from "./matrix-env.js";
import { lostAnswer, toolResult } from "./tool-results.js";

/** How long the listener stays away on a kernel restart (ms). */
const RESTART_DOWN_MS = 200;

/** The state of the newest record of a ledger segment (the line before its `#end` trailer). */
export function newestRecordState(segment: string): string | undefined {
  const lines = segment.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
  try {
    return (JSON.parse(lines.at(-1) ?? "null") as { state?: string } | null)?.state;
  } catch {
    return undefined;
  }
}

/** The plugin's ledger failing through its storage: the next segment put of a `state` record. */
class StorageLedgerFaults implements LedgerFaults {
  failed: LedgerState | null = null;
  constructor(private readonly host: PluginHostControl) {}

  failNext(state: LedgerState): void {
    this.host.failStoragePut(PLUGIN_NAME, (path, value) => {
      const hit = path.startsWith("ledger/") && newestRecordState(value) === state;
      if (hit) this.failed = state;
      return hit;
    });
  }
}

/** Answers at once: the recorder only needs `send` to note the request. */
const NOTED: Transport = {
  name: "noted",
  send: async () => ({
    status: 200,
    contentType: undefined,
    byteLength: 0,
    type: "text",
    text: "",
  }),
  close: async () => undefined,
};

/** The host's view of the plugin's kernel requests: records them and runs the armed write hook. */
class PluginTap implements WriteHooks {
  hook: WriteHook | null = null;
  private writes = 0;
  private fired = false;
  private readonly armed = new WeakMap<PluginClientCall, WriteHook>();

  constructor(private readonly recorder: MatrixTransport) {}

  begin(): void {
    this.writes = 0;
    this.hook = null;
    this.fired = false;
  }

  interceptor(): PluginClientInterceptor {
    const request = (call: PluginClientCall): TransportRequest => ({
      endpoint: call.path,
      body: { kind: "json", text: call.body ?? "[bytes]" },
      responseType: "text",
    });
    return {
      before: async (call) => {
        if (!call.path.startsWith("/api/")) return;
        void this.recorder.send(request(call));
        const n = isWriteEndpoint(call.path) ? this.writes++ : -1;
        const h = this.hook !== null && !this.fired && this.hook.write === n ? this.hook : null;
        if (h === null) return;
        this.fired = true;
        this.armed.set(call, h);
        if (h.when === "before") await h.run(request(call));
      },
      after: async (call) => {
        const h = this.armed.get(call);
        if (h?.when === "after") await h.run(request(call));
      },
    };
  }
}

/** An official MCP client on the plugin's `/mcp` that accepts every confirmation it is asked. */
async function confirmingClient(sb: Sandbox): Promise<Client> {
  const client = new Client(
    { name: "fault-kinds-kernel", version: "1.0.0" },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    },
  );
  client.setRequestHandler(
    "elicitation/create",
    async () => ({ action: "accept", content: { confirm: true } }) as never,
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(routeOf(sb, "/mcp")), {
      requestInit: { headers: { authorization: `Token ${sb.token}` } },
    }),
  );
  return client;
}

/**
 * A raw kernel POST outside the authority (as the UI would), its log entry remembered in `seqs` so
 * application counts leave it out; its envelope's `code`. The plugin is held in a hook meanwhile.
 */
async function postExternal(
  sb: Sandbox,
  seqs: Set<number>,
  endpoint: string,
  body: string,
): Promise<number> {
  const res = await fetch(`${sb.url}${endpoint}`, {
    method: "POST",
    headers: { Authorization: `Token ${sb.token}`, "Content-Type": "application/json" },
    body,
  });
  const json = (await res.json()) as { code?: number };
  const mine = sb.control
    .log()
    .filter((e) => e.path === endpoint)
    .at(-1);
  if (mine !== undefined) seqs.add(mine.seq);
  await sb.control.flush();
  return json.code ?? -1;
}

/** Stages `bytes` through the plugin's transfer route; the `uploadSource` handle. */
async function upload(sb: Sandbox, fileName: string, bytes: Uint8Array): Promise<string> {
  const res = await fetch(routeOf(sb, "/transfer/upload"), {
    method: "POST",
    headers: {
      authorization: `Token ${sb.token}`,
      "content-type": "application/octet-stream",
      "x-sisyphus-file-name": encodeURIComponent(fileName),
    },
    body: bytes,
  });
  const body = (await res.json()) as { uploadSource?: string };
  if (typeof body.uploadSource !== "string") throw new Error(`staging failed: ${res.status}`);
  return body.uploadSource;
}

/** A fresh sandbox kernel with the plugin as the write authority (deletes allowed). */
export async function startKernelEnv(): Promise<KindsEnv> {
  const sandbox = await startSandbox({
    seed: "empty",
    flushIntervalMs: 5,
    deterministic: true,
    utcTimestamps: false,
    plugins: [PACKAGE_ZIP],
  });
  await writeSettings(sandbox, { kernelEndpointEnabled: true, permissions: { default: "delete" } });
  const transport = new MatrixTransport(NOTED, sandbox);
  const tap = new PluginTap(transport);
  sandbox.plugins.interceptClient(tap.interceptor());
  const verify = createSiyuanClient({
    transport: undiciTransport({ baseUrl: sandbox.url, token: sandbox.token, timeoutMs: 5000 }),
  });
  let client = await confirmingClient(sandbox);
  /** A restart or reload under way: the next call waits for it, then reconnects. */
  let pending: Promise<void> | null = null;
  const settle = async () => {
    if (pending === null) return;
    await pending;
    pending = null;
    await client.close();
    client = await confirmingClient(sandbox);
  };
  // Placeholder handles from `stage` (synchronous in the scenarios), uploaded on first use.
  const placeholders = new Map<string, { fileName: string; bytes: Uint8Array }>();
  const uploaded = new Map<string, string>();
  const realSource = async (args: Record<string, unknown>) => {
    const ref = args["uploadSource"];
    const staged = typeof ref === "string" ? placeholders.get(ref) : undefined;
    if (typeof ref !== "string" || staged === undefined) return args;
    const key = `${ref}@${sandbox.plugins.status(PLUGIN_NAME)?.starts ?? 0}`;
    let handle = uploaded.get(key);
    if (handle === undefined) {
      handle = await upload(sandbox, staged.fileName, staged.bytes);
      uploaded.set(key, handle);
    }
    return { ...args, uploadSource: handle };
  };
  const externalSeqs = new Set<number>();
  return {
    sandbox,
    transport,
    verify,
    ledger: new StorageLedgerFaults(sandbox.plugins),
    hooks: tap,
    logBeforeRestart: [],
    externalSeqs,
    stage(fileName, bytes) {
      const ref = `kernel-staged-${placeholders.size + 1}`;
      placeholders.set(ref, { fileName, bytes });
      return ref;
    },
    async call(tool, args) {
      await settle();
      let answer: ToolResult;
      try {
        const real = await realSource(args);
        answer = toolResult(await client.callTool({ name: tool, arguments: real }));
      } catch (e) {
        answer = lostAnswer(e);
      }
      // A restart begun during the call: the state is read once the kernel is back.
      await settle();
      return answer;
    },
    async restart() {
      pending = sandbox.plugins.restartKernel(RESTART_DOWN_MS);
    },
    async reload() {
      pending = sandbox.plugins.reload(PLUGIN_NAME);
      await settle();
    },
    external: (endpoint, body) => postExternal(sandbox, externalSeqs, endpoint, body),
    async stop() {
      await pending?.catch(() => undefined);
      sandbox.plugins.interceptClient(null);
      await client.close().catch(() => undefined);
      await verify.close();
      await sandbox.stop();
    },
  };
}

/**
 * One kernel plugin's runtime: the language-level pre-check, the lifecycle (§7) and the host's
 * calls into the plugin's realm, over one of two engines (`engine.ts`): `vm` (a `node:vm` context
 * trimmed to goja's built-ins, contract §6) or `goja` (SiYuan's own engine, in a child process).
 */
import { createHash, randomUUID } from "node:crypto";
import type { HostCalls, PluginEngine, PluginEngineKind, RealmAnswer } from "./engine.js";
import { GojaEngine } from "./goja-engine.js";
import { checkLanguageLevel, type LanguageViolation } from "./language.js";
import { VmEngine } from "./vm-engine.js";

/**
 * The language-check verdict per script (by SHA-256): the check is pure, so reloads, restarts and
 * many sandboxes of a large bundle do not parse it again.
 */
const verdicts = new Map<string, LanguageViolation | null>();

function verdictOf(source: string): LanguageViolation | null {
  const key = createHash("sha256").update(source).digest("hex");
  let v = verdicts.get(key);
  if (v === undefined) {
    v = checkLanguageLevel(source);
    verdicts.set(key, v);
  }
  return v;
}

/** Plugin states as the kernel numbers them (contract §7). */
export const PluginState = {
  ready: 0,
  loading: 1,
  running: 2,
  stopping: 3,
  stopped: 4,
  error: 5,
} as const;
export type PluginStateName = keyof typeof PluginState;

/** `plugin.json` fields the host reads (contract §5). */
export interface PluginManifest {
  name: string;
  version?: string;
  displayName?: Record<string, string> | string;
  minAppVersion?: string;
  kernels?: string[];
  [k: string]: unknown;
}

/** One log line written by `console.*` or `siyuan.logger.*`. */
export interface PluginLogLine {
  level: "trace" | "debug" | "info" | "warn" | "error";
  /** As the kernel log shows it: `[plugin:<name>] …` for logger lines. */
  text: string;
}

/** What the runtime needs from the host (the "Go side"). */
export interface RuntimeServices {
  platform: string;
  /** Workspace language (`en_US`): picks `displayName[lang]`. */
  lang: string;
  i18n: string | null;
  log(line: PluginLogLine): void;
  storage: {
    get(path: string): Promise<Buffer>;
    put(path: string, value: string): Promise<void>;
    remove(path: string): Promise<void>;
    list(path: string): Promise<string>;
    watch(path: string, on: boolean): Promise<void>;
  };
  fetch(
    path: string,
    method: string,
    headersJson: string,
    kind: "string" | "arraybuffer" | "none",
    body: unknown,
  ): Promise<{ meta: string; body: Buffer }>;
  emit(topic: string, payloadJson: string): Promise<void>;
  rpcBroadcast(method: string, paramsJson: string): Promise<void>;
  resolve(kind: "secrets" | "vars", template: string): string;
  /** `require` of a module the runtime does not have (for the record). */
  requireMissed(id: string): void;
  /** The wall clock the plugin's `Date.now()` reads (the host's, which tests may step). */
  now(): number;
  /** What `now()` adds to the host's `Date.now()` (the goja engine keeps its own clock). */
  clockOffsetMs(): number;
}

const errText = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const hasMessage = (e: unknown): e is { message: unknown } =>
  typeof e === "object" && e !== null && "message" in e;
/** Message of an error from either realm. */
export const messageOf = (e: unknown): string => (hasMessage(e) ? String(e.message) : errText(e));

/** An RPC method a running plugin bound (`siyuan.rpc.bind`). */
export interface BoundRpcMethod {
  name: string;
  descriptions: string[];
}

/** An MCP tool a running plugin registered (`siyuan.mcp.registerTool`). */
export interface RegisteredTool {
  name: string;
  spec: Record<string, unknown>;
}

/** An SSE stream a plugin's `es` handler serves: what its port does, and the host's notices. */
export interface SseStream {
  /** The handler's answer (its promise settled, or its throw). */
  answer: Promise<RealmAnswer>;
  /** Calls the port's `onopen` (once the stream is open). */
  opened(): void;
  /** Calls the port's `onclose` (once the stream ended) and forgets the port. */
  closed(): void;
}

/** Which engine plugins run in unless the host is told: `SIYUAN_SANDBOX_PLUGIN_ENGINE`, else vm. */
export function defaultEngine(): PluginEngineKind {
  const v = process.env["SIYUAN_SANDBOX_PLUGIN_ENGINE"];
  if (v === undefined || v === "" || v === "vm") return "vm";
  if (v === "goja") return "goja";
  throw new Error(`SIYUAN_SANDBOX_PLUGIN_ENGINE must be vm or goja, not ${JSON.stringify(v)}`);
}

/**
 * A started (or failed) plugin runtime: the lifecycle (§7) and the host's calls into the realm,
 * over the engine the host chose. What the realm registers (RPC methods, MCP tools) is mirrored
 * here as the realm reports it, so the host can list it without calling into the engine.
 */
export class PluginRuntime {
  state: PluginStateName = "ready";
  /** Why the plugin is in `error` (compile failure, language level, throw at top level). */
  error: string | null = null;
  /** The language violation that refused the script, if any. */
  violation: LanguageViolation | null = null;
  /** RPC methods and MCP tools the realm registered (cleared when it stops). */
  rpcMethods: BoundRpcMethod[] = [];
  tools: RegisteredTool[] = [];
  private engine: PluginEngine | null = null;
  private readonly closers = new Set<() => void>();
  private readonly streams = new Map<number, { send(ev: SseEvent): void; close(): void }>();
  private nextStream = 0;

  constructor(
    readonly manifest: PluginManifest,
    private readonly source: string,
    private readonly services: RuntimeServices,
    readonly engineKind: PluginEngineKind = defaultEngine(),
    private readonly options: { languageCheck?: boolean } = {},
  ) {}

  get name(): string {
    return this.manifest.name;
  }

  private logError(text: string): void {
    this.services.log({ level: "error", text: `[plugin:${this.name}] ${text}` });
  }

  /** Registers something to close when the plugin stops (an SSE stream). */
  onStop(close: () => void): () => void {
    this.closers.add(close);
    return () => this.closers.delete(close);
  }

  /** The host side of the bridge, served from the runtime's services. */
  private hostCalls(): HostCalls {
    const s = this.services;
    return {
      call: async (op, args, bytes) => {
        const a = args as [unknown, unknown, unknown, unknown, unknown];
        switch (op) {
          case "storage.get":
            return { value: null, bytes: await s.storage.get(String(a[0])) };
          case "storage.put":
            await s.storage.put(String(a[0]), String(a[1]));
            return { value: null, bytes: null };
          case "storage.remove":
            await s.storage.remove(String(a[0]));
            return { value: null, bytes: null };
          case "storage.list":
            return { value: JSON.parse(await s.storage.list(String(a[0]))), bytes: null };
          case "storage.watch":
            await s.storage.watch(String(a[0]), a[1] === true);
            return { value: null, bytes: null };
          case "emit":
            await s.emit(String(a[0]), JSON.stringify(a[1]));
            return { value: null, bytes: null };
          case "rpc.broadcast":
            await s.rpcBroadcast(String(a[0]), JSON.stringify(a[1]));
            return { value: null, bytes: null };
          case "fetch": {
            const kind = a[3] as "string" | "arraybuffer" | "none";
            const body = kind === "string" ? String(a[4]) : kind === "arraybuffer" ? bytes : null;
            const r = await s.fetch(String(a[0]), String(a[1]), JSON.stringify(a[2]), kind, body);
            return { value: JSON.parse(r.meta), bytes: r.body };
          }
          default:
            throw new Error(`siyuan-sandbox: unknown host call ${op}`);
        }
      },
      callSync: (op, args) => {
        if (op !== "resolve") throw new Error(`siyuan-sandbox: unknown host call ${op}`);
        return s.resolve(args[0] === "secrets" ? "secrets" : "vars", String(args[1]));
      },
      note: (op, args) => {
        switch (op) {
          case "registry.rpc":
            this.rpcMethods = args[0] as BoundRpcMethod[];
            return;
          case "registry.tools":
            this.tools = args[0] as RegisteredTool[];
            return;
          case "sse.send":
            this.streams.get(Number(args[0]))?.send(args[1] as SseEvent);
            return;
          case "sse.close":
            this.streams.get(Number(args[0]))?.close();
            return;
          case "require.missed":
            s.requireMissed(String(args[0]));
            return;
        }
      },
      log: (line) => s.log(line),
      now: () => s.now(),
    };
  }

  /** Publishes `{id, type, detail}` to `siyuan.event.handler` (errors are logged by the realm). */
  publish(type: string, detail: unknown = null): void {
    if (this.engine === null) return;
    void this.engine.invoke("publish", [JSON.stringify({ id: randomUUID(), type, detail })]);
  }

  private async hook(name: "onload" | "onrunning" | "onunload"): Promise<void> {
    const r = await this.engine!.invoke("hook", [name]);
    if (r.missing) this.logError(`lifecycle.${name} is not a function`);
    else if (!r.ok) this.logError(`lifecycle.${name} failed: ${r.error}`);
  }

  /** Checks the language level, runs `kernel.js`, then onload → running → onrunning → start. */
  async start(): Promise<void> {
    this.state = "loading";
    if (this.options.languageCheck !== false) {
      this.violation = verdictOf(this.source);
      if (this.violation) {
        const v = this.violation;
        this.state = "error";
        this.error = `${this.name}/kernel.js:${v.line}:${v.column}: ${v.message}`;
        this.logError(this.error);
        return;
      }
    }
    const s = this.services;
    const dn = this.manifest.displayName;
    const displayName = typeof dn === "string" ? dn : (dn?.[s.lang] ?? dn?.default ?? this.name);
    const host = this.hostCalls();
    this.engine =
      this.engineKind === "goja"
        ? new GojaEngine(host, () => s.clockOffsetMs())
        : new VmEngine(host);
    const failed = await this.engine.load(
      {
        name: this.name,
        version: String(this.manifest.version ?? ""),
        displayName,
        platform: s.platform,
        i18n: s.i18n,
      },
      this.source,
    );
    if (failed !== null) {
      this.state = "error";
      this.error = `${this.name}/kernel.js: ${failed}`;
      this.logError(this.error);
      await this.engine.close();
      return;
    }
    await this.hook("onload");
    this.state = "running";
    await this.hook("onrunning");
    this.publish("start");
  }

  /** The host's clock offset changed (stepClock). */
  clockChanged(): void {
    this.engine?.clockChanged();
  }

  /**
   * One RPC call into a running plugin (`callRpcMethod`): array params are spread, any other
   * params value is the single argument, absent params give no argument.
   */
  callRpc(method: string, params: unknown): Promise<RealmAnswer> {
    const args = Array.isArray(params)
      ? params
      : params === undefined || params === null
        ? []
        : [params];
    return this.engine!.invoke("rpc", [method, JSON.stringify(args)]);
  }

  /** One call of a registered MCP tool's handler with the `arguments` object. */
  callTool(tool: string, args: Record<string, unknown>): Promise<RealmAnswer> {
    return this.engine!.invoke("tool", [tool, JSON.stringify(args)]);
  }

  /**
   * Calls `siyuan.server.private.http.handler` with the request (`argJson`, whose `body.data` and
   * form files' `data` are indexes into `bytes`).
   */
  http(argJson: string, bytes: Buffer[]): Promise<RealmAnswer> {
    return this.engine!.invoke("http", [argJson], bytes);
  }

  /** Calls `siyuan.server.private.es.handler` with the request and a port writing to `send`. */
  sse(
    argJson: string,
    bytes: Buffer[],
    port: { send(ev: SseEvent): void; close(): void },
  ): SseStream {
    const id = ++this.nextStream;
    this.streams.set(id, port);
    const engine = this.engine!;
    return {
      answer: engine.invoke("sse", [String(id), argJson], bytes),
      opened: () => void engine.invoke("ssePort", [String(id), "open"]),
      closed: () => {
        this.streams.delete(id);
        void engine.invoke("ssePort", [String(id), "closed"]);
      },
    };
  }

  /** stop event → stopping → onunload → RPC/MCP cleared, streams closed → engine stopped → stopped. */
  async stop(): Promise<void> {
    if (this.state === "error" || this.state === "stopped") {
      await this.engine?.close();
      return;
    }
    this.publish("stop");
    this.state = "stopping";
    await this.hook("onunload");
    this.rpcMethods = [];
    this.tools = [];
    for (const c of [...this.closers]) c();
    this.closers.clear();
    await this.engine?.close();
    this.state = "stopped";
  }
}

/** One event a plugin sends on an SSE port. */
export interface SseEvent {
  data: string;
  event: string | null;
  id: string | null;
  retry: number | null;
}

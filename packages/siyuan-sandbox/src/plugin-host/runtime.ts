/**
 * One kernel plugin's JavaScript runtime: a `node:vm` context trimmed to what goja + goja_nodejs
 * give in SiYuan 3.7.3 (contract §6), the language-level check, and the lifecycle (§7).
 */
import { createHash, randomUUID } from "node:crypto";
import { format } from "node:util";
import { createContext, Script } from "node:vm";
import { checkLanguageLevel, type LanguageViolation, regexViolation } from "./language.js";
import { PRELUDE_SOURCE, REMOVED_GLOBALS } from "./prelude.js";

/**
 * Per script (by SHA-256): its language-check verdict and V8's code cache. The same `kernel.js`
 * gets the same verdict (the check is pure) and compiles from the cache, so reloads, restarts and
 * many sandboxes of a large bundle do not parse it again.
 */
const compiled = new Map<string, { violation: LanguageViolation | null; code?: Buffer }>();

function compiledOf(source: string) {
  const key = createHash("sha256").update(source).digest("hex");
  let entry = compiled.get(key);
  if (entry === undefined) {
    entry = { violation: checkLanguageLevel(source) };
    compiled.set(key, entry);
  }
  return entry;
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
}

/** The realm-side internals the prelude returns. */
export interface RealmInternals {
  lifecycle: Record<"onload" | "onrunning" | "onunload", unknown>;
  event: { handler: unknown };
  slots: Record<"http" | "ws" | "es", { handler: unknown }>;
  rpcMethods: Map<string, { fn: unknown; descriptions: string[] }>;
  mcpTools: Map<string, unknown>;
  fromJson(s: string): unknown;
  toJson(v: unknown): string | undefined;
  dataObject(bytes: Buffer): unknown;
  ssePort(send: (eventJson: string) => void, close: () => void): Record<string, unknown>;
  isPromise(v: unknown): boolean;
  errorText(e: unknown): string;
}

const errText = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const hasMessage = (e: unknown): e is { message: unknown } =>
  typeof e === "object" && e !== null && "message" in e;
/** Message of an error from either realm. */
export const messageOf = (e: unknown): string => (hasMessage(e) ? String(e.message) : errText(e));

/** A started (or failed) plugin runtime. */
export class PluginRuntime {
  state: PluginStateName = "ready";
  /** Why the plugin is in `error` (compile failure, language level, throw at top level). */
  error: string | null = null;
  /** The language violation that refused the script, if any. */
  violation: LanguageViolation | null = null;
  internals: RealmInternals | null = null;
  private readonly timers = new Set<NodeJS.Timeout | NodeJS.Immediate>();
  private readonly closers = new Set<() => void>();

  constructor(
    readonly manifest: PluginManifest,
    private readonly source: string,
    private readonly services: RuntimeServices,
  ) {}

  get name(): string {
    return this.manifest.name;
  }

  private logError(text: string): void {
    this.services.log({ level: "error", text: `[plugin:${this.name}] ${text}` });
  }

  private timerApi(): Record<string, unknown> {
    const guard = (fn: unknown, args: unknown[], done?: () => void) => (): void => {
      done?.();
      try {
        if (typeof fn === "function") (fn as (...a: unknown[]) => unknown)(...args);
      } catch (e) {
        this.logError(`timer callback failed: ${messageOf(e)}`);
      }
    };
    const timers = this.timers;
    return {
      setTimeout: (fn: unknown, ms?: number, ...args: unknown[]) => {
        const t: NodeJS.Timeout = setTimeout(
          guard(fn, args, () => timers.delete(t)),
          Number(ms) || 0,
        );
        timers.add(t);
        return t;
      },
      setInterval: (fn: unknown, ms?: number, ...args: unknown[]) => {
        const t = setInterval(guard(fn, args), Number(ms) || 0);
        timers.add(t);
        return t;
      },
      setImmediate: (fn: unknown, ...args: unknown[]) => {
        const t: NodeJS.Immediate = setImmediate(guard(fn, args, () => timers.delete(t)));
        timers.add(t);
        return t;
      },
      clearTimeout: (t: NodeJS.Timeout) => {
        clearTimeout(t);
        timers.delete(t);
      },
      clearInterval: (t: NodeJS.Timeout) => {
        clearInterval(t);
        timers.delete(t);
      },
      clearImmediate: (t: NodeJS.Immediate) => {
        clearImmediate(t);
        timers.delete(t);
      },
    };
  }

  /** Registers something to close when the plugin stops (an SSE stream). */
  onStop(close: () => void): () => void {
    this.closers.add(close);
    return () => this.closers.delete(close);
  }

  /** Publishes `{id, type, detail}` to `siyuan.event.handler` (errors are logged). */
  publish(type: string, detail: unknown = null): void {
    const rt = this.internals;
    if (!rt || typeof rt.event.handler !== "function") return;
    try {
      const ev = rt.fromJson(JSON.stringify({ id: randomUUID(), type, detail }));
      const r = (rt.event.handler as (e: unknown) => unknown)(ev);
      if (rt.isPromise(r)) {
        (r as Promise<unknown>).then(undefined, (e: unknown) =>
          this.logError(`event handler failed: ${messageOf(e)}`),
        );
      }
    } catch (e) {
      this.logError(`event handler failed: ${messageOf(e)}`);
    }
  }

  private async hook(name: "onload" | "onrunning" | "onunload"): Promise<void> {
    const fn = this.internals?.lifecycle[name];
    if (typeof fn !== "function") {
      this.logError(`lifecycle.${name} is not a function`);
      return;
    }
    try {
      await (fn as () => unknown).call(this.internals?.lifecycle);
    } catch (e) {
      this.logError(`lifecycle.${name} failed: ${messageOf(e)}`);
    }
  }

  /** Builds the realm, checks and runs `kernel.js`, then onload → running → onrunning → start. */
  async start(): Promise<void> {
    this.state = "loading";
    const cache = compiledOf(this.source);
    this.violation = cache.violation;
    if (this.violation) {
      const v = this.violation;
      this.state = "error";
      this.error = `${this.name}/kernel.js:${v.line}:${v.column}: ${v.message}`;
      this.logError(this.error);
      return;
    }
    const context = createContext(
      {},
      { name: `plugin:${this.name}`, codeGeneration: { strings: true, wasm: false } },
    );
    const s = this.services;
    const dn = this.manifest.displayName;
    const displayName = typeof dn === "string" ? dn : (dn?.[s.lang] ?? dn?.default ?? this.name);
    const bridge = {
      removedGlobals: [...REMOVED_GLOBALS],
      regexViolation,
      decodeString: (str: string, enc: string) =>
        Buffer.from(str, enc === "base64Url" ? "base64url" : (enc as BufferEncoding)),
      encodeBytes: (u8: Uint8Array, enc: string) =>
        Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString(
          enc === "base64Url" ? "base64url" : (enc as BufferEncoding),
        ),
      decodeUtf8: (b: Buffer) => b.toString("utf8"),
      format: (args: unknown[]) => format(...args),
      log: (level: PluginLogLine["level"], text: string, fromLogger?: boolean) =>
        s.log({ level, text: fromLogger ? `[plugin:${this.name}] ${text}` : text }),
      URL,
      URLSearchParams,
      timers: this.timerApi(),
      plugin: {
        name: this.name,
        version: String(this.manifest.version ?? ""),
        displayName,
        platform: s.platform,
        i18n: s.i18n,
      },
      storage: s.storage,
      fetch: s.fetch,
      emit: s.emit,
      rpcBroadcast: s.rpcBroadcast,
      resolve: s.resolve,
      requireMissed: s.requireMissed,
    };
    const install = new Script(PRELUDE_SOURCE, {
      filename: "siyuan-sandbox/prelude.js",
    }).runInContext(context) as (b: typeof bridge) => RealmInternals;
    this.internals = install(bridge);
    // `Date.now()` reads the host's wall clock, so a test can step it as an OS clock steps.
    (
      new Script("(function (now) { Date.now = function now_() { return now(); }; })", {
        filename: "siyuan-sandbox/clock.js",
      }).runInContext(context) as (now: () => number) => void
    )(() => s.now());
    try {
      const script = new Script(this.source, {
        filename: `${this.name}/kernel.js`,
        ...(cache.code ? { cachedData: cache.code } : {}),
      });
      script.runInContext(context);
      cache.code ??= script.createCachedData();
    } catch (e) {
      this.state = "error";
      this.error = `${this.name}/kernel.js: ${hasMessage(e) && e instanceof Object ? `${(e as { name?: string }).name ?? "Error"}: ${messageOf(e)}` : messageOf(e)}`;
      this.logError(this.error);
      this.clearTimers();
      return;
    }
    await this.hook("onload");
    this.state = "running";
    await this.hook("onrunning");
    this.publish("start");
  }

  private clearTimers(): void {
    for (const t of this.timers) {
      clearTimeout(t as NodeJS.Timeout);
      clearImmediate(t as NodeJS.Immediate);
    }
    this.timers.clear();
  }

  /** stop event → stopping → onunload → RPC/MCP cleared, streams closed → timers stopped → stopped. */
  async stop(): Promise<void> {
    if (this.state === "error" || this.state === "stopped") {
      this.clearTimers();
      return;
    }
    this.publish("stop");
    this.state = "stopping";
    await this.hook("onunload");
    this.internals?.rpcMethods.clear();
    this.internals?.mcpTools.clear();
    for (const c of [...this.closers]) c();
    this.closers.clear();
    this.clearTimers();
    this.state = "stopped";
  }
}

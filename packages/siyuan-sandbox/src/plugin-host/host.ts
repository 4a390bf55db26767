/**
 * The kernel-plugin host (contract Part 2): installs plugins into `data/plugins/<name>/`, enables
 * them in `petals.json`, starts the enabled ones with a `kernels` entry, hot-reloads on a
 * `kernel.js` write, serves `/plugin/private/<name>/*` and gives plugins storage and a loopback
 * client authenticated by a plugin JWT.
 */
import { type FSWatcher, readdirSync, readFileSync, statSync, watch } from "node:fs";
import {
  Agent,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import { join, posix, relative } from "node:path";
import { KERNEL_VERSION } from "../constants.js";
import { type ArmedFault, defaultCorrupt } from "../faults.js";
import type { DirEntry, FileStore } from "../file-store.js";
import type { LoadedPluginInfo, PluginRpcOutcome, PluginServices } from "../handler-kit.js";
import { readZip } from "../zip.js";
import type { PluginEngineKind, RealmAnswer } from "./engine.js";
import { buildRequest, canonicalHeader, ResponseError, writeResponse } from "./http.js";
import { PluginJwt } from "./jwt.js";
import { callMcpTool, callRpcMethod, pluginToolJson, pluginToolName } from "./rpc-mcp.js";
import {
  defaultEngine,
  messageOf,
  type PluginLogLine,
  type PluginManifest,
  PluginRuntime,
  PluginState,
  type PluginStateName,
  type SseEvent,
} from "./runtime.js";

/** Options of the plugin host (`startSandbox({ pluginHost })`). */
export interface PluginHostOptions {
  /**
   * Serialise requests per exact plugin path as SiYuan 3.7.3 does (contract §1.4, §8.6). Default
   * true; false models a host that does not, so a plugin can be tested on both.
   */
  serialisePaths?: boolean;
  /** Backend name matched against `kernels` (default: the OS, as desktop SiYuan). */
  backend?: string;
  /** Language of `siyuan.plugin.i18n` (`i18n/<lang>.json`, default `en_US`). */
  lang?: string;
  /** Store read by `siyuan.secrets.resolve` (`{{secrets.NAME}}`). */
  secrets?: Record<string, string>;
  /** Store read by `siyuan.vars.resolve` (`{{vars.NAME}}`). */
  vars?: Record<string, string>;
  /** Also print plugin log lines to stderr (the bin does). */
  echoLogs?: boolean;
  /**
   * Watch the `kernel.js` of plugins installed from a folder and reinstall on a change, so a
   * rebuilt bundle reloads as a write into `data/plugins/<name>/` does in SiYuan (the bin does).
   */
  watchSources?: boolean;
  /**
   * The engine plugins run in: `goja` (SiYuan's own engine at the versions 3.7.3 pins, in a child
   * process; needs the package built with Go) or `vm` (a `node:vm` realm trimmed to goja's
   * built-ins). Default: `SIYUAN_SANDBOX_PLUGIN_ENGINE`, else `vm`.
   */
  engine?: PluginEngineKind;
  /**
   * Refuse a `kernel.js` that fails the language-level check before it runs (default true). False
   * hands every script to the engine, so goja itself can be asked what it does with one.
   */
  languageCheck?: boolean;
}

/** One request a plugin sends through `siyuan.client.fetch`, as a test interceptor sees it. */
export interface PluginClientCall {
  readonly plugin: string;
  readonly path: string;
  readonly method: string;
  /** A string body as sent; null for bytes or no body. */
  readonly body: string | null;
}

/**
 * A test hook around plugins' `siyuan.client.fetch` (in-process only): `before` runs before the
 * request leaves, `after` once its answer arrived and before the plugin sees it.
 */
export interface PluginClientInterceptor {
  before?(call: PluginClientCall): Promise<void> | void;
  after?(call: PluginClientCall, status: number): Promise<void> | void;
}

/** A plugin's `siyuan.client.fetch` as the VM hands it over: the plugin, then the request. */
type ClientFetch = [
  name: string,
  path: string,
  method: string,
  headersJson: string,
  kind: "string" | "arraybuffer" | "none",
  body: unknown,
];
type ClientFetchResult = { meta: string; body: Buffer };

/** A plugin to install at start: a folder, a `package.zip`, or files in memory. */
export type PluginSource = string | { files: Record<string, string | Uint8Array> };

/** A plugin's state as the host reports it. */
export interface PluginStatus {
  name: string;
  state: PluginStateName;
  /** The kernel's number for the state (0 ready … 5 error). */
  stateCode: number;
  /** Why it is in `error`, else null. */
  error: string | null;
  /** How many times it was started (reloads and restarts count). */
  starts: number;
}

/** What the control surface and tests can do with plugins (`sandbox.plugins`). */
export interface PluginHostControl {
  /** Installs and enables a plugin; starts it if it has a kernel part. Returns its name. */
  install(source: PluginSource): Promise<string>;
  /** States of the plugins the host knows. */
  list(): PluginStatus[];
  status(name: string): PluginStatus | null;
  /** Fault "plugin reload": stops the plugin (its memory is gone) and starts it again. */
  reload(name: string): Promise<void>;
  /**
   * Fault "kernel restart": every plugin stops, the listener goes away for `downMs` (clients get
   * ECONNREFUSED), the plugin JWT key changes, then plugins start again. Storage stays.
   */
  restartKernel(downMs?: number): Promise<void>;
  /** Log lines of plugins (console and siyuan.logger), oldest first. */
  logs(name?: string): Array<PluginLogLine & { plugin: string }>;
  /** `siyuan.event.emit` and `siyuan.rpc.broadcast` calls, oldest first. */
  emitted(): Array<{ plugin: string; kind: "emit" | "broadcast"; topic: string; payload: unknown }>;
  /** Module names plugins passed to `require` and did not get. */
  missedRequires(): Array<{ plugin: string; id: string }>;
  /** Whether the host serialises plugin paths. */
  readonly serialisesPaths: boolean;
  /** The `X-Auth-Token` JWT of a started plugin (what its `siyuan.client` sends), or null. */
  tokenOf(name: string): string | null;
  /**
   * Steps the wall clock plugins read through `Date.now()` by `ms` (negative: back), as an OS clock
   * step or an NTP correction would; `new Date()` and timers are unaffected. Returns the total offset.
   */
  stepClock(ms: number): number;
  /** Sets (or with null removes) the interceptor of plugins' kernel requests (tests). */
  interceptClient(interceptor: PluginClientInterceptor | null): void;
  /**
   * Fault "storage failing": the next `siyuan.storage.put` of plugin `name` for which `match`
   * (path relative to its storage folder, value) is true rejects, writing nothing (once).
   */
  failStoragePut(name: string, match: (path: string, value: string) => boolean): void;
}

/** Plugin log lines kept in memory (oldest dropped first). */
export const PLUGIN_LOG_MAX_LINES = 10_000;

/** Default time the listener stays away on `restartKernel` (ms). */
export const DEFAULT_KERNEL_RESTART_DOWN_MS = 500;

const PLUGINS_DIR = "/data/plugins";
const PETALS = "/data/storage/petal/petals.json";
const TEXT = { "content-type": "text/plain; charset=utf-8" };

/** What the server front hands over for a `/plugin/private/*` request. */
export interface PluginRouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  raw: Buffer;
  /** Faults that hit this request. */
  hits: ArmedFault[];
  /** CheckAuth's failure message, or null. */
  authFailure: string | null;
  /** The front's per-path lock. */
  lock<T>(path: string, fn: () => Promise<T>): Promise<T>;
  /** Records the answer in the request log. */
  done(status: number, code: number | null): void;
  /** Headers every answer carries (CORS). */
  baseHeaders: Record<string, string>;
  /** Applies the queue (for `resetAfterApply`). */
  flush(): Promise<void>;
  /** Waits until `control.releaseHeld()` (for `hold`). */
  hold(): Promise<void>;
}

function backendOf(platform: NodeJS.Platform): string {
  return platform === "win32" ? "windows" : platform === "darwin" ? "darwin" : "linux";
}

function versionAbove(a: string, b: string): boolean {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) > (pb[i] ?? 0);
  return false;
}

function readFolder(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const abs = join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== "node_modules" && e.name !== ".git") walk(abs);
      } else if (e.isFile()) out.set(relative(dir, abs).split("\\").join("/"), readFileSync(abs));
    }
  };
  walk(dir);
  return out;
}

/** Files of a plugin source, rooted at the folder holding `plugin.json`. */
export function pluginFiles(source: PluginSource): Map<string, Buffer> {
  let files: Map<string, Buffer>;
  if (typeof source === "string") {
    files = statSync(source).isDirectory() ? readFolder(source) : readZip(readFileSync(source));
  } else {
    files = new Map(
      Object.entries(source.files).map(([k, v]) => [
        k,
        typeof v === "string" ? Buffer.from(v) : Buffer.from(v),
      ]),
    );
  }
  if (files.has("plugin.json")) return files;
  // a package.zip may hold one top folder
  const top = [...files.keys()].find((k) => /^[^/]+\/plugin\.json$/.test(k));
  if (!top) throw new Error("plugin source has no plugin.json");
  const prefix = top.slice(0, top.indexOf("/") + 1);
  return new Map(
    [...files].filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]),
  );
}

const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  Connection: "keep-alive",
};

/** gin-contrib/sse's encoding of one event. */
function sseFrame(ev: {
  data: string;
  event: string | null;
  id: string | null;
  retry: number | null;
}): string {
  const clean = (s: string) => s.replace(/[\r\n]/g, "");
  let out = "";
  if (ev.id !== null) out += `id:${clean(ev.id)}\n`;
  if (ev.event !== null) out += `event:${clean(ev.event)}\n`;
  if (ev.retry !== null) out += `retry:${ev.retry}\n`;
  out += `data:${ev.data.replace(/\r\n|\r|\n/g, "\ndata:")}\n\n`;
  return out;
}

const GONE: unique symbol = Symbol("client gone");

/** Awaits a handler's promise, or the client's disconnect (then GONE). */
function untilGone(res: ServerResponse, p: Promise<unknown>): Promise<unknown> {
  if (res.destroyed) return Promise.resolve(GONE);
  return new Promise((resolve, reject) => {
    const gone = () => resolve(GONE);
    res.once("close", gone);
    p.then(
      (v) => {
        res.off("close", gone);
        resolve(v);
      },
      (e: unknown) => {
        res.off("close", gone);
        reject(e);
      },
    );
  });
}

/** The host. One per sandbox. */
export class PluginHost implements PluginHostControl, PluginServices {
  private readonly runtimes = new Map<string, PluginRuntime>();
  private readonly starts = new Map<string, number>();
  private readonly tokens = new Map<string, string>();
  private readonly watches = new Map<string, Set<string>>();
  private readonly logLines: Array<PluginLogLine & { plugin: string }> = [];
  private readonly emittedList: Array<{
    plugin: string;
    kind: "emit" | "broadcast";
    topic: string;
    payload: unknown;
  }> = [];
  private readonly missed: Array<{ plugin: string; id: string }> = [];
  private readonly jwt = new PluginJwt();
  /** Keep-alive loopback connections, as Go's HTTP client keeps them. */
  private readonly agent = new Agent({ keepAlive: true });
  private readonly backend: string;
  private readonly pendingReloads = new Map<string, Promise<void>>();
  private store: FileStore | null = null;
  private baseUrl = "";
  private listener: { refuse(on: boolean): Promise<void> } | null = null;
  private restarting = false;
  /** What `stepClock` added to the plugins' wall clock. */
  private clockOffsetMs = 0;
  private interceptor: PluginClientInterceptor | null = null;
  private readonly storageFaults = new Map<string, (path: string, value: string) => boolean>();
  private readonly sourceWatchers = new Map<string, FSWatcher>();
  readonly serialisesPaths: boolean;
  readonly engine: PluginEngineKind;

  constructor(private readonly opts: PluginHostOptions = {}) {
    this.backend = opts.backend ?? backendOf(process.platform);
    this.serialisesPaths = opts.serialisePaths ?? true;
    this.engine = opts.engine ?? defaultEngine();
  }

  /**
   * Wraps the workspace file store so writes reach the host (hot reload, storage watcher). Every
   * other member is forwarded, so the store may grow without this wrapper knowing.
   */
  watchStore<S extends FileStore>(inner: S): S {
    this.store = inner;
    const host = this;
    const overrides: Partial<FileStore> = {
      write(p, data, mtimeMs) {
        const existed = inner.kind(p) !== null;
        inner.write(p, data, mtimeMs);
        host.changed(existed ? "WRITE" : "CREATE", p);
      },
      remove(p) {
        inner.remove(p);
        host.changed("REMOVE", p);
      },
      rename(from, to) {
        inner.rename(from, to);
        host.changed("RENAME", from);
        host.changed("CREATE", to);
      },
    };
    return new Proxy(inner, {
      get(target, key) {
        if (typeof key === "string" && key in overrides) return overrides[key as keyof FileStore];
        const v = Reflect.get(target, key, target) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  }

  /** Where `siyuan.client` reaches the sandbox, and the listener `restartKernel` takes away. */
  attach(baseUrl: string, listener: { refuse(on: boolean): Promise<void> }): void {
    this.baseUrl = baseUrl;
    this.listener = listener;
  }

  private files(): FileStore {
    if (!this.store) throw new Error("plugin host has no file store");
    return this.store;
  }

  /** True when `token` is a plugin JWT of this host (the front's CheckAuth step 1). */
  verifyToken(token: string): boolean {
    return this.jwt.verify(token) !== null;
  }

  private changed(op: "CREATE" | "WRITE" | "REMOVE" | "RENAME", path: string): void {
    const m = /^\/data\/plugins\/([^/]+)\/kernel\.js$/.exec(path);
    if (m && (op === "WRITE" || op === "CREATE")) {
      const name = m[1]!;
      if (this.runtimes.has(name)) void this.reload(name);
      else if (this.enabled(name)) void this.startOne(name);
    }
    for (const [name, set] of this.watches) {
      const root = `/data/storage/petal/${name}`;
      if (!path.startsWith(`${root}/`)) continue;
      const rel = path.slice(root.length);
      const hit = [...set].some((w) => w === rel || posix.dirname(rel) === w);
      if (hit) this.runtimes.get(name)?.publish("fs-notify", { operation: op, path });
    }
  }

  private petals(): Array<{ name: string; enabled: boolean }> {
    const fs = this.files();
    if (fs.kind(PETALS) !== "file") return [];
    try {
      const v = JSON.parse(fs.read(PETALS).toString("utf8")) as unknown;
      return Array.isArray(v) ? (v as Array<{ name: string; enabled: boolean }>) : [];
    } catch {
      return [];
    }
  }

  private enabled(name: string): boolean {
    return this.petals().some((p) => p.name === name && p.enabled === true);
  }

  async install(source: PluginSource): Promise<string> {
    const files = pluginFiles(source);
    const manifest = JSON.parse(files.get("plugin.json")!.toString("utf8")) as PluginManifest;
    const name = manifest.name;
    if (typeof name !== "string" || !/^[A-Za-z0-9_.-]+$/.test(name)) {
      throw new Error(`plugin.json: invalid name [${String(name)}]`);
    }
    const fs = this.files();
    if (this.runtimes.has(name)) await this.stopOne(name);
    fs.remove(`${PLUGINS_DIR}/${name}`);
    const now = Date.now();
    // the host writes to the inner store: no hot-reload event for its own writes
    for (const [rel, data] of files) fs.write(`${PLUGINS_DIR}/${name}/${rel}`, data, now);
    const petals = this.petals().filter((p) => p.name !== name);
    petals.push({ name, enabled: true });
    fs.write(PETALS, Buffer.from(JSON.stringify(petals)), now);
    if (this.opts.watchSources && typeof source === "string" && statSync(source).isDirectory()) {
      this.watchSource(name, source);
    }
    await this.startOne(name);
    return name;
  }

  private watchSource(name: string, dir: string): void {
    if (this.sourceWatchers.has(name)) return;
    let timer: NodeJS.Timeout | null = null;
    const w = watch(dir, (_event, file) => {
      if (file !== "kernel.js") return;
      if (timer) clearTimeout(timer);
      // a bundler may write in several steps: reinstall once it is quiet
      timer = setTimeout(() => {
        timer = null;
        void this.install(dir).catch((e: unknown) =>
          this.logLines.push({
            plugin: name,
            level: "error",
            text: `reinstall failed: ${messageOf(e)}`,
          }),
        );
      }, 100);
    });
    w.unref();
    this.sourceWatchers.set(name, w);
  }

  /** Starts every enabled plugin found under `data/plugins` (sandbox start). */
  async startAll(): Promise<void> {
    const fs = this.files();
    if (fs.kind(PLUGINS_DIR) !== "dir") return;
    for (const e of fs.list(PLUGINS_DIR)) {
      if (e.isDir && this.enabled(e.name) && !this.runtimes.has(e.name))
        await this.startOne(e.name);
    }
  }

  /** Starts one plugin when it may run (contract §5); a plugin that may not stays unknown (404). */
  private async startOne(name: string): Promise<void> {
    const fs = this.files();
    const dir = `${PLUGINS_DIR}/${name}`;
    if (fs.kind(`${dir}/plugin.json`) !== "file") return;
    let manifest: PluginManifest;
    try {
      manifest = JSON.parse(fs.read(`${dir}/plugin.json`).toString("utf8")) as PluginManifest;
    } catch {
      return;
    }
    manifest = { ...manifest, name };
    const kernels = Array.isArray(manifest.kernels) ? manifest.kernels : [];
    if (!kernels.includes("all") && !kernels.includes(this.backend)) return;
    if (
      typeof manifest.minAppVersion === "string" &&
      versionAbove(manifest.minAppVersion, KERNEL_VERSION)
    )
      return;
    if (fs.kind(`${dir}/index.js`) !== "file") return; // loadCode stops before kernel.js
    if (fs.kind(`${dir}/kernel.js`) !== "file") return;
    if (this.runtimes.has(name)) await this.stopOne(name);
    const root = `/data/storage/petal/${name}`;
    fs.mkdir(root);
    const lang = this.opts.lang ?? "en_US";
    const i18nPath = `${dir}/i18n/${lang}.json`;
    const i18n = fs.kind(i18nPath) === "file" ? fs.read(i18nPath).toString("utf8") : null;
    const token = this.jwt.sign(name);
    this.tokens.set(name, token);
    const rt = new PluginRuntime(
      manifest,
      fs.read(`${dir}/kernel.js`).toString("utf8"),
      {
        platform: this.backend,
        lang,
        i18n,
        log: (line) => {
          this.logLines.push({ plugin: name, ...line });
          // trim in batches, as the request log does
          if (this.logLines.length > PLUGIN_LOG_MAX_LINES * 1.1) {
            this.logLines.splice(0, this.logLines.length - PLUGIN_LOG_MAX_LINES);
          }
          if (this.opts.echoLogs)
            process.stderr.write(`${line.level.toUpperCase()} ${line.text}\n`);
        },
        storage: this.storageFor(name),
        fetch: (path, method, headersJson, kind, body) =>
          this.intercepted(name, path, method, headersJson, kind, body),
        emit: async (topic, payloadJson) => {
          this.emittedList.push({
            plugin: name,
            kind: "emit",
            topic,
            payload: JSON.parse(payloadJson),
          });
        },
        rpcBroadcast: async (method, paramsJson) => {
          this.emittedList.push({
            plugin: name,
            kind: "broadcast",
            topic: method,
            payload: JSON.parse(paramsJson),
          });
        },
        resolve: (kind, template) =>
          template.replace(
            new RegExp(`\\{\\{\\s*${kind}\\.([A-Za-z0-9_.-]+)\\s*\\}\\}`, "g"),
            (m, key: string) =>
              (kind === "secrets" ? this.opts.secrets : this.opts.vars)?.[key] ?? m,
          ),
        requireMissed: (id) => this.missed.push({ plugin: name, id }),
        now: () => Date.now() + this.clockOffsetMs,
        clockOffsetMs: () => this.clockOffsetMs,
      },
      this.engine,
      { languageCheck: this.opts.languageCheck ?? true },
    );
    this.runtimes.set(name, rt);
    this.starts.set(name, (this.starts.get(name) ?? 0) + 1);
    this.watches.set(name, new Set());
    await rt.start();
  }

  private async stopOne(name: string): Promise<void> {
    const rt = this.runtimes.get(name);
    if (!rt) return;
    await rt.stop();
    this.watches.delete(name);
    this.tokens.delete(name);
    if (this.runtimes.get(name) === rt) this.runtimes.delete(name);
  }

  async reload(name: string): Promise<void> {
    const prev = this.pendingReloads.get(name) ?? Promise.resolve();
    const next = prev.then(async () => {
      await this.stopOne(name);
      if (this.enabled(name)) await this.startOne(name);
    });
    this.pendingReloads.set(name, next);
    try {
      await next;
    } finally {
      if (this.pendingReloads.get(name) === next) this.pendingReloads.delete(name);
    }
  }

  /** Stops every plugin and source watcher (sandbox stop). */
  async stopAll(): Promise<void> {
    for (const w of this.sourceWatchers.values()) w.close();
    this.sourceWatchers.clear();
    for (const name of [...this.runtimes.keys()]) await this.stopOne(name);
  }

  async restartKernel(downMs = DEFAULT_KERNEL_RESTART_DOWN_MS): Promise<void> {
    if (this.restarting) throw new Error("kernel restart already in progress");
    this.restarting = true;
    try {
      const names = [...this.runtimes.keys()];
      for (const n of names) await this.stopOne(n);
      await this.listener?.refuse(true);
      this.jwt.rotate();
      await new Promise((r) => setTimeout(r, downMs));
      await this.listener?.refuse(false);
      await this.startAll();
    } finally {
      this.restarting = false;
    }
  }

  status(name: string): PluginStatus | null {
    const rt = this.runtimes.get(name);
    if (!rt) return null;
    return {
      name,
      state: rt.state,
      stateCode: PluginState[rt.state],
      error: rt.error,
      starts: this.starts.get(name) ?? 0,
    };
  }

  list(): PluginStatus[] {
    return [...this.runtimes.keys()].map((n) => this.status(n)!);
  }

  pluginState(name: string): string | null {
    return this.runtimes.get(name)?.state ?? null;
  }

  /** `GetLoadedPluginsInfo`: every plugin the manager holds (running, loading or in error). */
  loadedPlugins(): LoadedPluginInfo[] {
    return [...this.runtimes.values()].map((rt) => {
      const methods = rt.rpcMethods.map((m) => ({
        name: m.name,
        descriptions: [...m.descriptions],
      }));
      return {
        name: rt.name,
        state: rt.state,
        stateCode: PluginState[rt.state],
        // a nil Go slice: no methods bound → null
        methods: methods.length > 0 ? methods : null,
      };
    });
  }

  callRpc(name: string, method: string, params: unknown): Promise<PluginRpcOutcome> {
    const rt = this.runtimes.get(name);
    if (!rt) {
      return Promise.resolve({ ok: false, code: -32001, message: "Plugin not loaded" });
    }
    return callRpcMethod(rt, method, params);
  }

  mcpTools(): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const rt of this.runtimes.values()) {
      for (const tool of rt.tools) out.push(pluginToolJson(rt.name, tool.name, tool.spec));
    }
    return out;
  }

  async callMcpTool(
    fullName: string,
    args: Record<string, unknown>,
  ): Promise<{ text: string; isError: boolean }> {
    for (const rt of this.runtimes.values()) {
      for (const tool of rt.tools) {
        if (pluginToolName(rt.name, tool.name) === fullName)
          return callMcpTool(rt, tool.name, args);
      }
    }
    return { text: `tool not found: ${fullName}`, isError: true };
  }

  logs(name?: string): Array<PluginLogLine & { plugin: string }> {
    return this.logLines.filter((l) => name === undefined || l.plugin === name);
  }

  emitted() {
    return [...this.emittedList];
  }

  missedRequires() {
    return [...this.missed];
  }

  interceptClient(interceptor: PluginClientInterceptor | null): void {
    this.interceptor = interceptor;
  }

  failStoragePut(name: string, match: (path: string, value: string) => boolean): void {
    this.storageFaults.set(name, match);
  }

  stepClock(ms: number): number {
    this.clockOffsetMs += ms;
    for (const rt of this.runtimes.values()) rt.clockChanged();
    return this.clockOffsetMs;
  }

  /** The current JWT of a running plugin (tests). */
  tokenOf(name: string): string | null {
    return this.tokens.get(name) ?? null;
  }

  private storageFor(name: string) {
    const root = `/data/storage/petal/${name}`;
    const fs = () => this.files();
    const resolve = (p: string): string => {
      const joined = posix.normalize(posix.join(root, p.replace(/\\/g, "/"))).replace(/\/$/, "");
      if (joined !== root && !joined.startsWith(`${root}/`)) {
        throw new Error("siyuan.storage: path traversal not allowed");
      }
      return joined;
    };
    return {
      get: async (p: string): Promise<Buffer> => {
        const abs = resolve(p);
        if (fs().kind(abs) !== "file") throw new Error(`open ${abs}: no such file or directory`);
        return fs().read(abs);
      },
      put: async (p: string, value: string): Promise<void> => {
        const abs = resolve(p);
        if (abs === root) throw new Error(`open ${abs}: is a directory`);
        const fault = this.storageFaults.get(name);
        if (fault?.(abs.slice(root.length + 1), String(value))) {
          this.storageFaults.delete(name);
          throw new Error(`open ${abs}: input/output error (injected)`);
        }
        const existed = fs().kind(abs) !== null;
        fs().write(abs, Buffer.from(value, "utf8"), Date.now());
        this.changed(existed ? "WRITE" : "CREATE", abs);
      },
      remove: async (p: string): Promise<void> => {
        const abs = resolve(p);
        if (abs === root)
          throw new Error("siyuan.storage: removing the storage root is not allowed");
        fs().remove(abs);
        this.changed("REMOVE", abs);
      },
      list: async (p: string): Promise<string> => {
        const abs = resolve(p);
        if (fs().kind(abs) !== "dir") throw new Error(`open ${abs}: no such file or directory`);
        const entries: DirEntry[] = fs().list(abs);
        return JSON.stringify(entries);
      },
      watch: async (p: string, on: boolean): Promise<void> => {
        const abs = resolve(p);
        const rel = abs.slice(root.length) || "/";
        const set = this.watches.get(name);
        if (!set) return;
        if (on) set.add(rel);
        else set.delete(rel);
      },
    };
  }

  /** `clientFetch` through the test interceptor, when one is set. */
  private async intercepted(...request: ClientFetch): Promise<ClientFetchResult> {
    const i = this.interceptor;
    if (i === null) return this.clientFetch(...request);
    const [plugin, path, method, , kind, body] = request;
    const call = { plugin, path, method, body: kind === "string" ? String(body) : null };
    await i.before?.(call);
    const out = await this.clientFetch(...request);
    await i.after?.(call, (JSON.parse(out.meta) as { status: number }).status);
    return out;
  }

  private clientFetch(...request: ClientFetch): Promise<ClientFetchResult> {
    const [name, path, method, headersJson, kind, body] = request;
    if (!path.startsWith("/")) {
      // SiYuan 3.7.3's api_client.go words it so, with no prefix
      return Promise.reject(new Error("path must start with /"));
    }
    const headers = JSON.parse(headersJson) as Record<string, string>;
    headers["X-Auth-Token"] = this.tokens.get(name) ?? "";
    let payload: Buffer | null = null;
    if (kind === "string") payload = Buffer.from(String(body), "utf8");
    else if (kind === "arraybuffer") payload = Buffer.from(body as Buffer);
    if (payload) headers["Content-Length"] = String(payload.length);
    const url = new URL(path, this.baseUrl);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        url,
        { method: method.toUpperCase(), headers, timeout: 60_000, agent: this.agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => {
            const h: Record<string, string> = {};
            for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
              const k = canonicalHeader(res.rawHeaders[i]!);
              h[k] =
                h[k] === undefined ? res.rawHeaders[i + 1]! : `${h[k]}, ${res.rawHeaders[i + 1]}`;
            }
            const status = res.statusCode ?? 0;
            resolve({
              meta: JSON.stringify({
                // SiYuan 3.7.3 answers the path it was given, not the URL it fetched
                url: path,
                ok: status >= 200 && status < 300,
                status,
                statusText: `${status} ${STATUS_CODES[status] ?? ""}`.trim(),
                headers: h,
              }),
              body: Buffer.concat(chunks),
            });
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error("context deadline exceeded (Client.Timeout)")));
      req.on("error", reject);
      req.end(payload ?? undefined);
    });
  }

  /** Serves `/plugin/private/<name>/*path` (contract §8). */
  async serve(c: PluginRouteContext): Promise<void> {
    const { req, res, url } = c;
    const path = url.pathname;
    const text = (status: number, body: string) => {
      if (res.destroyed) return;
      res.writeHead(status, { ...c.baseHeaders, ...TEXT });
      res.end(body);
      c.done(status, null);
    };
    // CheckAuth → CheckAdminRole (every sandbox caller is administrator) → CheckReadonly (none)
    if (c.authFailure !== null) {
      res.writeHead(401, { ...c.baseHeaders, "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify({ code: -1, msg: c.authFailure }));
      c.done(401, -1);
      return;
    }
    const m = /^\/plugin\/private\/([^/]+)(\/.*)?$/.exec(path);
    if (!m) return text(404, "404 page not found");
    if (m[2] === undefined) {
      // gin's RedirectTrailingSlash for `/plugin/private/:name/*path`
      const status = req.method === "GET" ? 301 : 307;
      res.writeHead(status, { ...c.baseHeaders, Location: `${path}/${url.search}` });
      res.end();
      c.done(status, null);
      return;
    }
    const name = decodeURIComponent(m[1]!);
    const isWs = (req.headers.upgrade ?? "").toLowerCase() === "websocket";
    const has = (k: string) => c.hits.find((f) => f.kind === k);
    const handle = async (): Promise<void> => {
      const delay = has("delay");
      if (delay) await new Promise((r) => setTimeout(r, delay.delayMs ?? 0));
      if (has("hold")) await c.hold();
      const rt = this.runtimes.get(name);
      if (!rt) return text(404, `[plugin:${name}] not found`);
      if (rt.state !== "running") return text(503, `[plugin:${name}] is not running`);
      let built: ReturnType<typeof buildRequest>;
      try {
        built = buildRequest(req, url, c.raw, name);
      } catch (e) {
        return text(400, messageOf(e));
      }
      let data = built.data;
      if (has("corrupt") && data && data.length > 0) {
        try {
          const v = JSON.parse(data.toString("utf8")) as unknown;
          if (v && typeof v === "object" && !Array.isArray(v)) {
            data = Buffer.from(JSON.stringify(defaultCorrupt(v as Record<string, unknown>)));
          }
        } catch {
          /* not JSON: left alone */
        }
      }
      if (has("silentDrop")) return text(200, ""); // answered, the handler never ran
      const kind = isWs ? "WebSocket" : req.headers.accept === "text/event-stream" ? "SSE" : "HTTP";
      const fail = (e: unknown) =>
        text(
          500,
          `[plugin:${name}] Error occurred while handling ${kind} request: ${messageOf(e)}`,
        );
      if (isWs) {
        return text(501, `[plugin:${name}] siyuan-sandbox does not serve WebSocket upgrades`);
      }
      // the request as JSON, its body and form files as bytes the realm wraps in data objects
      const bytes: Buffer[] = [];
      const arg = built.json as {
        request: {
          body: { data: unknown; form: { files: Record<string, Array<{ data: unknown }>> } | null };
        };
      };
      if (data) {
        arg.request.body.data = bytes.length;
        bytes.push(data);
      } else arg.request.body.data = null;
      if (arg.request.body.form) {
        for (const [field, list] of Object.entries(arg.request.body.form.files)) {
          list.forEach((f, i) => {
            f.data = bytes.length;
            bytes.push(built.files[field]![i]!);
          });
        }
      }
      const argJson = JSON.stringify(arg);
      if (kind === "SSE") return this.serveSse(c, rt, argJson, bytes, fail);
      const answered = await untilGone(res, rt.http(argJson, bytes));
      if (answered !== GONE && !(answered as RealmAnswer).ok) {
        return fail((answered as RealmAnswer).error);
      }
      const result = answered as RealmAnswer | typeof GONE;
      // the client went away: the Go handler returns (the path lock is released), the result
      // of the JS handler is thrown away when it settles
      if (result === GONE || res.destroyed) return c.done(0, null);
      if (has("resetAfterApply")) {
        await c.flush();
        c.done(0, null);
        res.socket?.resetAndDestroy?.();
        req.socket.destroy();
        return;
      }
      let resp: Record<string, unknown> | null = null;
      const rawBytes = result.raw;
      try {
        const json = result.json;
        resp = json === undefined ? null : (JSON.parse(json) as Record<string, unknown>);
        if (resp !== null && (typeof resp !== "object" || Array.isArray(resp))) {
          throw new Error("json: cannot unmarshal into Go value of type plugin.HttpResponse");
        }
      } catch (e) {
        return fail(e);
      }
      try {
        const status = await writeResponse(req, res, url, resp, rawBytes, c.baseHeaders);
        c.done(status, null);
      } catch (e) {
        if (e instanceof ResponseError && !res.headersSent) return fail(e);
        c.done(0, null);
        res.destroy();
      }
    };
    // WebSocket upgrades are not serialised (contract §8.6)
    if (this.serialisesPaths && !isWs) await c.lock(path, handle);
    else await handle();
  }

  private async serveSse(
    c: PluginRouteContext,
    rt: PluginRuntime,
    argJson: string,
    bytes: Buffer[],
    fail: (e: unknown) => void,
  ): Promise<void> {
    const { res } = c;
    let closed = false;
    let headed = false;
    let finish!: () => void;
    const ended = new Promise<void>((r) => {
      finish = r;
    });
    const head = () => {
      if (headed || res.destroyed) return;
      headed = true;
      res.writeHead(200, { ...c.baseHeaders, ...SSE_HEADERS });
      c.done(200, null);
    };
    const close = () => {
      if (closed) return;
      closed = true;
      finish();
    };
    const stream = rt.sse(argJson, bytes, {
      send: (ev: SseEvent) => {
        if (closed || res.destroyed) return;
        head();
        res.write(sseFrame(ev));
      },
      close,
    });
    const r = await untilGone(res, stream.answer);
    if (r === GONE) close();
    else if (!(r as RealmAnswer).ok) {
      closed = true;
      stream.closed();
      if (!headed) return fail((r as RealmAnswer).error);
      res.end();
      return;
    }
    const onClientGone = () => close();
    res.on("close", onClientGone);
    if (res.destroyed) close();
    const unregister = rt.onStop(close);
    if (!closed) stream.opened();
    await ended;
    unregister();
    res.off("close", onClientGone);
    stream.closed();
    if (!res.destroyed) {
      head();
      res.end();
    }
  }
}

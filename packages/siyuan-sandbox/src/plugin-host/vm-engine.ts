/**
 * The `vm` engine: a `node:vm` context trimmed to what goja + goja_nodejs give in SiYuan 3.7.3
 * (VM_SHIM_SOURCE), running the shared realm source and `kernel.js` in this process. Fast to start
 * and needs nothing but Node; the `goja` engine is the proof (docs/fidelity.md lists every
 * difference found between the two).
 */
import { createHash } from "node:crypto";
import { createContext, Script } from "node:vm";
import type { HostCalls, PluginEngine, RealmAnswer, RealmPlugin } from "./engine.js";
import { regexViolation } from "./language.js";
import { REALM_SOURCE, REMOVED_GLOBALS, VM_SHIM_SOURCE } from "./prelude.js";

/**
 * V8's code cache per script (by SHA-256): the same `kernel.js` compiles from the cache, so
 * reloads, restarts and many sandboxes of a large bundle do not parse it again.
 */
const codeCache = new Map<string, Buffer>();

const shimScript = new Script(VM_SHIM_SOURCE, { filename: "siyuan-sandbox/vm-shim.js" });
const realmScript = new Script(REALM_SOURCE, { filename: "siyuan-sandbox/prelude.js" });

type Internals = Record<string, (...args: unknown[]) => unknown>;

interface ShimExports {
  bytesBuffer(outer: Buffer): unknown;
  bytesArrayBuffer(outer: Buffer): unknown;
  promise<T>(outer: Promise<T>): Promise<T>;
}

const hasMessage = (e: unknown): e is { message: unknown } =>
  typeof e === "object" && e !== null && "message" in e;

/** Bytes the realm hands over (an ArrayBuffer or a view of this or the host's realm). */
function bytesFromRealm(v: unknown): Buffer | null {
  if (v === undefined || v === null) return null;
  if (typeof v === "string") return Buffer.from(v, "utf8");
  if (ArrayBuffer.isView(v))
    return Buffer.from(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
  return Buffer.from(new Uint8Array(v as ArrayBuffer));
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    v !== null &&
    (typeof v === "object" || typeof v === "function") &&
    typeof (v as { then?: unknown }).then === "function"
  );
}

export class VmEngine implements PluginEngine {
  readonly kind = "vm" as const;
  private internals: Internals | null = null;
  private readonly timers = new Set<NodeJS.Timeout | NodeJS.Immediate>();
  private closed = false;
  /** Resolves once no timer is pending (the loop's `Run` returning, in goja). */
  private quiet: (() => void) | null = null;

  private checkQuiet(): void {
    if (this.timers.size === 0 && this.quiet !== null) {
      const done = this.quiet;
      this.quiet = null;
      done();
    }
  }

  constructor(private readonly host: HostCalls) {}

  private timerApi(): Record<string, unknown> {
    // goja_nodejs's loop drops what a timer callback throws, without a log line
    const guard = (fn: unknown, args: unknown[], done?: () => void) => (): void => {
      done?.();
      if (this.closed) return;
      try {
        if (typeof fn === "function") (fn as (...a: unknown[]) => unknown)(...args);
      } catch {
        /* dropped, as goja_nodejs's event loop drops it */
      }
      this.checkQuiet();
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
        this.checkQuiet();
      },
      clearInterval: (t: NodeJS.Timeout) => {
        clearInterval(t);
        timers.delete(t);
        this.checkQuiet();
      },
      clearImmediate: (t: NodeJS.Immediate) => {
        clearImmediate(t);
        timers.delete(t);
        this.checkQuiet();
      },
    };
  }

  async load(plugin: RealmPlugin, source: string): Promise<string | null> {
    const context = createContext(
      {},
      { name: `plugin:${plugin.name}`, codeGeneration: { strings: true, wasm: false } },
    );
    const host = this.host;
    const timers = this.timerApi();
    const shim = (shimScript.runInContext(context) as (b: unknown) => ShimExports)({
      name: plugin.name,
      removedGlobals: [...REMOVED_GLOBALS],
      regexViolation,
      decodeString: (str: string, enc: string) =>
        Buffer.from(str, enc === "base64Url" ? "base64url" : (enc as BufferEncoding)),
      encodeBytes: (u8: Uint8Array, enc: string) =>
        Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString(
          enc === "base64Url" ? "base64url" : (enc as BufferEncoding),
        ),
      log: (level: "info" | "warn" | "error", text: string) => host.log({ level, text }),
      URL,
      URLSearchParams,
      timers,
      requireMissed: (id: string) => host.note("require.missed", [id]),
    });
    const bridge = {
      engine: "vm",
      plugin,
      now: () => host.now(),
      log: (
        level: "trace" | "debug" | "info" | "warn" | "error",
        text: string,
        fromLogger?: boolean,
      ) => host.log({ level, text: fromLogger ? `[plugin:${plugin.name}] ${text}` : text }),
      note: (op: string, argsJson: string) => host.note(op, JSON.parse(argsJson) as unknown[]),
      callSync: (op: string, argsJson: string) =>
        JSON.stringify(host.callSync(op, JSON.parse(argsJson) as unknown[]) ?? null),
      call: (op: string, argsJson: string, bytes: unknown) =>
        shim.promise(
          host
            .call(op, JSON.parse(argsJson) as unknown[], bytesFromRealm(bytes))
            .then((r) => ({ value: JSON.stringify(r.value ?? null), bytes: r.bytes })),
        ),
      bytesText: (outer: Buffer) => outer.toString("utf8"),
      bytesBuffer: (outer: Buffer) => shim.bytesBuffer(outer),
      bytesArrayBuffer: (outer: Buffer) => shim.bytesArrayBuffer(outer),
      setTimeout: timers["setTimeout"],
    };
    try {
      this.internals = (realmScript.runInContext(context) as (b: unknown) => Internals)(bridge);
    } catch (e) {
      return `prelude: ${hasMessage(e) ? String(e.message) : String(e)}`;
    }
    const key = createHash("sha256").update(source).digest("hex");
    const cached = codeCache.get(key);
    try {
      const script = new Script(source, {
        filename: `${plugin.name}/kernel.js`,
        ...(cached ? { cachedData: cached } : {}),
      });
      script.runInContext(context);
      if (!cached) codeCache.set(key, script.createCachedData());
      // SiYuan runs kernel.js inside the event loop's Run, which returns only once no timer the
      // script started is pending: a top-level timeout holds the start, an interval holds it for good
      if (this.timers.size > 0) await new Promise<void>((r) => (this.quiet = r));
    } catch (e) {
      const name = hasMessage(e) ? ((e as { name?: string }).name ?? "Error") : undefined;
      return name === undefined
        ? String(e)
        : `${name}: ${String((e as { message: unknown }).message)}`;
    }
    return null;
  }

  async invoke(fn: string, args: string[], bytes?: Buffer[]): Promise<RealmAnswer> {
    const internals = this.internals;
    if (!internals || this.closed) {
      return { ok: false, error: "the plugin's realm is stopped", raw: null };
    }
    const call = internals[fn];
    if (typeof call !== "function") return { ok: false, error: `no internal ${fn}`, raw: null };
    let r = call(...args, ...(bytes ? [bytes] : []));
    if (isThenable(r)) r = await r;
    const o = r as { ok: boolean; json?: string; error?: string; missing?: boolean; raw?: unknown };
    return {
      ok: o.ok === true,
      ...(o.json !== undefined ? { json: String(o.json) } : {}),
      ...(o.error !== undefined ? { error: String(o.error) } : {}),
      ...(o.missing === true ? { missing: true } : {}),
      raw: bytesFromRealm(o.raw),
    };
  }

  clockChanged(): void {
    // the realm reads host.now() on every Date.now()
  }

  async close(): Promise<void> {
    this.closed = true;
    this.quiet?.();
    this.quiet = null;
    for (const t of this.timers) {
      clearTimeout(t as NodeJS.Timeout);
      clearImmediate(t as NodeJS.Immediate);
    }
    this.timers.clear();
  }
}

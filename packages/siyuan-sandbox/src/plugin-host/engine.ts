/**
 * The seam between the plugin host and the JavaScript engine a plugin's `kernel.js` runs in.
 * Two engines implement it: `vm` (a `node:vm` context trimmed to goja's built-ins, in this process)
 * and `goja` (SiYuan's engine at the versions 3.7.3 pins, in a Go child process). Both run the
 * same realm source (`prelude.ts`), so everything above this seam is one implementation.
 */

/** Engines a plugin can run in. */
export type PluginEngineKind = "vm" | "goja";

/** What the realm learns about its plugin (`siyuan.plugin`). */
export interface RealmPlugin {
  name: string;
  version: string;
  displayName: string;
  platform: string;
  /** `i18n/<lang>.json` as text, or null. */
  i18n: string | null;
}

/** A log line from the realm, as the kernel log shows it. */
export interface RealmLog {
  level: "trace" | "debug" | "info" | "warn" | "error";
  text: string;
}

/** The host side of the bridge ("Go side" in SiYuan): served in Node for both engines. */
export interface HostCalls {
  /** An asynchronous host call (`storage.get`, `fetch`, `emit`, …). */
  call(
    op: string,
    args: unknown[],
    bytes: Buffer | null,
  ): Promise<{ value: unknown; bytes: Buffer | null }>;
  /** A synchronous host call (`resolve`). */
  callSync(op: string, args: unknown[]): unknown;
  /** A one-way notice (`registry.rpc`, `registry.tools`, `sse.send`, `sse.close`, `require.missed`). */
  note(op: string, args: unknown[]): void;
  log(line: RealmLog): void;
  /** The wall clock `Date.now()` reads in the realm. */
  now(): number;
}

/** What an internal of the realm answers (see REALM_SOURCE). */
export interface RealmAnswer {
  ok: boolean;
  /** JSON text of the value (absent for `undefined`). */
  json?: string;
  error?: string;
  /** The internal found nothing to call (no such hook, method or tool). */
  missing?: boolean;
  /** Bytes of an HTTP answer's `body.raw.data`, or null. */
  raw: Buffer | null;
}

/** One plugin's engine instance: a realm that runs one `kernel.js` once. */
export interface PluginEngine {
  readonly kind: PluginEngineKind;
  /** Builds the realm and runs `kernel.js`; resolves with why it failed, or null. */
  load(plugin: RealmPlugin, source: string): Promise<string | null>;
  /** Calls internal `fn` of the realm with text arguments (and bytes); never rejects for a throw. */
  invoke(fn: string, args: string[], bytes?: Buffer[]): Promise<RealmAnswer>;
  /** The host's clock offset changed (the goja engine keeps its own copy). */
  clockChanged(): void;
  /** Stops the realm: timers stop, nothing of it runs again. */
  close(): Promise<void>;
}

/** Builds an engine of `kind` over `host`. */
export type PluginEngineFactory = (kind: PluginEngineKind, host: HostCalls) => PluginEngine;

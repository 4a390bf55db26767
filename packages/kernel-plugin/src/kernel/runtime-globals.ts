/**
 * The parts of SiYuan 3.7.3's kernel-plugin globals (contract Part 2) that the plugin uses, typed.
 * They exist only inside the kernel's goja runtime (or the sandbox's plugin host).
 */
import type { KernelFetchClient } from "@sisyphus/siyuan-api/kernel";
import type { PluginStorage } from "../stores/index.js";

/** A data object over a buffered body or stored file (contract §8.2, §10). */
export interface DataObject {
  text(): Promise<string>;
  /** The bytes, copied into a new `ArrayBuffer`. */
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** The request object of a private HTTP handler (contract §8.2), the fields used here. */
export interface PluginRequest {
  readonly url: { readonly host: string; readonly path: string; readonly search: string };
  readonly request: {
    readonly method: string;
    readonly headers: Readonly<Record<string, readonly string[]>>;
    readonly contentType: string;
    /** The `Content-Length` header, −1 when unknown. */
    readonly contentLength: number;
    readonly body: { readonly data: DataObject | null };
  };
  readonly context: { readonly path: string };
  /** The stream of an `es` (SSE) request (contract §8.4); absent for `http` requests. */
  readonly port?: SsePort;
}

/** One server-sent event (contract §8.4): `data` is required, the rest optional. */
export interface SseEvent {
  data: string;
  event?: string;
  id?: string;
  retry?: number;
}

/**
 * `request.port` of an SSE request (contract §8.4), a sealed object: `send` is synchronous and
 * throws without `data`; after the handler returns the kernel calls `onopen`, and `onclose` once
 * the stream ends (`close()`, the client leaving, or the plugin stopping). The handler cannot set
 * a status or headers; a throw or rejection makes the kernel answer 500 with its message.
 */
export interface SsePort {
  onopen: (() => void) | null;
  onclose: (() => void) | null;
  send(event: SseEvent): void;
  close(): void;
}

/** The response object a private HTTP handler returns (contract §8.3), the kinds used here. */
export interface PluginResponse {
  statusCode: number;
  headers?: Record<string, string[]>;
  body?: { raw?: { contentType: string; data: string } } | Record<string, never>;
}

/** The frozen `siyuan` global, the members used here. */
export interface SiyuanGlobal {
  readonly plugin: {
    readonly name: string;
    readonly version: string;
    readonly lifecycle: {
      onload: (() => Promise<void> | void) | null;
      onrunning: (() => Promise<void> | void) | null;
      onunload: (() => Promise<void> | void) | null;
    };
  };
  readonly logger: {
    info(...args: unknown[]): void;
    warn(...args: unknown[]): void;
    error(...args: unknown[]): void;
  };
  /** `siyuan.storage` (contract §10). */
  readonly storage: PluginStorage;
  readonly client: KernelFetchClient;
  readonly server: {
    readonly private: {
      readonly http: { handler: ((req: PluginRequest) => Promise<PluginResponse>) | null };
      /** Requests whose `Accept` is exactly `text/event-stream`, whatever the method (§8.1). */
      readonly es: { handler: ((req: PluginRequest) => Promise<void> | undefined) | null };
    };
  };
}

declare const siyuan: SiyuanGlobal;

/** The event loop's timer functions (goja_nodejs, contract §6), as plain handles. */
export interface RuntimeTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** The runtime's timers. */
export const runtimeTimers: RuntimeTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
};

/** The runtime's `siyuan` global. */
export function siyuanGlobal(): SiyuanGlobal {
  return siyuan;
}

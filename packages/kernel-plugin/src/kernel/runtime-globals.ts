/**
 * The parts of SiYuan 3.7.3's kernel-plugin globals (contract Part 2) that the plugin uses, typed.
 * They exist only inside the kernel's goja runtime (or the sandbox's plugin host).
 */
import type { KernelFetchClient } from "@sisyphus/siyuan-api/kernel";
import type { PluginStorage } from "../stores/index.js";

/** A data object over a buffered body or stored file (contract §8.2, §10). */
export interface DataObject {
  text(): Promise<string>;
}

/** The request object of a private HTTP handler (contract §8.2), the fields used here. */
export interface PluginRequest {
  readonly url: { readonly host: string; readonly path: string; readonly search: string };
  readonly request: {
    readonly method: string;
    readonly headers: Readonly<Record<string, readonly string[]>>;
    readonly contentType: string;
    readonly body: { readonly data: DataObject | null };
  };
  readonly context: { readonly path: string };
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
  readonly logger: { info(...args: unknown[]): void; error(...args: unknown[]): void };
  /** `siyuan.storage` (contract §10). */
  readonly storage: PluginStorage;
  readonly client: KernelFetchClient;
  readonly server: {
    readonly private: {
      readonly http: { handler: ((req: PluginRequest) => Promise<PluginResponse>) | null };
    };
  };
}

declare const siyuan: SiyuanGlobal;

/** The runtime's `siyuan` global. */
export function siyuanGlobal(): SiyuanGlobal {
  return siyuan;
}

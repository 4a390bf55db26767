/**
 * The kernel HTTP transport, loaded on first use: `undici` and its transport stay out of the
 * start-up path, so `initialize`, `server/discover` and `tools/list` never wait on loading them.
 */
import type { Transport, TransportRequest, TransportResponse } from "@sisyphus/siyuan-api/kernel";

/** Options forwarded to `undiciTransport`. */
export interface LazyKernelTransportOptions {
  baseUrl: string;
  token?: string;
  timeoutMs: number;
}

/** A `Transport` that creates the undici transport on its first request. */
export function lazyKernelTransport(options: LazyKernelTransportOptions): Transport {
  let inner: Promise<Transport> | undefined;
  const get = () => {
    inner ??= import("./kernel-transport-undici.js").then((m) => m.undiciTransport(options));
    return inner;
  };
  return {
    name: "undici",
    async send(request: TransportRequest): Promise<TransportResponse> {
      return (await get()).send(request);
    },
    async close(): Promise<void> {
      if (inner !== undefined) await (await inner).close();
    },
  };
}

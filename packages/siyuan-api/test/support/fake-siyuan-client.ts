/**
 * A stand-in for the kernel runtime's `siyuan.client` (contract §9): `fetch(path, {method, headers,
 * body})` goes over real loopback HTTP to `baseUrl` and answers with the runtime's reply shape
 * (`{url, ok, status, statusText, headers, text(), json(), buffer(), arrayBuffer()}`). Like the
 * runtime it accepts only string or ArrayBuffer bodies (others are dropped), authenticates itself
 * (here with the API token instead of the plugin JWT), and rejects with Go-style dial errors.
 */
import type { KernelFetchClient, KernelFetchReply } from "../../src/index.js";

export interface FakeSiyuanClient extends KernelFetchClient {
  /** Bodies that were neither string nor ArrayBuffer (dropped, as the runtime does). */
  droppedBodies: number;
}

export function fakeSiyuanClient(baseUrl: string, token?: string): FakeSiyuanClient {
  const fake: FakeSiyuanClient = {
    droppedBodies: 0,
    async fetch(path, init): Promise<KernelFetchReply> {
      if (!path.startsWith("/")) throw new Error("siyuan.client.fetch: path must start with /");
      const url = baseUrl + path;
      let body: string | ArrayBuffer | undefined;
      if (typeof init.body === "string" || init.body instanceof ArrayBuffer) body = init.body;
      else if (init.body !== undefined) fake.droppedBodies++;
      const headers: Record<string, string> = { ...(init.headers ?? {}) };
      if (token !== undefined) headers["Authorization"] = `Token ${token}`;
      let res: Response;
      try {
        res = await fetch(
          url,
          body === undefined
            ? { method: init.method, headers }
            : { method: init.method, headers, body },
        );
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        const host = new URL(baseUrl).host;
        if (cause?.code === "ECONNREFUSED") {
          throw new Error(`Post "${url}": dial tcp ${host}: connect: connection refused`);
        }
        if (cause?.code === "UND_ERR_SOCKET") throw new Error(`Post "${url}": EOF`);
        if (cause?.code === "ECONNRESET") {
          throw new Error(`Post "${url}": read tcp ${host}: read: connection reset by peer`);
        }
        throw new Error(`Post "${url}": ${cause?.message ?? String(err)}`);
      }
      const bytes = new Uint8Array(await res.arrayBuffer());
      const replyHeaders: Record<string, string> = {};
      res.headers.forEach((v, k) => {
        // Go canonical header case, e.g. Content-Type.
        replyHeaders[
          k.replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase())
        ] = v;
      });
      const text = (): string => new TextDecoder().decode(bytes);
      return {
        url,
        ok: res.ok,
        status: res.status,
        statusText: `${res.status} ${res.statusText}`,
        headers: replyHeaders,
        text: async () => text(),
        json: async () => JSON.parse(text()) as unknown,
        arrayBuffer: async () => bytes.slice().buffer,
      };
    },
  };
  return fake;
}

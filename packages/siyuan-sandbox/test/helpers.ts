/** Test helpers: a sandbox per test file and a plain fetch client over loopback. */
import {
  type PluginEngineKind,
  type Sandbox,
  type SandboxOptions,
  startSandbox,
} from "../src/index.js";

export const TOKEN = "test-token";

/** Envelope as the kernel answers it. */
export interface Envelope<T = unknown> {
  code: number;
  msg: string;
  data: T;
}

let pluginEngine: PluginEngineKind | undefined;

/** The plugin engine every later `start` of this test file gives its plugin host. */
export function usePluginEngine(engine: PluginEngineKind): void {
  pluginEngine = engine;
}

/** Starts a sandbox with the test token (and the demo seed unless told otherwise). */
export function start(opts: SandboxOptions = {}): Promise<Sandbox> {
  const pluginHost =
    pluginEngine === undefined ? opts.pluginHost : { engine: pluginEngine, ...opts.pluginHost };
  return startSandbox({
    token: TOKEN,
    seed: "demo",
    ...opts,
    ...(pluginHost ? { pluginHost } : {}),
  });
}

/** POSTs JSON with the token; returns HTTP status and parsed body. */
export async function post<T = unknown>(
  sb: Sandbox,
  path: string,
  body?: unknown,
  init: { token?: string | null; rawBody?: string } = {},
): Promise<{ status: number; body: Envelope<T> }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const token = init.token === undefined ? TOKEN : init.token;
  if (token !== null) headers.authorization = `Token ${token}`;
  const res = await fetch(sb.url + path, {
    method: "POST",
    headers,
    body: init.rawBody ?? (body === undefined ? "" : JSON.stringify(body)),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Envelope<T> };
  } catch {
    throw new Error(`${path}: HTTP ${res.status} non-JSON body: ${text.slice(0, 80)}`);
  }
}

/** POST that expects code 0 and returns data. */
export async function ok<T = unknown>(sb: Sandbox, path: string, body?: unknown): Promise<T> {
  const r = await post<T>(sb, path, body);
  if (r.status !== 200 || r.body.code !== 0) {
    throw new Error(`${path} failed: ${r.status} ${JSON.stringify(r.body)}`);
  }
  return r.body.data;
}

/** Kramdown of a block through HTTP. */
export async function kramdown(sb: Sandbox, id: string): Promise<string> {
  return (await ok<{ kramdown: string }>(sb, "/api/block/getBlockKramdown", { id })).kramdown;
}

/** Flush through HTTP. */
export async function flush(sb: Sandbox): Promise<void> {
  await ok(sb, "/api/sqlite/flushTransaction", {});
}

/**
 * Support for the security and load files: the routes each authority serves (read from its source,
 * so a new route is covered without editing a list), raw HTTP with headers sent byte for byte, a
 * test-only preload for spawned servers (wall-clock shift on SIGUSR2, memory samples to a file),
 * process samples from /proc, and a scan of everything captured for secrets.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const PACKAGES = resolve(import.meta.dirname, "..", "..", "..");

/** A route an authority serves: the method that reaches its handler and the path under the base. */
export interface Route {
  readonly method: string;
  readonly path: string;
  /** Extra headers selecting the route (the plugin's SSE slot needs `Accept: text/event-stream`). */
  readonly headers?: Record<string, string>;
}

function literals(file: string, pattern: RegExp): string[] {
  const text = readFileSync(join(PACKAGES, file), "utf8");
  return [...text.matchAll(pattern)].map((m) => m[1] as string);
}

/**
 * The Node server's routes: every path constant `http-server.ts` compares the request path with
 * (resolved in `constants.ts`), with GET, POST and DELETE each (the shell authenticates before it
 * looks at the method).
 */
export function nodeRoutes(): Route[] {
  const names = literals("node-server/src/http-server.ts", /path (?:===|!==) ([A-Z_]+)/g);
  const constants = readFileSync(join(PACKAGES, "node-server/src/constants.ts"), "utf8");
  const paths = [...new Set(names)].map((name) => {
    const m = new RegExp(`export const ${name} = "([^"]+)"`).exec(constants);
    if (!m) throw new Error(`constant ${name} not found in constants.ts`);
    return m[1] as string;
  });
  return paths.flatMap((path) => ["GET", "POST", "DELETE"].map((method) => ({ method, path })));
}

/**
 * The kernel plugin's routes: every path literal its HTTP handler (`main.ts`) and transfer routes
 * compare with, with GET and POST each, plus the SSE slot (GET `/mcp`, `Accept: text/event-stream`).
 */
export function kernelRoutes(): Route[] {
  const paths = new Set([
    ...literals("kernel-plugin/src/kernel/main.ts", /path === "(\/[^"]*)"/g),
    ...literals("kernel-plugin/src/kernel/transfer-routes.ts", /path [!=]== "(\/[^"]*)"/g),
  ]);
  return [
    ...[...paths].flatMap((path) => ["GET", "POST"].map((method) => ({ method, path }))),
    { method: "GET", path: "/mcp", headers: { accept: "text/event-stream" } },
  ];
}

/** One raw answer. */
export interface RawAnswer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * One raw HTTP/1.1 request to `base` + `path`; `headers` go out exactly (no Host is added unless
 * given). A streaming answer (SSE) is read for at most `readMs` and then closed.
 */
export function raw(
  base: string,
  path: string,
  headers: Record<string, string>,
  options: { method?: string; body?: string; readMs?: number } = {},
): Promise<RawAnswer> {
  const url = new URL(base);
  return new Promise((done, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: Number(url.port),
        path: `${url.pathname.replace(/\/$/, "")}${path}`,
        method: options.method ?? "GET",
        headers: Object.entries(headers).flat(),
        setHost: false,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        const finish = () => done({ status: res.statusCode ?? 0, body, headers: res.headers });
        const timer = setTimeout(() => {
          res.destroy();
          finish();
        }, options.readMs ?? 3_000);
        res.on("data", (c: string) => {
          body += c;
        });
        res.on("end", () => {
          clearTimeout(timer);
          finish();
        });
      },
    );
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/**
 * A CommonJS preload for spawned servers (test-only, given through `NODE_OPTIONS=--require`):
 * SIGUSR2 moves `Date.now` six minutes ahead (past the 5-minute confirmation expiry) and says so on
 * stderr; with `SECLOAD_SAMPLE_FILE` set it appends `process.memoryUsage()` there every
 * `SECLOAD_SAMPLE_MS`, after a full collection when the server runs with `--expose-gc` (so the
 * heap figure is the live heap, not garbage awaiting collection); with `SECLOAD_LISTEN_BACKLOG`
 * and `SECLOAD_KEEPALIVE_MS` set, every HTTP server of the process listens with that accept backlog
 * (Node's default 511 overflows when a thousand clients connect at once to a busy 2-core machine,
 * and the kernel then resets connections the server never accepted) and keeps idle connections
 * that long (Node's default 5 s races a loaded client reusing the socket). Both are transport
 * artefacts of the load generator, not the subject of the load test.
 */
export function writePreload(): string {
  const file = join(tmpdir(), `secload-preload-${process.pid}.cjs`);
  writeFileSync(
    file,
    `"use strict";
const fs = require("node:fs");
let offset = 0;
const realNow = Date.now;
Date.now = () => realNow() + offset;
process.on("SIGUSR2", () => {
  offset += 6 * 60 * 1000;
  process.stderr.write("secload: clock shifted\\n");
});
const backlog = Number(process.env.SECLOAD_LISTEN_BACKLOG || 0);
const keepAlive = Number(process.env.SECLOAD_KEEPALIVE_MS || 0);
if (backlog > 0 || keepAlive > 0) {
  const http = require("node:http");
  const listen = http.Server.prototype.listen;
  http.Server.prototype.listen = function (...args) {
    if (keepAlive > 0) this.keepAliveTimeout = keepAlive;
    const [port, host, done] = args;
    if (backlog > 0 && typeof port === "number" && typeof host === "string" && typeof done === "function") {
      return listen.call(this, { port, host, backlog }, done);
    }
    return listen.apply(this, args);
  };
}
const out = process.env.SECLOAD_SAMPLE_FILE;
if (out) {
  const t = setInterval(() => {
    if (typeof global.gc === "function") global.gc();
    const m = process.memoryUsage();
    fs.appendFileSync(out, JSON.stringify({ t: realNow(), rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal }) + "\\n");
  }, Number(process.env.SECLOAD_SAMPLE_MS || 10000));
  t.unref();
}
`,
  );
  return file;
}

/** `NODE_OPTIONS` for a spawned server with the preload (keeping what the test process has). */
export function preloadEnv(
  preload: string,
  extra: Record<string, string> = {},
  flags: readonly string[] = [],
) {
  const base = process.env["NODE_OPTIONS"] ?? "";
  return { NODE_OPTIONS: [base, ...flags, `--require ${preload}`].join(" ").trim(), ...extra };
}

/** RSS (bytes, from /proc/<pid>/status) and open file descriptors (/proc/<pid>/fd) of `pid`. */
export function procSample(pid: number): { rss: number; fds: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? "0");
  return { rss: kb * 1024, fds: readdirSync(`/proc/${pid}/fd`).length };
}

/** Everything a test saw: process output and response bodies, scanned for secrets at the end. */
export class Capture {
  readonly #texts: string[] = [];

  add(label: string, text: string): void {
    this.#texts.push(`[${label}] ${text}`);
  }

  /** The secrets found, with where (empty when clean). */
  leaks(secrets: readonly string[]): string[] {
    const found: string[] = [];
    for (const secret of secrets) {
      for (const text of this.#texts) {
        if (text.includes(secret)) found.push(`${secret} in ${text.slice(0, 160)}`);
      }
    }
    return found;
  }

  get size(): number {
    return this.#texts.length;
  }
}

/** The percentile `p` (0..1) of `values` (sorted copy; nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
}

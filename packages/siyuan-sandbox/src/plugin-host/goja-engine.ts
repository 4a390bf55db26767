/**
 * The `goja` engine: `kernel.js` runs in goja, the engine SiYuan 3.7.0–3.7.3 runs kernel plugins
 * in, at the versions they pin, inside `goja-host` (a Go program of this package, `goja-host/`,
 * built by the package's build step into `dist/goja-host`). One child process per plugin start;
 * this side serves its host calls (storage, `siyuan.client`, logs, …) and sends it the host's
 * calls into the realm, in frames over its stdin and stdout (see goja-host/main.go).
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { HostCalls, PluginEngine, RealmAnswer, RealmLog, RealmPlugin } from "./engine.js";
import { REALM_SOURCE } from "./prelude.js";

/** How to get Go and the engine when the binary is missing (the error says it). */
export const GOJA_HOST_INSTALL_HINT =
  "install Go 1.26 or later (https://go.dev/dl/; Debian/Ubuntu: `apt-get install golang-go` where it is that new), then run `pnpm --filter @sisyphus/siyuan-sandbox build`";

/**
 * The `goja-host` binary: `SIYUAN_SANDBOX_GOJA_HOST` if set, else `dist/goja-host` of this package
 * (this file runs from `src/plugin-host/` in tests and from `dist/` once bundled).
 */
export function gojaHostPath(): string {
  const env = process.env["SIYUAN_SANDBOX_GOJA_HOST"];
  if (env) return env;
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [resolve(here, "goja-host"), resolve(here, "..", "..", "dist", "goja-host")];
  return candidates.find((p) => existsSync(p)) ?? candidates[candidates.length - 1]!;
}

interface Frame {
  t: string;
  id?: number;
  fn?: string;
  op?: string;
  args?: string[];
  ok?: boolean;
  value?: string;
  error?: string;
  level?: RealmLog["level"];
  text?: string;
  name?: string;
  source?: string;
  prelude?: string;
  plugin?: RealmPlugin;
  clockMs?: number;
  nbytes?: number[];
}

/** Reads frames (u32 LE header length, u32 LE body length, JSON header, body) from a stream. */
class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly onFrame: (f: Frame, parts: Buffer[]) => void) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    for (;;) {
      if (this.size < 8) return;
      const head = this.peek(8);
      const hl = head.readUInt32LE(0);
      const bl = head.readUInt32LE(4);
      if (this.size < 8 + hl + bl) return;
      const all = this.take(8 + hl + bl);
      const f = JSON.parse(all.toString("utf8", 8, 8 + hl)) as Frame;
      const parts: Buffer[] = [];
      let at = 8 + hl;
      for (const n of f.nbytes ?? []) {
        parts.push(all.subarray(at, at + n));
        at += n;
      }
      this.onFrame(f, parts);
    }
  }

  private peek(n: number): Buffer {
    if (this.chunks[0]!.length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!.subarray(0, n);
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = all.length > n ? [all.subarray(n)] : [];
    this.size -= n;
    return all.subarray(0, n);
  }
}

export class GojaEngine implements PluginEngine {
  readonly kind = "goja" as const;
  private readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private readonly pending = new Map<number, (f: Frame, parts: Buffer[]) => void>();
  private nextId = 0;
  private loaded: ((error: string | null) => void) | null = null;
  private exited = false;
  private readonly exit: Promise<void>;

  constructor(
    private readonly host: HostCalls,
    private readonly clockOffsetMs: () => number,
  ) {
    const bin = gojaHostPath();
    if (!existsSync(bin)) {
      throw new Error(
        `the goja plugin engine needs ${bin}, which is missing: ${GOJA_HOST_INSTALL_HINT}`,
      );
    }
    this.child = spawn(bin, [], { stdio: ["pipe", "pipe", "inherit"] });
    const reader = new FrameReader((f, parts) => this.onFrame(f, parts));
    this.child.stdout.on("data", (c: Buffer) => reader.push(c));
    // a write after the child exited fails with EPIPE: the exit handler answers every waiter
    this.child.stdin.on("error", () => undefined);
    this.exit = new Promise((done) => {
      this.child.once("exit", (code, signal) => {
        this.exited = true;
        const why = `goja-host exited (${signal ?? `code ${code}`})`;
        this.loaded?.(why);
        this.loaded = null;
        for (const answer of this.pending.values())
          answer({ t: "result", ok: false, error: why }, []);
        this.pending.clear();
        done();
      });
      this.child.once("error", (e) => {
        this.host.log({ level: "error", text: `goja-host: ${e.message}` });
      });
    });
    this.child.unref();
    (this.child.stdout as Readable & { unref?: () => void }).unref?.();
    (this.child.stdin as Writable & { unref?: () => void }).unref?.();
  }

  private send(f: Frame, parts: Buffer[] = []): void {
    if (this.exited) return;
    f.nbytes = parts.map((p) => p.length);
    const head = Buffer.from(JSON.stringify(f), "utf8");
    const lens = Buffer.alloc(8);
    lens.writeUInt32LE(head.length, 0);
    lens.writeUInt32LE(
      parts.reduce((n, p) => n + p.length, 0),
      4,
    );
    this.child.stdin.write(lens);
    this.child.stdin.write(head);
    for (const p of parts) this.child.stdin.write(p);
  }

  private onFrame(f: Frame, parts: Buffer[]): void {
    switch (f.t) {
      case "loaded":
        this.loaded?.(f.error ? f.error : null);
        this.loaded = null;
        return;
      case "result": {
        const answer = this.pending.get(f.id!);
        this.pending.delete(f.id!);
        answer?.(f, parts);
        return;
      }
      case "log":
        this.host.log({ level: f.level ?? "info", text: f.text ?? "" });
        return;
      case "note":
        this.host.note(f.op!, JSON.parse(f.value!) as unknown[]);
        return;
      case "callSync": {
        let reply: Frame;
        try {
          const v = this.host.callSync(f.op!, JSON.parse(f.value!) as unknown[]);
          reply = { t: "reply", id: f.id!, ok: true, value: JSON.stringify(v ?? null) };
        } catch (e) {
          reply = { t: "reply", id: f.id!, ok: false, error: (e as Error).message };
        }
        this.send(reply);
        return;
      }
      case "call":
        this.host.call(f.op!, JSON.parse(f.value!) as unknown[], parts[0] ?? null).then(
          (r) =>
            this.send(
              { t: "reply", id: f.id!, ok: true, value: JSON.stringify(r.value ?? null) },
              r.bytes ? [r.bytes] : [],
            ),
          (e: unknown) =>
            this.send({
              t: "reply",
              id: f.id!,
              ok: false,
              error: e instanceof Error ? e.message : String(e),
            }),
        );
        return;
    }
  }

  load(plugin: RealmPlugin, source: string): Promise<string | null> {
    return new Promise((done) => {
      this.loaded = done;
      this.send({
        t: "load",
        name: plugin.name,
        source,
        prelude: REALM_SOURCE,
        plugin,
        clockMs: this.clockOffsetMs(),
      });
    });
  }

  invoke(fn: string, args: string[], bytes: Buffer[] = []): Promise<RealmAnswer> {
    if (this.exited) return Promise.resolve({ ok: false, error: "goja-host exited", raw: null });
    const id = ++this.nextId;
    return new Promise((done) => {
      this.pending.set(id, (f, parts) => {
        if (f.ok !== true) {
          done({ ok: false, error: f.error ?? "goja-host failed", raw: null });
          return;
        }
        const v = JSON.parse(f.value ?? "{}") as Omit<RealmAnswer, "raw">;
        done({ ...v, ok: v.ok === true, raw: parts[0] ?? null });
      });
      this.send({ t: "invoke", id, fn, args }, bytes);
    });
  }

  clockChanged(): void {
    this.send({ t: "clock", clockMs: this.clockOffsetMs() });
  }

  async close(): Promise<void> {
    if (this.exited) return;
    this.send({ t: "stop" });
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 2_000);
    await this.exit;
    clearTimeout(timer);
  }
}

import { LegacySessionTable } from "@sisyphus/mcp-tools/shell";
import { describe, expect, it } from "vitest";
import type { PluginStorage } from "../stores/index.js";
import type { PluginRequest, RuntimeTimers, SsePort } from "./runtime-globals.js";
import {
  type Inspection,
  kernelInspection,
  LIST_CHANGED_EVENT,
  ListChangedStreams,
  SSE_CHECK_INTERVAL_MS,
  SSE_MAX_AGE_MS,
  SSE_MAX_PER_CONTEXT,
  SSE_MAX_TOTAL,
  StreamRefused,
  serveStream,
} from "./sse.js";

/** Timers on a fake clock: `advance` runs what falls due, in order, settling promises between. */
class FakeTimers implements RuntimeTimers {
  now = 0;
  #next = 1;
  readonly #tasks = new Map<number, { at: number; fn: () => void; every?: number }>();

  setTimeout(fn: () => void, ms: number): unknown {
    this.#tasks.set(this.#next, { at: this.now + ms, fn });
    return this.#next++;
  }
  setInterval(fn: () => void, ms: number): unknown {
    this.#tasks.set(this.#next, { at: this.now + ms, fn, every: ms });
    return this.#next++;
  }
  clearTimeout(handle: unknown): void {
    this.#tasks.delete(handle as number);
  }
  clearInterval(handle: unknown): void {
    this.#tasks.delete(handle as number);
  }
  get pending(): number {
    return this.#tasks.size;
  }
  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      let due: [number, { at: number; fn: () => void; every?: number }] | undefined;
      for (const entry of this.#tasks) if (!due || entry[1].at < due[1].at) due = entry;
      if (!due || due[1].at > end) break;
      const [id, task] = due;
      this.now = task.at;
      if (task.every === undefined) this.#tasks.delete(id);
      else task.at += task.every;
      task.fn();
      await settle();
    }
    this.now = end;
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** A port as the kernel gives it: `onopen` after the handler, `onclose` once at the end. */
function fakePort(options: { gone?: boolean } = {}) {
  const sent: string[] = [];
  const state = { closed: false, gone: options.gone ?? false };
  const port: SsePort = {
    onopen: null,
    onclose: null,
    send(ev) {
      if (state.gone) throw new Error("stream gone");
      sent.push(ev.data);
    },
    close() {
      if (state.closed) return;
      state.closed = true;
      port.onclose?.();
    },
  };
  return { port, sent, state };
}

function setup(limits: Partial<{ perContext: number; total: number }> = {}) {
  const timers = new FakeTimers();
  const settings: { current: Inspection } = {
    current: { ok: true, enabled: true, snapshot: "a" },
  };
  let reads = 0;
  let sweeps = 0;
  const streams = new ListChangedStreams({
    inspect: async () => {
      reads += 1;
      return settings.current;
    },
    timers,
    beforeCheck: () => {
      sweeps += 1;
    },
    limits,
  });
  /** Opens a stream and, when admitted, lets the kernel open its port. */
  const open = async (context = "ctx", session = "s1", port = fakePort()) => {
    const refusal = await streams.open(context, session, port.port);
    if (refusal === undefined) port.port.onopen?.();
    return { refusal, ...port };
  };
  return {
    timers,
    settings,
    streams,
    open,
    reads: () => reads,
    sweeps: () => sweeps,
  };
}

describe("ListChangedStreams", () => {
  it("sends one invalidation when a stream opens, then only when the snapshot changes", async () => {
    const t = setup();
    const s = await t.open();
    expect(s.refusal).toBeUndefined();
    expect(s.sent).toEqual([LIST_CHANGED_EVENT]);
    await t.timers.advance(SSE_CHECK_INTERVAL_MS);
    expect(t.streams.counts()).toEqual({ sseStreams: 1, sseChecks: 1, sseNotifications: 1 });
    expect(s.sent).toHaveLength(1);
    t.settings.current = { ok: true, enabled: true, snapshot: "b" };
    await t.timers.advance(SSE_CHECK_INTERVAL_MS);
    expect(s.sent).toHaveLength(2);
    await t.timers.advance(3 * SSE_CHECK_INTERVAL_MS);
    expect(s.sent).toHaveLength(2);
    expect(t.streams.counts()).toEqual({ sseStreams: 1, sseChecks: 5, sseNotifications: 2 });
  });

  it("reads the settings once per check for all streams, and each stream coalesces on its own snapshot", async () => {
    const t = setup();
    const first = await t.open("ctx", "s1");
    t.settings.current = { ok: true, enabled: true, snapshot: "b" };
    const second = await t.open("ctx", "s2"); // opened under "b"
    const before = t.reads();
    await t.timers.advance(SSE_CHECK_INTERVAL_MS);
    expect(t.reads() - before).toBe(1);
    expect(first.sent).toHaveLength(2);
    expect(second.sent).toHaveLength(1);
    expect(t.sweeps()).toBe(1);
  });

  it("checks only while a stream is open", async () => {
    const t = setup();
    await t.timers.advance(3 * SSE_CHECK_INTERVAL_MS);
    expect(t.reads()).toBe(0);
    const s = await t.open();
    s.port.close(); // the client leaves
    expect(t.streams.counts().sseStreams).toBe(0);
    expect(t.timers.pending).toBe(0);
    await t.timers.advance(3 * SSE_CHECK_INTERVAL_MS);
    expect(t.streams.counts().sseChecks).toBe(0);
  });

  it("allows 4 streams per authentication context and 64 in all, refusing with 429 and 503", async () => {
    const t = setup();
    for (let i = 0; i < SSE_MAX_PER_CONTEXT; i++) {
      expect((await t.open("ctx", `s${i}`)).refusal).toBeUndefined();
    }
    expect((await t.open("ctx", "s9")).refusal).toMatchObject({
      status: 429,
      code: "too_many_streams",
    });
    for (let c = 1; t.streams.counts().sseStreams < SSE_MAX_TOTAL; c++) {
      expect((await t.open(`ctx${Math.ceil(c / 4)}`, `x${c}`)).refusal).toBeUndefined();
    }
    expect((await t.open("other", "y")).refusal).toMatchObject({
      status: 503,
      code: "too_many_streams",
    });
    // a place freed is a place again
    t.streams.closeSession("s0");
    expect((await t.open("ctx", "s0")).refusal).toBeUndefined();
  });

  it("counts the limit at registration, so two opens racing for the last place do not both get it", async () => {
    const t = setup({ perContext: 1 });
    const [a, b] = await Promise.all([t.open("ctx", "s1"), t.open("ctx", "s2")]);
    expect([a.refusal, b.refusal].filter((r) => r === undefined)).toHaveLength(1);
  });

  it("closes a stream after 10 minutes", async () => {
    const t = setup();
    const s = await t.open();
    await t.timers.advance(SSE_MAX_AGE_MS - 1);
    expect(s.state.closed).toBe(false);
    await t.timers.advance(1);
    expect(s.state.closed).toBe(true);
    expect(t.streams.counts().sseStreams).toBe(0);
  });

  it("closes every stream when the endpoint is turned off or the settings cannot be read, and refuses new ones", async () => {
    for (const current of [
      { ok: true, enabled: false, snapshot: "off" },
      { ok: false, reason: "not JSON" },
    ] satisfies Inspection[]) {
      const t = setup();
      const s = [await t.open("ctx", "s1"), await t.open("ctx", "s2")];
      t.settings.current = current;
      await t.timers.advance(SSE_CHECK_INTERVAL_MS);
      expect(s.map((x) => x.state.closed)).toEqual([true, true]);
      expect(s.map((x) => x.sent.length)).toEqual([1, 1]);
      expect((await t.open()).refusal).toMatchObject({
        status: 503,
        code: current.ok ? "kernel_endpoint_disabled" : "settings_invalid",
      });
    }
  });

  it("treats a settings read that throws as an inspection failure", async () => {
    const timers = new FakeTimers();
    const streams = new ListChangedStreams({
      inspect: () => Promise.reject(new Error("storage down")),
      timers,
    });
    expect(await streams.open("ctx", "s", fakePort().port)).toMatchObject({
      status: 503,
      code: "settings_invalid",
      message: expect.stringContaining("storage down"),
    });
  });

  it("closes the streams of a session when the session table closes it: idle expiry is swept at each check", async () => {
    const timers = new FakeTimers();
    // a short idle time that ends between two checks; the table's own default is 30 minutes
    const table = new LegacySessionTable<{ close(): Promise<void> }>(
      { now: () => timers.now },
      2 * 60_000 + SSE_CHECK_INTERVAL_MS / 2,
    );
    const streams = new ListChangedStreams({
      inspect: async () => ({ ok: true, enabled: true, snapshot: "a" }),
      timers,
      beforeCheck: () => table.sweep(),
    });
    // main.ts: a session's transport closing (DELETE, expiry, eviction) closes its streams
    const session = (id: string) => ({
      close: async () => {
        streams.closeSession(id);
      },
    });
    table.add("s1", session("s1"));
    table.add("s2", session("s2"));
    const one = fakePort();
    const two = fakePort();
    await streams.open("ctx", "s1", one.port);
    await streams.open("ctx", "s2", two.port);
    for (let m = 0; m < 2; m++) {
      await timers.advance(60_000);
      table.touch("s2");
    }
    expect(one.state.closed).toBe(false); // not idle long enough yet
    await timers.advance(SSE_CHECK_INTERVAL_MS);
    expect(one.state.closed).toBe(true);
    expect(two.state.closed).toBe(false);
    expect(streams.counts().sseStreams).toBe(1);
  });

  it("drops a stream whose send fails, and closes all on closeAll", async () => {
    const t = setup();
    const gone = await t.open("ctx", "s1", fakePort({ gone: true }));
    expect(gone.refusal).toBeUndefined();
    expect(t.streams.counts()).toMatchObject({ sseStreams: 0, sseNotifications: 0 });
    const a = await t.open("ctx", "s2");
    const b = await t.open("ctx", "s3");
    t.streams.closeAll();
    expect([a.state.closed, b.state.closed]).toEqual([true, true]);
    expect(t.timers.pending).toBe(0);
  });
});

function request(
  options: { path?: string; method?: string; session?: string; port?: SsePort } = {},
): PluginRequest {
  const headers: Record<string, string[]> = { Accept: ["text/event-stream"] };
  if (options.session !== undefined) headers["Mcp-Session-Id"] = [options.session];
  return {
    url: { host: "127.0.0.1", path: `/plugin/private/p${options.path ?? "/mcp"}`, search: "" },
    request: {
      method: options.method ?? "GET",
      headers,
      contentType: "",
      contentLength: -1,
      body: { data: null },
    },
    context: { path: options.path ?? "/mcp" },
    port: options.port ?? fakePort().port,
  };
}

describe("serveStream (the es slot)", () => {
  const refusalOf = async (req: PluginRequest, gate: Parameters<typeof serveStream>[1]) => {
    try {
      await serveStream(req, gate);
      return undefined;
    } catch (e) {
      expect(e).toBeInstanceOf(StreamRefused);
      return (e as StreamRefused).refusal;
    }
  };

  it("opens GET /mcp of a live session on a parallel host, and refuses everything else by status", async () => {
    const t = setup();
    const gate = {
      parallel: true,
      streams: t.streams as ListChangedStreams | undefined,
      context: "kernel",
      session: (id: string) => id === "live",
      origin: (): "pass" | "refused" | Promise<boolean> => "pass",
    };
    const port = fakePort();
    expect(await refusalOf(request({ session: "live", port: port.port }), gate)).toBeUndefined();
    expect(t.streams.counts().sseStreams).toBe(1);
    const cases: Array<[PluginRequest, typeof gate, number]> = [
      [request({ path: "/tasks", session: "live" }), gate, 404],
      [request({ method: "POST", session: "live" }), gate, 406],
      [request({ session: "live" }), { ...gate, parallel: false }, 405],
      [request({ session: "live" }), { ...gate, streams: undefined }, 503],
      [request({}), gate, 400],
      [request({ session: "gone" }), gate, 404],
      [request({ session: "live" }), { ...gate, origin: () => "refused" as const }, 403],
      [request({ session: "live" }), { ...gate, origin: () => Promise.resolve(true) }, 403],
    ];
    for (const [req, g, status] of cases) {
      expect((await refusalOf(req, g))?.status).toBe(status);
    }
    // decided without the settings: thrown at once (SiYuan 3.7.3 reports a rejection without its message)
    expect(() => serveStream(request({ session: "live" }), { ...gate, parallel: false })).toThrow(
      /^405 method_not_allowed: /,
    );
    // a foreign Origin needs the settings read: the refusal comes as a rejection
    const err = await serveStream(request({ session: "live" }), {
      ...gate,
      origin: () => Promise.resolve(true),
    })?.catch((e: unknown) => e as Error);
    expect(String(err)).toMatch(/^StreamRefused: 403 origin_not_allowed: /);
  });
});

describe("kernelInspection", () => {
  const storageWith = (text: string | undefined): PluginStorage => ({
    get: async () => {
      if (text === undefined) throw new Error("open settings.json: no such file or directory");
      return { text: () => text };
    },
    put: async () => undefined,
    remove: async () => undefined,
    list: async () => [],
  });
  const inspect = (settings: unknown) =>
    kernelInspection(
      storageWith(typeof settings === "string" ? settings : JSON.stringify(settings)),
    )();

  it("reads the access fingerprint: tools and permissions change it, kernel options do not", async () => {
    expect(await kernelInspection(storageWith(undefined))()).toMatchObject({
      ok: true,
      enabled: false,
    });
    const base = await inspect({ kernelEndpointEnabled: true });
    expect(base).toMatchObject({ ok: true, enabled: true });
    const snap = (i: Inspection) => (i.ok ? i.snapshot : "");
    expect(snap(await inspect({ kernelEndpointEnabled: true, disabled: ["fs"] }))).not.toBe(
      snap(base),
    );
    expect(
      snap(await inspect({ kernelEndpointEnabled: true, permissions: { default: "read" } })),
    ).not.toBe(snap(base));
    expect(snap(await inspect({ kernelEndpointEnabled: true, options: { pageSize: 8 } }))).toBe(
      snap(base),
    );
    expect(await inspect("{not json")).toMatchObject({ ok: false });
  });
});

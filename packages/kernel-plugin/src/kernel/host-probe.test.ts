import type { KernelFetchClient, KernelFetchReply } from "@sisyphus/siyuan-api/kernel";
import { describe, expect, it } from "vitest";
import { HostProbe, PROBE_PATH } from "./host-probe.js";
import type { PluginRequest, PluginResponse } from "./runtime-globals.js";

const ROUTE = "/plugin/private/p";

/** A hold timer the test fires by hand. */
function manualTimer() {
  const t = {
    due: undefined as (() => void) | undefined,
    setTimeout(fn: () => void) {
      t.due = fn;
      return 1;
    },
    clearTimeout() {
      t.due = undefined;
    },
  };
  return t;
}

function request(path: string, method: string, body: string): PluginRequest {
  return {
    url: { host: "127.0.0.1", path: `${ROUTE}${path}`, search: "" },
    request: {
      method,
      headers: {},
      contentType: "",
      contentLength: body.length,
      body: { data: { text: async () => body, arrayBuffer: async () => new ArrayBuffer(0) } },
    },
    context: { path },
  };
}

function reply(res: PluginResponse): KernelFetchReply {
  const text = (res.body as { raw?: { data: string } } | undefined)?.raw?.data ?? "";
  return {
    ok: res.statusCode < 300,
    status: res.statusCode,
    text: () => text,
    json: () => JSON.parse(text) as unknown,
    arrayBuffer: () => new ArrayBuffer(0),
  };
}

/**
 * `siyuan.client` looped back to the probe's own route: requests to one path run at once, or
 * one at a time as SiYuan 3.7.3's per-path mutex runs them.
 */
function loopback(probe: () => HostProbe, serialise: boolean): KernelFetchClient {
  let lock: Promise<unknown> = Promise.resolve();
  return {
    fetch(path, init) {
      expect(path).toBe(`${ROUTE}${PROBE_PATH}`);
      const run = () =>
        probe()
          .answer(request(PROBE_PATH, init.method, String(init.body)))
          .then(reply);
      if (!serialise) return run();
      const answer = lock.then(run);
      lock = answer.catch(() => undefined);
      return answer;
    },
  };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

describe("HostProbe", () => {
  it("finds a host that runs two requests to one path at once", async () => {
    const timer = manualTimer();
    const probe: HostProbe = new HostProbe({
      client: loopback(() => probe, false),
      route: ROUTE,
      nonce: "n",
      timers: timer,
    });
    expect(probe.counts()).toEqual({ hostProbed: false, hostParallel: false });
    expect(await probe.run()).toBe("parallel");
    expect(probe.parallel).toBe(true);
    expect(probe.counts()).toEqual({ hostProbed: true, hostParallel: true });
    expect(timer.due).toBeUndefined(); // the hold ended when the second arrived
  });

  it("finds a host that serialises the path: the second waits until the hold runs out", async () => {
    const timer = manualTimer();
    const probe: HostProbe = new HostProbe({
      client: loopback(() => probe, true),
      route: ROUTE,
      nonce: "n",
      timers: timer,
    });
    const run = probe.run();
    await settle();
    expect(timer.due).toBeDefined(); // the first is held, the second queued behind it
    expect(probe.parallel).toBe(false); // until the probe answers: serialising
    timer.due?.();
    expect(await run).toBe("serialising");
    expect(probe.counts()).toEqual({ hostProbed: true, hostParallel: false });
  });

  it("counts the host serialising when the probe cannot reach its route", async () => {
    const probe = new HostProbe({
      client: {
        fetch: async () => reply({ statusCode: 503, body: {} }),
      },
      route: ROUTE,
      nonce: "n",
      timers: manualTimer(),
    });
    await expect(probe.run()).rejects.toThrow(/503/);
    expect(probe.kind).toBe("unknown");
    expect(probe.counts()).toEqual({ hostProbed: true, hostParallel: false });
  });

  it("answers a caller without the nonce as if the path did not exist", async () => {
    const probe = new HostProbe({
      client: { fetch: async () => reply({ statusCode: 500 }) },
      route: ROUTE,
      nonce: "secret",
      timers: manualTimer(),
    });
    for (const body of ["", "{}", JSON.stringify({ nonce: "guess", role: "hold" })]) {
      expect((await probe.answer(request(PROBE_PATH, "POST", body))).statusCode).toBe(404);
    }
    const second = await probe.answer(
      request(PROBE_PATH, "POST", JSON.stringify({ nonce: "secret", role: "second" })),
    );
    expect(reply(second).json()).toEqual({ held: false });
  });
});

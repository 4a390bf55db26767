/**
 * Whether the host runs two requests to one plugin path at the same time. SiYuan 3.7.3 does not:
 * its per-path mutex (contract §1.4, §8.6) takes requests to one exact path one at a time, so an
 * open GET stream on `/mcp` would hold every POST to it. The runtime has no API that says which
 * kind of host this is, so the plugin asks its own route: two overlapping POSTs to
 * {@link PROBE_PATH} through `siyuan.client.fetch` (loopback, through the same middleware as any
 * caller, contract §9). The first is held until the second arrives or {@link PROBE_HOLD_MS} pass;
 * the second is sent only once the first is being handled, so it arrives during the hold only on
 * a host that lets two requests to one path run at once. The mutex is one rule keyed by the exact
 * path whose exemptions go by the last segment; neither `host-probe` nor `mcp` is exempt, so the
 * answer for the probe's path is the answer for `/mcp`. Until the probe answers, and when it
 * fails, the host counts as serialising: the side on which nothing can block.
 */
import type { KernelFetchClient } from "@sisyphus/siyuan-api/kernel";
import { jsonResponse } from "./http-bridge.js";
import type { PluginRequest, PluginResponse, RuntimeTimers } from "./runtime-globals.js";

/** The probe's path on the plugin's route. */
export const PROBE_PATH = "/host-probe";

/**
 * How long the first probe request waits for the second. On a parallel host the second needs one
 * loopback request; a miss only leaves the host counted as serialising.
 */
export const PROBE_HOLD_MS = 1_000;

/** What the probe found: not yet asked (or failed), serialising, or parallel. */
export type HostKind = "unknown" | "serialising" | "parallel";

/** What the probe needs. */
export interface HostProbeOptions {
  /** `siyuan.client`: loopback requests to the kernel. */
  readonly client: KernelFetchClient;
  /** The plugin's route, `/plugin/private/<name>`. */
  readonly route: string;
  /** A random value only this plugin instance knows: callers that lack it cannot take part. */
  readonly nonce: string;
  readonly timers: Pick<RuntimeTimers, "setTimeout" | "clearTimeout">;
  readonly holdMs?: number;
}

/** The probe of one plugin start: {@link run} once, {@link answer} the probe path. */
export class HostProbe {
  readonly #opts: HostProbeOptions;
  #kind: HostKind = "unknown";
  #probed = false;
  /** The held first request: `second()` lets it answer that the host is parallel. */
  #held: { second(): void } | undefined;
  #firstArrived: (() => void) | undefined;

  constructor(options: HostProbeOptions) {
    this.#opts = options;
  }

  /** True only once the probe has shown that requests to one path run in parallel. */
  get parallel(): boolean {
    return this.#kind === "parallel";
  }

  /** The probe's finding so far. */
  get kind(): HostKind {
    return this.#kind;
  }

  /** `/health` numbers: whether the probe has answered, and whether the host is parallel. */
  counts(): { hostProbed: boolean; hostParallel: boolean } {
    return { hostProbed: this.#probed, hostParallel: this.parallel };
  }

  /** Sends the two overlapping requests; a failure (thrown) leaves the host counted serialising. */
  async run(): Promise<HostKind> {
    try {
      this.#kind = (await this.#ask()) ? "parallel" : "serialising";
      return this.#kind;
    } finally {
      this.#probed = true;
    }
  }

  async #ask(): Promise<boolean> {
    const post = (role: "hold" | "second") =>
      this.#opts.client.fetch(`${this.#opts.route}${PROBE_PATH}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ nonce: this.#opts.nonce, role }),
      });
    const arrived = new Promise<boolean>((resolve) => {
      this.#firstArrived = () => resolve(true);
    });
    const first = post("hold");
    const handled = await Promise.race([
      arrived,
      first.then(
        () => false,
        () => false,
      ),
    ]);
    this.#firstArrived = undefined;
    if (!handled) {
      const reply = await first;
      throw new Error(`the probe request was answered ${reply.status} without reaching the plugin`);
    }
    // Only the first answer carries the verdict; the second is awaited so none is left behind.
    const second = post("second").then(
      () => undefined,
      () => undefined,
    );
    const reply = await first;
    await second;
    if (reply.status !== 200) throw new Error(`the probe request was answered ${reply.status}`);
    const body = (await reply.json()) as { parallel?: unknown };
    if (typeof body.parallel !== "boolean") throw new Error("the probe answer has no verdict");
    return body.parallel;
  }

  /** Serves {@link PROBE_PATH}: a request without this instance's nonce is answered as unknown. */
  async answer(req: PluginRequest): Promise<PluginResponse> {
    let body: { nonce?: unknown; role?: unknown } = {};
    try {
      body = JSON.parse((await req.request.body.data?.text()) ?? "") as typeof body;
    } catch {
      // not JSON: no nonce
    }
    if (req.request.method !== "POST" || body.nonce !== this.#opts.nonce) {
      return jsonResponse(404, { error: "not_found" });
    }
    if (body.role === "second") {
      const held = this.#held;
      held?.second();
      return jsonResponse(200, { held: held !== undefined });
    }
    if (body.role !== "hold" || this.#held !== undefined) {
      return jsonResponse(409, { error: "probe_conflict" });
    }
    return new Promise<PluginResponse>((resolve) => {
      const { timers } = this.#opts;
      const finish = (parallel: boolean) => {
        timers.clearTimeout(timer);
        this.#held = undefined;
        resolve(jsonResponse(200, { parallel }));
      };
      const timer = timers.setTimeout(() => finish(false), this.#opts.holdMs ?? PROBE_HOLD_MS);
      this.#held = { second: () => finish(true) };
      this.#firstArrived?.();
    });
  }
}

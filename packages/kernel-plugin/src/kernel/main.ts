/**
 * `kernel.js`: Sisyphus inside the SiYuan kernel (goja, contract Part 2) — the kernel authority.
 * On `onload` it opens the durable stores on `siyuan.storage`, builds the one write coordinator
 * and the tool runtime over `siyuan.client`, and serves MCP at
 * `/plugin/private/siyuan-plugins-mcp-sisyphus/mcp` with the same SDK, tools, help and rules as
 * the Node server. Bundled by `scripts/build.mjs` into one classic script at goja's language level.
 */
import "./polyfills.js";
import { createToolRuntime, kernelFromClient, type ToolRuntime } from "@sisyphus/mcp-tools";
import {
  Admission,
  type AuthorityEndpoint,
  authorityHealth,
  createAuthorityEndpoint,
  createAuthorityServer,
  TASK_CONTROL_EXTENSION,
  TASK_CONTROL_VERSION,
} from "@sisyphus/mcp-tools/shell";
import { createSiyuanClient, kernelFetchTransport } from "@sisyphus/siyuan-api/kernel";
import { createWriteCoordinator, systemClock, type WriteCoordinator } from "@sisyphus/write-safety";
import { SegmentLedgerStore, SegmentReservationStore } from "../stores/index.js";
import { HostProbe, PROBE_PATH } from "./host-probe.js";
import { fromWebResponse, jsonResponse, parsedJsonBody, toWebRequest } from "./http-bridge.js";
import { monotonicFromWall } from "./monotonic.js";
import { mathRandomSource, randomHex } from "./random.js";
import { runtimeTimers, siyuanGlobal } from "./runtime-globals.js";
import { currentAccess, originCheck, originRefused, readKernelSettings } from "./settings.js";
import { kernelInspection, ListChangedStreams, serveStream } from "./sse.js";
import { TaskBook } from "./tasks.js";
import { serveTransfer, staging, stagingCounts } from "./transfer-routes.js";

/** Directories of the durable stores inside the plugin's storage folder. */
const LEDGER_DIR = "ledger";
const RESERVATIONS_DIR = "reservations";

/**
 * The authenticated context confirmations are bound to. The kernel's route guard authenticates
 * every caller (API token or plugin JWT) and removes `Authorization` before the plugin sees the
 * request (contract §8.2), so the plugin knows one context: callers the kernel admitted.
 */
const KERNEL_PRINCIPAL = "siyuan-kernel";

/**
 * How often the monotonic clock reads the wall clock, in milliseconds: a backwards step is
 * absorbed within this interval instead of being netted against the progress that follows it.
 */
const MONOTONIC_SAMPLE_MS = 1000;

interface Authority {
  readonly epoch: string;
  readonly coordinator: WriteCoordinator;
  readonly runtime: ToolRuntime;
  /** The gateway's admission gate: calls in flight, reads running, queued and cancelled. */
  readonly admission: Admission;
  /** `/mcp`, modern and legacy (`@sisyphus/mcp-tools/shell`, shared with the Node server). */
  readonly endpoint: AuthorityEndpoint;
  /** The call records of `/tasks`. */
  readonly tasks: TaskBook;
  /** Legacy `tools/list_changed` streams (hosts that do not serialise paths only). */
  readonly streams: ListChangedStreams;
  close(): Promise<void>;
}

let authority: Authority | undefined;
/** Requests being answered: an unload lets them finish before the MCP handler closes. */
const answering = new Set<Promise<unknown>>();

async function open(): Promise<Authority> {
  const sy = siyuanGlobal();
  const epoch = `${Date.now().toString(36)}-${randomHex(12)}`;
  // `siyuan.storage`, rooted at data/storage/petal/<plugin>/ (contract §10).
  const storage = sy.storage;
  // Strict Safe Writes is read once, here: leases this runtime issues keep their meaning until it
  // reloads. Unusable settings keep it on.
  const atLoad = await readKernelSettings(storage);
  const strict = !atLoad.ok || atLoad.settings.strictSafeWrites;
  const monotonic = monotonicFromWall();
  const sample = setInterval(() => monotonic.now(), MONOTONIC_SAMPLE_MS);
  const coordinator = await createWriteCoordinator({
    clock: systemClock,
    // Lease expiry on a clock that never goes backwards: a wall-clock step back cannot keep a
    // lease alive (goja has no performance.now; see monotonic.ts for the residual).
    monotonic,
    random: mathRandomSource,
    epoch,
    ledgerStore: await SegmentLedgerStore.open(storage, { dir: LEDGER_DIR }),
    reservationStore: await SegmentReservationStore.open(storage, { dir: RESERVATIONS_DIR }),
    strict,
  });
  const client = createSiyuanClient({ transport: kernelFetchTransport(sy.client) });
  const runtime = createToolRuntime({
    client,
    coordinator,
    config: { strict, authority: { kind: "kernel", epoch } },
    // file.upload_asset reads staged handles only: the kernel cannot see the caller's files.
    sources: {
      read: async (ref) => {
        if (!("uploadSource" in ref)) {
          return {
            error: "source_unavailable",
            message:
              "the kernel cannot read localFilePath: stage the file (the Sisyphus Node server or CLI does it, or POST it to transfer/upload) and pass uploadSource",
          };
        }
        const staged = staging.get(ref.uploadSource);
        return staged === undefined
          ? {
              error: "not_found",
              message: `no staged file ${ref.uploadSource}: handles last 10 minutes and a plugin reload clears them; stage the file again`,
            }
          : { bytes: staged.bytes, fileName: staged.fileName, sha256: staged.sha256 };
      },
    },
  });
  // The server the Node authority builds too: the gateway (admission, the commit's checks before
  // anybody is asked, confirmation, the runtime), one settings read per call, every tool through
  // this plugin's task records.
  const admission = new Admission();
  const tasks = new TaskBook(systemClock);
  const server = createAuthorityServer({
    runtime,
    admission,
    role: { kind: "local", epoch },
    random: mathRandomSource,
    settings: {
      read: () => readKernelSettings(storage),
      strictCallsNeed: { kind: "kernel-plugin" },
    },
    kernelReads: kernelFromClient(client).reads,
    principal: KERNEL_PRINCIPAL,
    // JSON answers: a legacy caller confirms with `confirm: true` (the spec's legacy convention).
    serverRequests: false,
    route: (gateway) => tasks.route(gateway),
    capabilities: { experimental: { [TASK_CONTROL_EXTENSION]: { version: TASK_CONTROL_VERSION } } },
  });
  const streams = new ListChangedStreams({
    inspect: kernelInspection(storage),
    timers: runtimeTimers,
    beforeCheck: () => endpoint.sweepSessions(),
  });
  // One JSON answer per request in both eras: the route cannot stream (contract §8.3).
  const endpoint = createAuthorityEndpoint({
    server,
    responseMode: "json",
    clock: systemClock,
    // `listChanged` for legacy sessions on a host where the probe found parallel paths (`sse.ts`).
    legacyListChanged: () => probe.parallel,
    onSessionClosed: (id) => streams.closeSession(id),
  });
  return {
    epoch,
    coordinator,
    runtime,
    admission,
    endpoint,
    tasks,
    streams,
    async close() {
      clearInterval(sample);
      streams.closeAll();
      await endpoint.close();
    },
  };
}

const sy = siyuanGlobal();
/** Whether this host serialises requests per plugin path (`host-probe.ts`); run once running. */
const probe = new HostProbe({
  client: sy.client,
  route: `/plugin/private/${sy.plugin.name}`,
  nonce: randomHex(32),
  timers: runtimeTimers,
});

sy.plugin.lifecycle.onload = async () => {
  authority = await open();
  sy.logger.info(`Sisyphus kernel authority ${authority.epoch} serving`);
};

// The probe needs the route, which answers only once the plugin is running; not awaited.
sy.plugin.lifecycle.onrunning = () => {
  void probe.run().then(
    (kind) => sy.logger.info(`host paths: ${kind}`),
    (e: unknown) => sy.logger.error(`host probe failed, paths counted serialising: ${String(e)}`),
  );
};

sy.plugin.lifecycle.onunload = async () => {
  const a = authority;
  authority = undefined;
  if (a === undefined) return;
  // Committing writes finish (their ledger records are written), and their answers are sent,
  // before the runtime goes away; the host already refuses new requests (503) while stopping.
  await a.coordinator.drain();
  await Promise.allSettled([...answering]);
  await a.close();
  staging.clear();
};

sy.server.private.http.handler = async (req) => {
  if (req.context.path === PROBE_PATH) return probe.answer(req);
  const a = authority;
  if (a === undefined) return jsonResponse(503, { error: "not_ready" });
  if (await originRefused(req.request.headers, sy.storage)) {
    return jsonResponse(403, { error: "origin_not_allowed" });
  }
  const path = req.context.path;
  if (path === "/health") {
    if (req.request.method !== "GET") return jsonResponse(405, { error: "method_not_allowed" });
    const lane = a.coordinator.health();
    return jsonResponse(
      200,
      authorityHealth({
        authority: "kernel",
        strict: lane.strict,
        draining: lane.draining,
        admission: a.admission.counts(),
        lane,
        legacySessions: a.endpoint.legacySessions(),
        readBudget: a.runtime.readBudgetCounts(),
        more: { ...a.tasks.counts(), ...stagingCounts(), ...a.streams.counts(), ...probe.counts() },
      }),
    );
  }
  if (path === "/tasks") {
    if (req.request.method !== "POST") return jsonResponse(405, { error: "method_not_allowed" });
    let body: { taskId?: unknown; operation?: unknown } | null;
    try {
      body = JSON.parse((await req.request.body.data?.text()) ?? "") as typeof body;
    } catch {
      return jsonResponse(400, { error: "invalid_json" });
    }
    // Any JSON value parses; only an object names a task (reading a field of `null` threw: a 500).
    if (typeof body !== "object" || body === null) {
      return jsonResponse(400, { error: "invalid_json" });
    }
    const answer = a.tasks.operate(
      body.taskId,
      body.operation,
      body.operation === "result" ? await currentAccess(sy.storage) : undefined,
    );
    return jsonResponse(
      "error" in answer && answer["error"] === "invalid_operation" ? 400 : 200,
      answer,
    );
  }
  if (path.startsWith("/transfer/")) return serveTransfer(req, path, a.coordinator.aliases);
  if (path === "/mcp") {
    // A GET streams only through the `es` slot (`Accept` exactly `text/event-stream`, sse.ts),
    // and only where the host does not serialise the path; here 405, as SiYuan's own /mcp answers.
    if (req.request.method === "GET") return jsonResponse(405, { error: "method_not_allowed" });
    const answer = toWebRequest(req)
      .then(async (r) =>
        a.endpoint.fetch(r, r.method === "POST" ? { parsedBody: await parsedJsonBody(r) } : {}),
      )
      .then(fromWebResponse);
    answering.add(answer);
    try {
      return await answer;
    } finally {
      answering.delete(answer);
    }
  }
  return jsonResponse(404, { error: "not_found" });
};

// `Accept` exactly `text/event-stream` (contract §8.1): the legacy tool notification stream.
sy.server.private.es.handler = (req) =>
  serveStream(req, {
    parallel: probe.parallel,
    streams: authority?.streams,
    context: KERNEL_PRINCIPAL,
    session: (id) => authority?.endpoint.hasSession(id) ?? false,
    origin: () => originCheck(req.request.headers, sy.storage),
    logRefusal: (text) => sy.logger.warn(text),
  });

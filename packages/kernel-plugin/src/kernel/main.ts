/**
 * `kernel.js`: Sisyphus inside the SiYuan kernel (goja, contract Part 2) — the kernel authority.
 * On `onload` it opens the durable stores on `siyuan.storage`, builds the one write coordinator
 * and the tool runtime over `siyuan.client`, and serves MCP at
 * `/plugin/private/siyuan-plugins-mcp-sisyphus/mcp` with the same SDK, tools, help and rules as
 * the Node server. Bundled by `scripts/build.mjs` into one classic script at goja's language level.
 */
import "./polyfills.js";
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import {
  createToolRuntime,
  kernelFromClient,
  registerApp,
  registerSkillResources,
  registerToolListing,
  registerTools,
  SERVER_INSTRUCTIONS,
  SISYPHUS_VERSION,
  type ToolRuntime,
} from "@sisyphus/mcp-tools";
import {
  Admission,
  type AdmissionCounts,
  ConfirmationBook,
  createGateway,
  type GatewayConnection,
  LegacySessionTable,
  shellError,
} from "@sisyphus/mcp-tools/shell";
import { createSiyuanClient, kernelFetchTransport } from "@sisyphus/siyuan-api/kernel";
import { createWriteCoordinator, systemClock, type WriteCoordinator } from "@sisyphus/write-safety";
import { SegmentLedgerStore, SegmentReservationStore } from "../stores/index.js";
import { HostProbe, PROBE_PATH } from "./host-probe.js";
import { fromWebResponse, jsonResponse, parsedJsonBody, toWebRequest } from "./http-bridge.js";
import { monotonicFromWall } from "./monotonic.js";
import { mathRandomSource, randomHex } from "./random.js";
import { runtimeTimers, siyuanGlobal } from "./runtime-globals.js";
import {
  currentAccess,
  kernelSettingsSnapshot,
  kernelToolListing,
  originCheck,
  originRefused,
  readKernelSettings,
} from "./settings.js";
import { kernelInspection, ListChangedStreams, serveStream } from "./sse.js";
import {
  TASK_CONTROL_EXTENSION,
  TASK_CONTROL_VERSION,
  TASK_ID_META_KEY,
  TaskBook,
} from "./tasks.js";
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

/** How often idle legacy sessions are swept, in milliseconds. */
const LEGACY_SESSION_SWEEP_MS = 60_000;

interface Authority {
  readonly epoch: string;
  readonly coordinator: WriteCoordinator;
  readonly runtime: ToolRuntime;
  /** The gateway's admission gate: calls in flight, reads running, queued and cancelled. */
  readonly admission: Admission;
  /** Serves one `/mcp` request, modern or legacy. */
  handle(request: Request): Promise<Response>;
  /** The call records of `/tasks`. */
  readonly tasks: TaskBook;
  /** Legacy `tools/list_changed` streams (hosts that do not serialise paths only). */
  readonly streams: ListChangedStreams;
  /** Whether `id` names a live legacy session (marking it active). */
  hasSession(id: string): boolean;
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
  // The Node server's gateway: admission (128 in flight, reads 4 at a time), the commit's checks
  // before anybody is asked, confirmation, then the runtime.
  const admission = new Admission();
  const gateway = createGateway({
    runtime,
    admission,
    confirmations: new ConfirmationBook({ random: mathRandomSource }),
    role: { kind: "local", epoch },
    snapshot: kernelSettingsSnapshot(storage),
  });
  const listing = kernelToolListing(storage, runtime);
  // The MCP App's entry point: kernel reads only, admitted in the write lane, under the settings'
  // read permissions (one snapshot per call, as every call).
  const app = {
    kernel: kernelFromClient(client).reads,
    admission,
    snapshot: kernelSettingsSnapshot(storage),
  };
  // Modern clients that declare form elicitation confirm through multi-round `input_required`
  // (a result, so it fits a buffered answer). A legacy session cannot: a buffered reply cannot
  // carry a server-to-client request, so legacy callers use `confirm: true` (the spec's legacy
  // kernel convention): their elicitation capability is not offered to the gateway.
  const conn: GatewayConnection = {
    principal: KERNEL_PRINCIPAL,
    legacyCapabilities: () => undefined,
  };
  const tasks = new TaskBook(systemClock);
  /** `listChanged`: legacy sessions on a host where the probe found parallel paths (`sse.ts`). */
  const factory = (listChanged = false) => {
    const server = new McpServer(
      { name: "sisyphus", version: SISYPHUS_VERSION },
      {
        capabilities: {
          // Explicit: the SDK advertises `listChanged: true` when the capability leaves it out.
          tools: { listChanged },
          resources: { listChanged: false },
          experimental: { [TASK_CONTROL_EXTENSION]: { version: TASK_CONTROL_VERSION } },
        },
        instructions: SERVER_INSTRUCTIONS,
      },
    );
    registerTools(server, runtime, async (tool, args, ctx) => {
      const taskId = ctx.mcpReq._meta?.[TASK_ID_META_KEY];
      if (taskId === undefined) return gateway(tool, args, ctx, conn);
      const begun = tasks.begin(taskId);
      if (!begun.ok) {
        return shellError("task_rejected", `taskId refused: ${begun.reason}`, {
          reason: begun.reason,
        });
      }
      try {
        const result = await gateway(tool, args, ctx, conn, begun.control);
        tasks.finish(taskId as string, result);
        return result;
      } catch (e) {
        tasks.abandon(taskId as string);
        throw e;
      }
    });
    registerToolListing(server, listing);
    registerSkillResources(server);
    registerApp(server, app);
    return server;
  };
  // 2026-07-28: stateless, one JSON answer per request (the route cannot stream, contract §8.3).
  const modern = createMcpHandler(() => factory(), { legacy: "reject", responseMode: "json" });
  // 2025 era: sessions (`Mcp-Session-Id`, 30 minutes idle), JSON answers.
  const sessions = new LegacySessionTable<WebStandardStreamableHTTPServerTransport>(systemClock);
  const sweep = setInterval(() => sessions.sweep(), LEGACY_SESSION_SWEEP_MS);
  const streams = new ListChangedStreams({
    inspect: kernelInspection(storage),
    timers: runtimeTimers,
    beforeCheck: () => sessions.sweep(),
  });

  /**
   * Session requests a `notifications/cancelled` named, by session and JSON-RPC ID (type-sensitive:
   * `JSON.stringify` of the ID). The SDK drops the answer of a cancelled request, and a JSON answer
   * (this route cannot stream) waits for every answer of its POST, so without this the POST would
   * never be answered and the plugin's route would hold it for ever.
   */
  const cancelWaiters = new Map<string, () => void>();

  async function inSession(sid: string, request: Request): Promise<Response> {
    const transport = sessions.touch(sid);
    if (transport === undefined) return rpcError(404, -32001, "Session not found");
    // Parsed once, here, for the cancellation bookkeeping and the transport alike.
    const body = await parsedJsonBody(request);
    const parsed = body === undefined ? undefined : { parsedBody: body };
    const message = (Array.isArray(body) ? undefined : body) as
      | { id?: unknown; method?: unknown; params?: { requestId?: unknown } }
      | undefined;
    if (message?.method === "notifications/cancelled") {
      cancelWaiters.get(`${sid}\n${JSON.stringify(message.params?.requestId)}`)?.();
    }
    if (message?.id === undefined || typeof message.method !== "string") {
      return transport.handleRequest(request, parsed);
    }
    const key = `${sid}\n${JSON.stringify(message.id)}`;
    const cancelled = new Promise<Response>((resolve) => {
      cancelWaiters.set(key, () =>
        resolve(
          Response.json({
            jsonrpc: "2.0",
            id: message.id,
            error: { code: -32800, message: "Request cancelled" },
          }),
        ),
      );
    });
    try {
      return await Promise.race([transport.handleRequest(request, parsed), cancelled]);
    } finally {
      cancelWaiters.delete(key);
    }
  }

  async function legacy(request: Request): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (id !== null) return inSession(id, request);
    const body: unknown = await request
      .clone()
      .json()
      .catch(() => undefined);
    if (request.method !== "POST" || !isInitializeRequest(body)) {
      return rpcError(400, -32000, "Bad Request: no valid Mcp-Session-Id; send initialize first");
    }
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (sid) => sessions.add(sid, transport),
      });
    transport.onclose = () => {
      if (transport.sessionId === undefined) return;
      sessions.remove(transport.sessionId);
      streams.closeSession(transport.sessionId);
    };
    await factory(probe.parallel).connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  }

  return {
    epoch,
    coordinator,
    runtime,
    admission,
    tasks,
    streams,
    hasSession: (id) => sessions.touch(id) !== undefined,
    async handle(request) {
      if (request.method !== "POST" || request.headers.get("mcp-session-id") !== null) {
        return legacy(request);
      }
      const parsedBody = await parsedJsonBody(request);
      if (await isLegacyRequest(request, parsedBody)) return legacy(request);
      return modern.fetch(request, parsedBody === undefined ? undefined : { parsedBody });
    },
    async close() {
      clearInterval(sweep);
      clearInterval(sample);
      streams.closeAll();
      await sessions.closeAll();
      await modern.close();
    },
  };
}

/** The runtime's read-budget counters as flat `/health` numbers (the Node server's names). */
function readBudgetCounters(c: {
  reads: number;
  exceededCalls: number;
  exceededBytes: number;
}): Record<string, number> {
  return {
    readBudgetReads: c.reads,
    readBudgetExceededCalls: c.exceededCalls,
    readBudgetExceededBytes: c.exceededBytes,
  };
}

/**
 * The gateway's admission counts as `/health` numbers (the Node server's names), beside the write
 * lane's own `inFlight`/`queued`/`running`: calls admitted (`callsInFlight`, preparation and
 * confirmation included), reads running and queued, and running reads already cancelled.
 */
function admissionCounters(c: AdmissionCounts): Record<string, number> {
  return {
    callsInFlight: c.inFlight,
    readsRunning: c.readsRunning,
    readsQueued: c.readsQueued,
    readsCancelledRunning: c.readsCancelledRunning,
    writesAdmitted: c.writesAdmitted,
  };
}

/** A JSON-RPC error answer with no request ID. */
function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
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
    return jsonResponse(200, {
      ok: true,
      authority: "kernel",
      ...a.coordinator.health(),
      ...admissionCounters(a.admission.counts()),
      ...a.tasks.counts(),
      ...readBudgetCounters(a.runtime.readBudgetCounts()),
      ...stagingCounts(),
      ...a.streams.counts(),
      ...probe.counts(),
    });
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
  if (path.startsWith("/transfer/")) return serveTransfer(req, path);
  if (path === "/mcp") {
    // A GET streams only through the `es` slot (`Accept` exactly `text/event-stream`, sse.ts),
    // and only where the host does not serialise the path; here 405, as SiYuan's own /mcp answers.
    if (req.request.method === "GET") return jsonResponse(405, { error: "method_not_allowed" });
    const answer = toWebRequest(req)
      .then((r) => a.handle(r))
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
    session: (id) => authority?.hasSession(id) ?? false,
    origin: () => originCheck(req.request.headers, sy.storage),
    logRefusal: (text) => sy.logger.warn(text),
  });

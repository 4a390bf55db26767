/**
 * The MCP endpoint of an authority, written once for the Node server and the kernel plugin: the
 * settings each call and each `tools/list` reads (fresh every time; how the file is read is the
 * shell's, what a read means is decided here), the server each request or session gets
 * (instructions, capabilities, every tool routed through the gateway, the listing, the skill
 * resources, the App), and `/mcp` over web `Request`/`Response`:
 * MCP 2026-07-28 stateless through the SDK's `createMcpHandler`, 2025-era traffic through sessions
 * of `WebStandardStreamableHTTPServerTransport` (idle-expired, swept, batches only where the
 * negotiated revision has them). A shell adapts its own HTTP to `fetch` (Node: `answerNode`;
 * the plugin: its route bridge) and keeps only its routes and lifecycle. Runs in goja too.
 */
import {
  type CallToolResult,
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  McpServer,
  type ServerCapabilities,
  type ServerContext,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { RandomSource } from "@sisyphus/core-hash";
import type { Clock } from "@sisyphus/write-safety";
import { APP_PREVIEW_TOOL, type AppLane, type AppOptions, registerApp } from "../app/index.js";
import {
  registerSkillResources,
  registerToolListing,
  registerTools,
  type ToolListing,
} from "../register.js";
import type { ToolRuntime } from "../runtime.js";
import type { SisyphusSettings } from "../settings.js";
import type { ToolDescriptor } from "../surface.js";
import {
  errorResult,
  shellError,
  type ToolResult,
  unusableSettingsRefusal,
} from "../tool-result.js";
import { SERVER_INSTRUCTIONS } from "../tools/system.js";
import { SISYPHUS_VERSION } from "../version.js";
import type { Admission, DrainGate } from "./admission.js";
import type { GatewayConnection } from "./confirmation.js";
import { ConfirmationBook } from "./confirmation-book.js";
import {
  FIRST_UNBATCHED_PROTOCOL_VERSION,
  LEGACY_SESSION_IDLE_MS,
  LEGACY_SESSION_SWEEP_MS,
  MAX_LEGACY_SESSIONS,
} from "./constants.js";
import { type AuthorityRole, createGateway, type SettingsSnapshot } from "./gateway.js";

/** One read of the settings file: usable settings (absent file: the defaults), or why not. */
export type SettingsRead =
  | { readonly ok: true; readonly settings: SisyphusSettings }
  /**
   * `unreachable`: the kernel did not answer; `unauthorized`: it refused the token; `invalid`: it
   * answered, but the file is not usable settings.
   */
  | {
      readonly ok: false;
      readonly reason: "unreachable" | "unauthorized" | "invalid";
      readonly message: string;
    };

/** Which write authority the settings select. */
export type SelectedAuthority = "node-http" | "kernel";

/** The write authority `settings` select (`kernelEndpointEnabled`). */
export function selectedAuthority(settings: SisyphusSettings): SelectedAuthority {
  return settings.kernelEndpointEnabled ? "kernel" : "node-http";
}

/**
 * What a strict call needs the settings to select: the kernel plugin is the authority only while
 * its endpoint is on; a Node process keeps the authority it started with until it restarts.
 */
export type StrictCallsNeed =
  | { readonly kind: "kernel-plugin" }
  | { readonly kind: "started-with"; readonly authority: SelectedAuthority };

/** Options of {@link perCallSettings}. */
export interface PerCallSettingsOptions {
  /** Reads the settings file once; never throws. */
  readonly read: () => Promise<SettingsRead>;
  readonly strictCallsNeed: StrictCallsNeed;
  /** The tools the settings leave on (`ToolRuntime.listTools`). */
  readonly listTools: (disabled: readonly string[]) => readonly ToolDescriptor[];
}

/** A call's settings snapshot and the `tools/list` of one endpoint. */
export interface PerCallSettings {
  /**
   * The gateway's snapshot: a kernel that does not answer refuses every call
   * (`kernel_unavailable`); an unusable file refuses it (`unusableSettingsRefusal`); a strict call
   * under settings that select another authority is refused (`write_coordinator_changed`, or at
   * the plugin `write_coordinator_unavailable` `kernel_endpoint_disabled`). Else the settings.
   */
  readonly snapshot: (writeClass: boolean) => Promise<SettingsSnapshot>;
  /** The tools the settings leave on; settings that cannot be read or used list every tool. */
  readonly listing: ToolListing;
}

const AUTHORITY_NAMES: Readonly<Record<SelectedAuthority, string>> = {
  kernel: "the SiYuan kernel plugin",
  "node-http": "the Node server",
};

/** The refusal of a strict call under `settings`, or `undefined` when they allow it. */
function strictRefusal(
  need: StrictCallsNeed,
  settings: SisyphusSettings,
): CallToolResult | undefined {
  const selected = selectedAuthority(settings);
  if (need.kind === "kernel-plugin") {
    if (selected === "kernel") return undefined;
    return shellError(
      "write_coordinator_unavailable",
      "The kernel endpoint is off in the Sisyphus settings, so the Node server is the write authority: send strict calls there (or turn the kernel endpoint on). Nothing was written.",
      { reason: "kernel_endpoint_disabled" },
      { writeAttempted: false },
    );
  }
  if (selected === need.authority) return undefined;
  return shellError(
    "write_coordinator_changed",
    `The settings now select ${AUTHORITY_NAMES[selected]} as the write authority; this process started with ${need.authority === "kernel" ? "the kernel plugin" : "the Node server"} and refuses strict calls until it is restarted. Nothing was written.`,
    { reason: "other_kind" },
    { writeAttempted: false },
  );
}

/** The snapshot and the listing over one way of reading the settings. */
export function perCallSettings(options: PerCallSettingsOptions): PerCallSettings {
  const { read, strictCallsNeed, listTools } = options;
  return {
    async snapshot(writeClass) {
      const r = await read();
      if (!r.ok) {
        if (r.reason !== "invalid") {
          return {
            refusal: errorResult({
              code: "kernel_unavailable",
              message: `Cannot read the Sisyphus settings: ${r.message}; nothing ran.`,
              writeAttempted: false,
            }) as CallToolResult,
          };
        }
        return { refusal: unusableSettingsRefusal(r.message, writeClass) };
      }
      const refusal = writeClass ? strictRefusal(strictCallsNeed, r.settings) : undefined;
      return refusal === undefined ? { settings: r.settings } : { refusal };
    },
    async listing() {
      const r = await read();
      return listTools(r.ok ? r.settings.disabled : []);
    },
  };
}

/** The name every Sisyphus server announces (`serverInfo.name`), with `SISYPHUS_VERSION`. */
export const SERVER_NAME = "sisyphus";

/** The gateway `createGateway` builds (a call's optional `CallControl` last). */
export type Gateway = ReturnType<typeof createGateway>;

/** One `tools/call` route of a connection: the gateway, or a wrapper around it. */
export type CallGateway = (
  tool: string,
  args: Record<string, unknown>,
  ctx: ServerContext,
  conn: GatewayConnection,
) => Promise<CallToolResult>;

/** Options of {@link createAuthorityServer}. */
export interface AuthorityServerOptions {
  readonly runtime: ToolRuntime;
  /** The process's admission gate (every transport of it shares one). */
  readonly admission: Admission;
  /** This process runs writes (`local`) or forwards them to its authority (`delegate`). */
  readonly role: AuthorityRole;
  /** The process's shutdown drain, if it has one. */
  readonly drain?: DrainGate;
  /** Makes the confirmation states' key and nonces (a CSPRNG on Node). */
  readonly random: RandomSource;
  /** How this shell reads the settings, and which authority its strict calls need them to select. */
  readonly settings: Omit<PerCallSettingsOptions, "listTools">;
  /** `GatewayOptions.snapshotBesideReads` (the Node server, whose settings read is a round trip). */
  readonly snapshotBesideReads?: boolean;
  /** The kernel's read port, for the App's preview. */
  readonly kernelReads: AppOptions["kernel"];
  /** The authenticated principal confirmations are bound to. */
  readonly principal: string;
  /**
   * Whether a legacy session can carry a server-to-client request (the confirmation's
   * elicitation): streamed answers and stdio can; JSON answers cannot, and such callers confirm
   * with `confirm: true` (their elicitation capability is not offered to the gateway).
   */
  readonly serverRequests: boolean;
  /** Wraps the gateway of every call (the kernel's task records). */
  readonly route?: (gateway: Gateway) => CallGateway;
  /** Capabilities beyond the server's own, registered on every instance (merged by the SDK). */
  readonly capabilities?: ServerCapabilities;
  /** Tools `register` adds, listed after the SiYuan tools. */
  readonly moreTools?: readonly ToolDescriptor[];
  /** The SDK's `requestState.verify` hook (it sees the shell's own confirmation states too). */
  readonly verifyRequestState?: (state: string, ctx: ServerContext) => unknown;
  /** Registers more on every instance (test builds: the conformance fixtures). */
  readonly register?: (server: McpServer) => void;
}

/**
 * The App entry point's lane: the local coordinator's, or the authority's through the link. An
 * authority without a coordinator is a programming error.
 */
function appLane(role: AuthorityRole, runtime: ToolRuntime): AppLane {
  if (role.kind === "delegate") {
    const { link } = role;
    return {
      kind: "delegate",
      forward: (args, signal) =>
        link.call(APP_PREVIEW_TOOL, args, signal, false) as Promise<ToolResult>,
    };
  }
  if (runtime.writeLane === undefined) {
    throw new TypeError("a local authority's runtime needs a coordinator (its write lane)");
  }
  return { kind: "local", run: runtime.writeLane };
}

/**
 * Builds one server instance: per modern request, per legacy session, or for stdio.
 * `listChanged`: whether it advertises `tools.listChanged` (default `false`: no list notifications).
 */
export type AuthorityServerFactory = (session?: { readonly listChanged?: boolean }) => McpServer;

/**
 * The server of an authority (or of a delegating process): one gateway, one settings snapshot per
 * call, one listing per `tools/list`, shared by every instance the factory builds.
 */
export function createAuthorityServer(options: AuthorityServerOptions): AuthorityServerFactory {
  const { runtime, admission } = options;
  const settings = perCallSettings({
    ...options.settings,
    listTools: (disabled) => runtime.listTools(disabled),
  });
  const gateway = createGateway({
    runtime,
    admission,
    confirmations: new ConfirmationBook({ random: options.random }),
    role: options.role,
    ...(options.drain === undefined ? {} : { drain: options.drain }),
    snapshot: settings.snapshot,
    ...(options.snapshotBesideReads === true ? { snapshotBesideReads: true } : {}),
  });
  const route = options.route?.(gateway) ?? gateway;
  const more = options.moreTools;
  const listing: ToolListing =
    more === undefined ? settings.listing : async () => [...(await settings.listing()), ...more];
  // The MCP App's entry point: kernel reads only, admitted as a write and run alone in the
  // coordinator's FIFO lane (a delegating process forwards it to its authority's), under the
  // settings' read permissions (one snapshot per call, as every call).
  const app: AppOptions = {
    kernel: options.kernelReads,
    admission,
    lane: appLane(options.role, runtime),
    snapshot: settings.snapshot,
  };
  const verify = options.verifyRequestState;
  return (session = {}) => {
    const server = new McpServer(
      { name: SERVER_NAME, version: SISYPHUS_VERSION },
      // The instructions go out in both eras: `server/discover` (2026-07-28) and `initialize` (2025).
      // `listChanged` stated: the SDK advertises `true` for registered tools when it is left out.
      {
        capabilities: {
          tools: { listChanged: session.listChanged ?? false },
          resources: { listChanged: false },
        },
        instructions: SERVER_INSTRUCTIONS,
        ...(verify === undefined ? {} : { requestState: { verify } }),
      },
    );
    const conn: GatewayConnection = {
      principal: options.principal,
      legacyCapabilities: options.serverRequests
        ? () => server.server.getClientCapabilities()
        : () => undefined,
    };
    registerTools(server, runtime, (tool, args, ctx) => route(tool, args, ctx, conn));
    registerToolListing(server, listing);
    // The skill siyuan-strict-writes (SKILL.md and its manifest), rendered in memory from the
    // same source as system.bootstrap: bundled, never read from disk.
    registerSkillResources(server);
    // The MCP App (a strict write's before/after for the user) and its app-only entry point.
    registerApp(server, app);
    if (options.capabilities !== undefined) {
      server.server.registerCapabilities(options.capabilities);
    }
    options.register?.(server);
    return server;
  };
}

/**
 * How answers go out: `sse` may stream (a POST's answer, server-to-client requests, GET streams;
 * the Node server); `json` is one JSON body per request (a route that cannot stream: the plugin).
 */
export type ResponseMode = "json" | "sse";

/** Options of {@link createAuthorityEndpoint}. */
export interface AuthorityEndpointOptions {
  readonly server: AuthorityServerFactory;
  readonly responseMode: ResponseMode;
  /** Idle expiry of legacy sessions. */
  readonly clock: Clock;
  /** Largest body the modern handler reads itself, in bytes (SDK default otherwise). */
  readonly maxRequestBodyBytes?: number;
  /** Errors the SDK's handler reports. */
  readonly onError?: (error: Error) => void;
  /** Whether a new legacy session's server advertises `tools.listChanged` (default: never). */
  readonly legacyListChanged?: () => boolean;
  /** Told when a legacy session closes. */
  readonly onSessionClosed?: (sessionId: string) => void;
}

/** The `/mcp` endpoint of one process. */
export interface AuthorityEndpoint {
  /**
   * Answers one `/mcp` request. `extra.parsedBody`: the JSON body the shell already parsed
   * (`undefined`: the SDK reads the request's own). The shape of the SDK's handlers.
   */
  fetch(request: Request, extra?: { readonly parsedBody?: unknown }): Promise<Response>;
  /** Whether `id` names a live legacy session (marking it active). */
  hasSession(id: string): boolean;
  /** Number of open legacy sessions. */
  legacySessions(): number;
  /** Closes the legacy sessions idle for `LEGACY_SESSION_IDLE_MS`; returns how many. */
  sweepSessions(): number;
  /** Closes every session and the modern handler. */
  close(): Promise<void>;
}

/** A legacy session: its transport and the server it connected (for the negotiated revision). */
interface LegacySession {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: McpServer;
  close(): Promise<void>;
}

/** A JSON-RPC error answer with no request ID. */
function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status });
}

/** A JSON-RPC message's fields the endpoint reads (a single message, not a batch). */
type MessageFields = { id?: unknown; method?: unknown; params?: { requestId?: unknown } };

/** `/mcp` of an authority: era routing, legacy sessions, the modern handler. */
export function createAuthorityEndpoint(options: AuthorityEndpointOptions): AuthorityEndpoint {
  const json = options.responseMode === "json";
  const modern = createMcpHandler(() => options.server(), {
    legacy: "reject",
    ...(json ? { responseMode: "json" as const } : {}),
    ...(options.maxRequestBodyBytes === undefined
      ? {}
      : { maxRequestBodySize: options.maxRequestBodyBytes }),
    ...(options.onError === undefined ? {} : { onerror: options.onError }),
  });
  // 2025 era: sessions (`Mcp-Session-Id`, 30 minutes idle).
  const sessions = new LegacySessionTable<LegacySession>(options.clock);
  const sweep = setInterval(() => sessions.sweep(), LEGACY_SESSION_SWEEP_MS);
  unrefTimer(sweep);

  /**
   * Session requests a `notifications/cancelled` named, by session and JSON-RPC ID (type-sensitive:
   * `JSON.stringify` of the ID). The SDK drops the answer of a cancelled request, and a JSON answer
   * waits for every answer of its POST, so without this the POST would never be answered (and the
   * plugin's route would hold it for ever). Streamed answers need none of it.
   */
  const cancelWaiters = new Map<string, () => void>();

  async function inSession(sid: string, request: Request, body: unknown): Promise<Response> {
    const session = sessions.touch(sid);
    if (session === undefined) return rpcError(404, -32001, "Session not found");
    if (Array.isArray(body)) {
      // 2025-06-18 removed JSON-RPC batching; only sessions negotiated earlier may batch.
      const version = session.server.server.getNegotiatedProtocolVersion();
      if (version === undefined || version >= FIRST_UNBATCHED_PROTOCOL_VERSION) {
        return rpcError(
          400,
          -32600,
          `Invalid Request: JSON-RPC batches are not supported on protocol version ${version ?? "(unknown)"}`,
        );
      }
    }
    const parsed = body === undefined ? undefined : { parsedBody: body };
    const message = (Array.isArray(body) ? undefined : body) as MessageFields | undefined;
    if (!json || message?.id === undefined || typeof message.method !== "string") {
      if (json && message?.method === "notifications/cancelled") {
        cancelWaiters.get(`${sid}\n${JSON.stringify(message.params?.requestId)}`)?.();
      }
      return session.transport.handleRequest(request, parsed);
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
      return await Promise.race([session.transport.handleRequest(request, parsed), cancelled]);
    } finally {
      cancelWaiters.delete(key);
    }
  }

  async function legacy(request: Request, parsedBody: unknown): Promise<Response> {
    const sid = request.headers.get("mcp-session-id");
    if (sid !== null) return inSession(sid, request, parsedBody);
    const body =
      parsedBody !== undefined || request.method !== "POST"
        ? parsedBody
        : await request
            .clone()
            .json()
            .catch(() => undefined);
    if (request.method !== "POST" || !isInitializeRequest(body)) {
      return rpcError(400, -32000, "Bad Request: no valid Mcp-Session-Id; send initialize first");
    }
    const server = options.server({ listChanged: options.legacyListChanged?.() ?? false });
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (id) =>
          sessions.add(id, { transport, server, close: () => transport.close() }),
      });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id === undefined) return;
      sessions.remove(id);
      options.onSessionClosed?.(id);
    };
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  }

  return {
    async fetch(request, extra) {
      const parsedBody = extra?.parsedBody;
      const isLegacy =
        request.method !== "POST" ||
        request.headers.get("mcp-session-id") !== null ||
        (await isLegacyRequest(request, parsedBody));
      if (isLegacy) return legacy(request, parsedBody);
      return modern.fetch(request, parsedBody === undefined ? undefined : { parsedBody });
    },
    hasSession: (id) => sessions.touch(id) !== undefined,
    legacySessions: () => sessions.size,
    sweepSessions: () => sessions.sweep(),
    async close() {
      clearInterval(sweep);
      await sessions.closeAll();
      await modern.close();
    },
  };
}

/** Lets a timer not keep a Node process alive (goja's timers have no `unref`). */
function unrefTimer(timer: unknown): void {
  if (typeof timer === "object" && timer !== null && "unref" in timer) {
    (timer as { unref(): void }).unref();
  }
}

// The legacy (2025-era) session table of every MCP shell: one sessionful transport per
// `Mcp-Session-Id` (the Node server's `NodeStreamableHTTPServerTransport`, the kernel plugin's
// web-standard one), closed after `LEGACY_SESSION_IDLE_MS` without a request. Time is injected.

/** What the table needs of a session: something it can close. */
export interface ClosableSession {
  close(): Promise<void>;
}

/** Sessions keyed by ID, with last-activity times and idle expiry. */
export class LegacySessionTable<S extends ClosableSession> {
  readonly #sessions = new Map<string, { session: S; lastSeenMs: number }>();
  readonly #clock: Clock;
  readonly #idleMs: number;

  constructor(clock: Clock, idleMs: number = LEGACY_SESSION_IDLE_MS) {
    this.#clock = clock;
    this.#idleMs = idleMs;
  }

  /** Number of open sessions. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Registers a session; evicts the least recently used one beyond `MAX_LEGACY_SESSIONS`. */
  add(id: string, session: S): void {
    this.#sessions.set(id, { session, lastSeenMs: this.#clock.now() });
    if (this.#sessions.size > MAX_LEGACY_SESSIONS) {
      let oldest: string | undefined;
      let oldestMs = Number.POSITIVE_INFINITY;
      for (const [key, entry] of this.#sessions) {
        if (entry.lastSeenMs < oldestMs) {
          oldestMs = entry.lastSeenMs;
          oldest = key;
        }
      }
      if (oldest !== undefined) this.#closeOne(oldest);
    }
  }

  /** Looks a session up and marks it active; `undefined` when unknown or already idle-expired. */
  touch(id: string): S | undefined {
    const entry = this.#sessions.get(id);
    if (entry === undefined) return undefined;
    const now = this.#clock.now();
    if (now - entry.lastSeenMs >= this.#idleMs) {
      this.#closeOne(id);
      return undefined;
    }
    entry.lastSeenMs = now;
    return entry.session;
  }

  /** Forgets a session without closing it (its transport already closed). */
  remove(id: string): void {
    this.#sessions.delete(id);
  }

  /** Closes every session idle for at least the idle time; returns how many. */
  sweep(): number {
    const now = this.#clock.now();
    let closed = 0;
    for (const [id, entry] of [...this.#sessions]) {
      if (now - entry.lastSeenMs >= this.#idleMs) {
        this.#closeOne(id);
        closed += 1;
      }
    }
    return closed;
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(all.map((e) => e.session.close()));
  }

  #closeOne(id: string): void {
    const entry = this.#sessions.get(id);
    this.#sessions.delete(id);
    void entry?.session.close().catch(() => undefined);
  }
}

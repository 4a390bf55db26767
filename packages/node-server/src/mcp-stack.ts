/**
 * The MCP half of the process: the SDK, zod, the tool catalog, the gateway and the SiYuan client.
 * `main.ts` loads this module with a dynamic `import()` only after the HTTP socket listens, so the
 * parse and evaluation of these bundles (most of the cold start) overlap the client's connect and
 * first request instead of delaying the listening socket. Requests that arrive earlier wait for
 * it in the HTTP shell.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type NodeIncomingMessageLike,
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  toWebRequest,
} from "@modelcontextprotocol/node";
import {
  type AuthInfo,
  type CallToolResult,
  classifyInboundRequest,
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  McpServer,
  type ServerCapabilities,
  type ServerContext,
} from "@modelcontextprotocol/server";
import {
  type AppOptions,
  createToolRuntime,
  errorResult,
  fetchFeedbackSender,
  kernelFromClient,
  registerApp,
  registerSkillResources,
  registerToolListing,
  registerTools,
  SERVER_INSTRUCTIONS,
  type ToolDescriptor,
  type ToolListing,
  type ToolRuntime,
} from "@sisyphus/mcp-tools";
import {
  Admission,
  admissionRefusalResult,
  ConfirmationBook,
  createGateway,
  type DrainGate,
  type GatewayConnection,
  isAdmissionRefusal,
  LegacySessionTable,
  type SettingsSnapshot,
  shellError,
  unusableSettingsRefusal,
} from "@sisyphus/mcp-tools/shell";
import { createSiyuanClient } from "@sisyphus/siyuan-api/kernel";
import { type Clock, systemClock, type WriteCoordinator } from "@sisyphus/write-safety";
import type { AuthorityLink } from "./authority-link.js";
import type { ServerConfig } from "./config.js";
import {
  FIRST_UNBATCHED_PROTOCOL_VERSION,
  KERNEL_TIMEOUT_MS,
  LEGACY_SESSION_SWEEP_MS,
  MAX_REQUEST_BODY_BYTES,
  SERVER_INFO,
  SETTINGS_READ_TIMEOUT_MS,
} from "./constants.js";
import type { McpEndpoint } from "./http-server.js";
import { KernelAuthorityLink } from "./kernel-authority-link.js";
import { lazyKernelTransport } from "./kernel-transport.js";
import { localOutputSink } from "./local-output.js";
import { localFileSourceReader } from "./local-source.js";
import { NodeAuthorityLink } from "./node-authority-link.js";
import { cryptoRandomSource } from "./random.js";
import { principalOf } from "./security.js";
import { type AuthorityKind, readSettings, startupSettings } from "./settings-reader.js";

/** Builds one MCP server instance for an era; `authInfo.clientId` carries the principal. */
export type ServerFactory = (ctx: { era: "modern" | "legacy"; authInfo?: AuthInfo }) => McpServer;

/** Writes one line to stderr (stdout belongs to the stdio protocol). */
type Log = (line: string) => void;

/**
 * Runs one call of an extension's tool through the shell's admission gate, in the read lane: past
 * the cap it answers `queue_full`, cancelled before it ran `cancelled`, like any tool call.
 */
export type ExtensionGate = (
  signal: AbortSignal,
  run: () => Promise<CallToolResult>,
) => Promise<CallToolResult>;

/**
 * More tools, prompts or resources on every server instance this process builds, served through
 * the same transports, sessions, authentication, guards and admission gate as the SiYuan tools.
 * A seam for test builds only (the conformance fixtures of `packages/conformance`): the production
 * executable passes none, and nothing in its configuration can.
 */
export interface ServerExtension {
  /** Capabilities the extension needs beyond the server's own (merged into them). */
  readonly capabilities?: ServerCapabilities;
  /** The tools `register` adds, as `tools/list` shows them after the SiYuan tools. */
  readonly tools: readonly ExtensionTool[];
  /**
   * The SDK's `requestState` verify hook (`ServerOptions.requestState.verify`): throwing answers
   * the round `-32602`. It sees every round's state, the shell's own confirmation states too, so it
   * must let through (return `undefined` for) any state it did not issue.
   */
  readonly verifyRequestState?: (state: string, ctx: ServerContext) => unknown;
  /** Registers the extension on one server instance; wrap each tool call in `gate`. */
  register(server: McpServer, gate: ExtensionGate): void;
}

/** One extension tool in `tools/list`. */
export interface ExtensionTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly annotations: { readonly readOnlyHint: boolean; readonly destructiveHint: boolean };
}

/** An extension with the admission gate its calls share with the SiYuan tools. */
interface Extending {
  readonly extension: ServerExtension;
  readonly admission: Admission;
}

function gateFor(admission: Admission): ExtensionGate {
  return async (signal, run) => {
    const outcome = await admission.admit<undefined, CallToolResult>(
      "read",
      signal,
      async () => ({ go: undefined }),
      run,
    );
    return isAdmissionRefusal(outcome) ? admissionRefusalResult(outcome, admission.cap) : outcome;
  };
}

/** The SiYuan tools the settings leave on, then the extension's. */
function withTools(listing: ToolListing, { extension }: Extending): ToolListing {
  // The listing handler reads only the descriptor's fields, not the SiYuan tool-name type.
  return async () => [...(await listing()), ...(extension.tools as readonly ToolDescriptor[])];
}

function buildFactory(
  runtime: ToolRuntime,
  gateway: ReturnType<typeof createGateway>,
  principal: string,
  listing: ToolListing,
  app: AppOptions,
  extending?: Extending,
): ServerFactory {
  return () => {
    const server = new McpServer(
      { name: SERVER_INFO.name, version: SERVER_INFO.version },
      // The instructions go out in both eras: `server/discover` (2026-07-28) and `initialize` (2025).
      // `listChanged` stated: the SDK would advertise it for registered tools, and this server sends
      // no list notifications (a client lists again; each list reads the settings).
      {
        capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
        instructions: SERVER_INSTRUCTIONS,
        ...(extending?.extension.verifyRequestState === undefined
          ? {}
          : { requestState: { verify: extending.extension.verifyRequestState } }),
      },
    );
    const conn: GatewayConnection = {
      principal,
      legacyCapabilities: () => server.server.getClientCapabilities(),
    };
    registerTools(
      server,
      runtime,
      (tool: string, args: Record<string, unknown>, ctx: ServerContext) =>
        gateway(tool, args, ctx, conn),
    );
    registerToolListing(server, extending === undefined ? listing : withTools(listing, extending));
    // The skill siyuan-strict-writes (SKILL.md and its manifest), rendered in memory from the
    // same source as system.bootstrap: bundled, never read from disk.
    registerSkillResources(server);
    // The MCP App (a strict write's before/after for the user) and its app-only entry point.
    registerApp(server, app);
    if (extending !== undefined) {
      const { extension, admission } = extending;
      if (extension.capabilities !== undefined) {
        server.server.registerCapabilities(extension.capabilities);
      }
      extension.register(server, gateFor(admission));
    }
    return server;
  };
}

function rpcError(res: ServerResponse, status: number, code: number, message: string) {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));
}

/**
 * Who runs this process's writes: its own coordinator (the Node authority), or the kernel plugin,
 * which the settings selected (`kernelEndpointEnabled`) when the process started.
 */
export type EndpointAuthority =
  | { readonly kind: "node-http"; readonly epoch: string; readonly coordinator: WriteCoordinator }
  | { readonly kind: "kernel"; readonly link: AuthorityLink };

/** What the HTTP server hands to `createHttpEndpoint`. */
export interface HttpEndpointOptions {
  readonly siyuanUrl: string;
  readonly siyuanToken?: string;
  readonly strict: boolean;
  readonly authority: EndpointAuthority;
  readonly admission: Admission;
  /** The bearer token of the HTTP shell (secret; only its digest becomes the principal). */
  readonly authToken: string;
  readonly clock?: Clock;
  /** The process's shutdown drain. */
  readonly drain?: DrainGate;
  /** Test builds only: more tools, prompts or resources (see {@link ServerExtension}). */
  readonly extension?: ServerExtension;
  readonly onError: (error: Error) => void;
}

/**
 * The `/mcp` endpoint of the HTTP authority: modern 2026-07-28 traffic through `createMcpHandler`
 * with `legacy: 'reject'`, 2025-era traffic through a table of sessionful
 * `NodeStreamableHTTPServerTransport`s. Authentication, guards and body parsing stay in the shell.
 */
export function createHttpEndpoint(options: HttpEndpointOptions): McpEndpoint {
  const clock = options.clock ?? systemClock;
  const onError = options.onError;
  const client = createSiyuanClient({
    transport: lazyTransport(options.siyuanUrl, options.siyuanToken),
  });
  const a = options.authority;
  const runtime = createToolRuntime({
    client,
    // The authority reads upload sources from this host's files, saves exports there and posts
    // feedback from here; a front delegates strict and external calls.
    ...(a.kind === "node-http"
      ? {
          coordinator: a.coordinator,
          sources: localFileSourceReader(),
          feedback: fetchFeedbackSender(),
          outputs: localOutputSink({
            siyuanUrl: options.siyuanUrl,
            siyuanToken: options.siyuanToken,
          }),
        }
      : {}),
    config: {
      strict: options.strict,
      authority:
        a.kind === "node-http"
          ? { kind: "node-http", epoch: a.epoch }
          : { kind: "kernel", epoch: "" },
      health: () => ({ ...options.admission.counts() }),
    },
  });
  const gateway = createGateway({
    runtime,
    admission: options.admission,
    confirmations: new ConfirmationBook({ random: cryptoRandomSource }),
    role:
      a.kind === "node-http"
        ? { kind: "local", epoch: a.epoch }
        : { kind: "delegate", link: a.link },
    ...(options.drain === undefined ? {} : { drain: options.drain }),
    snapshot: settingsSnapshot(options.siyuanUrl, options.siyuanToken, a.kind),
    // The snapshot is a kernel round trip: read beside the call's first reads, decided before any
    // write and any answer (docs/decisions.md D-098).
    snapshotBesideReads: true,
  });
  const principal = principalOf(options.authToken);
  const factory = buildFactory(
    runtime,
    gateway,
    principal,
    toolListing(runtime, options.siyuanUrl, options.siyuanToken),
    {
      kernel: kernelFromClient(client).reads,
      admission: options.admission,
      snapshot: settingsSnapshot(options.siyuanUrl, options.siyuanToken, a.kind),
    },
    options.extension === undefined
      ? undefined
      : { extension: options.extension, admission: options.admission },
  );
  const authInfo: AuthInfo = { token: "", clientId: principal, scopes: [] };
  const modern = createMcpHandler(() => factory({ era: "modern", authInfo }), {
    legacy: "reject",
    maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    onerror: onError,
  });
  const modernNode = toNodeHandler(modern, {
    maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    onerror: onError,
  });
  const sessions = new LegacySessionTable<NodeStreamableHTTPServerTransport>(clock);
  /** The server of each legacy session's transport (for its negotiated protocol version). */
  const sessionServers = new WeakMap<NodeStreamableHTTPServerTransport, McpServer>();
  const sweep = setInterval(() => sessions.sweep(), LEGACY_SESSION_SWEEP_MS);
  sweep.unref();

  async function handleLegacy(
    req: IncomingMessage & { auth?: AuthInfo },
    res: ServerResponse,
    body: unknown,
  ): Promise<void> {
    req.auth = authInfo;
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const transport = sessions.touch(sessionId);
      if (transport === undefined) {
        rpcError(res, 404, -32001, "Session not found");
        return;
      }
      if (Array.isArray(body)) {
        // 2025-06-18 removed JSON-RPC batching; only sessions negotiated earlier may batch.
        const version = sessionServers.get(transport)?.server.getNegotiatedProtocolVersion();
        if (version === undefined || version >= FIRST_UNBATCHED_PROTOCOL_VERSION) {
          rpcError(
            res,
            400,
            -32600,
            `Invalid Request: JSON-RPC batches are not supported on protocol version ${version ?? "(unknown)"}`,
          );
          return;
        }
      }
      await transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== "POST" || !isInitializeRequest(body)) {
      rpcError(res, 400, -32000, "Bad Request: no valid Mcp-Session-Id; send initialize first");
      return;
    }
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.add(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.remove(transport.sessionId);
    };
    const server = factory({ era: "legacy", authInfo });
    sessionServers.set(transport, server);
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  return {
    async handle(req, res, body) {
      const legacy =
        req.method !== "POST" ||
        req.headers["mcp-session-id"] !== undefined ||
        (body === undefined
          ? await isLegacyRequest(await toWebRequest(req as NodeIncomingMessageLike, body), body)
          : classifyInboundRequest({ httpMethod: "POST", ...eraHeaders(req), body }).kind ===
            "legacy");
      if (legacy) {
        await handleLegacy(req, res, body);
        return;
      }
      await modernNode(req as NodeIncomingMessageLike, res, body);
    },
    legacySessions: () => sessions.size,
    readBudget: () => ({ ...runtime.readBudgetCounts() }),
    async close() {
      clearInterval(sweep);
      await sessions.closeAll();
      await modern.close();
    },
  };
}

/**
 * The headers the SDK's era classification reads, straight from Node's request: with the body
 * already parsed, `classifyInboundRequest` decides what `isLegacyRequest` would without building
 * a web `Request` (the SDK's Node handler builds its own for the modern path).
 */
function eraHeaders(req: IncomingMessage) {
  const out: { protocolVersionHeader?: string; mcpMethodHeader?: string; mcpNameHeader?: string } =
    {};
  const fields = [
    ["protocolVersionHeader", "mcp-protocol-version"],
    ["mcpMethodHeader", "mcp-method"],
    ["mcpNameHeader", "mcp-name"],
  ] as const;
  for (const [key, name] of fields) {
    const v = req.headers[name];
    if (v !== undefined) out[key] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

function lazyTransport(baseUrl: string, token: string | undefined) {
  return lazyKernelTransport({
    baseUrl,
    ...(token === undefined ? {} : { token }),
    timeoutMs: KERNEL_TIMEOUT_MS,
  });
}

/**
 * The settings snapshot of every call (one `getFile` of the plugin's settings): for a strict call,
 * the settings must still select the authority this process started with
 * (`write_coordinator_changed` otherwise, until a restart); every call gets the permissions they
 * hold (none configured: full access). A file that is not usable settings refuses the call (a
 * strict one `write_coordinator_unavailable` `settings_invalid`, a read `permission_denied`), and a
 * kernel that does not answer refuses it with `kernel_unavailable`: nothing can run without it.
 */
function settingsSnapshot(
  siyuanUrl: string,
  siyuanToken: string | undefined,
  startedWith: AuthorityKind,
): (writeClass: boolean) => Promise<SettingsSnapshot> {
  return async (writeClass) => {
    const read = await readSettings(siyuanUrl, siyuanToken, SETTINGS_READ_TIMEOUT_MS);
    if (!read.ok) {
      if (read.reason !== "invalid") {
        return {
          refusal: errorResult({
            code: "kernel_unavailable",
            message: `Cannot read the Sisyphus settings: ${read.message}; nothing ran.`,
            writeAttempted: false,
          }) as CallToolResult,
        };
      }
      return { refusal: unusableSettingsRefusal(read.message, writeClass) };
    }
    if (writeClass && read.kind !== startedWith) {
      return {
        refusal: shellError(
          "write_coordinator_changed",
          `The settings now select ${read.kind === "kernel" ? "the SiYuan kernel plugin" : "the Node server"} as the write authority; this process started with ${startedWith === "kernel" ? "the kernel plugin" : "the Node server"} and refuses strict calls until it is restarted. Nothing was written.`,
          { reason: "other_kind" },
          { writeAttempted: false },
        ),
      };
    }
    return { settings: read.settings };
  };
}

/**
 * `tools/list` from the settings, read once per list: the tools they leave on. Settings that cannot
 * be read or used list every tool: each call then answers why it cannot run.
 */
function toolListing(
  runtime: ToolRuntime,
  siyuanUrl: string,
  siyuanToken: string | undefined,
): ToolListing {
  return async () => {
    const read = await readSettings(siyuanUrl, siyuanToken, SETTINGS_READ_TIMEOUT_MS);
    return runtime.listTools(read.ok ? read.settings.disabled : []);
  };
}

/**
 * A stdio server delegating writes to the HTTP authority; with `launcher` (and `config.autostart`)
 * it starts one in the background when none serves the data directory.
 */
export async function startStdio(
  config: ServerConfig,
  log: Log,
  launcher?: string,
  extension?: ServerExtension,
): Promise<{ close(): Promise<void> }> {
  const siyuanUrl = config.siyuanUrl as string;
  const { kind, strictSafeWrites } = await startupSettings(
    siyuanUrl,
    config.siyuanToken,
    SETTINGS_READ_TIMEOUT_MS,
    log,
  );
  const client = createSiyuanClient({
    transport: lazyTransport(config.siyuanUrl as string, config.siyuanToken),
  });
  const runtime = createToolRuntime({
    client,
    config: {
      strict: config.strict && strictSafeWrites,
      authority: { kind: "delegating", epoch: "" },
    },
  });
  const siyuanToken = config.siyuanToken;
  const link: AuthorityLink =
    kind === "kernel"
      ? new KernelAuthorityLink({
          kernel: { siyuanUrl, ...(siyuanToken === undefined ? {} : { siyuanToken }) },
        })
      : new NodeAuthorityLink({
          dataDir: config.dataDir,
          ...(config.authorityUrl === undefined ? {} : { authorityUrl: config.authorityUrl }),
          ...(config.authToken === undefined ? {} : { authToken: config.authToken }),
          siyuanUrl: config.siyuanUrl as string,
          ...(config.autostart && launcher !== undefined
            ? {
                autostart: {
                  launcher,
                  siyuanUrl: config.siyuanUrl as string,
                  ...(siyuanToken === undefined ? {} : { siyuanToken }),
                  strict: config.strict,
                  idleStopMs: config.idleStopMs,
                },
              }
            : {}),
        });
  // A gate only: this process's writes wait in the authority's one lane, not in a second one here.
  const admission = new Admission();
  const snapshot = settingsSnapshot(siyuanUrl, config.siyuanToken, kind);
  const gateway = createGateway({
    runtime,
    admission,
    confirmations: new ConfirmationBook({ random: cryptoRandomSource }),
    role: { kind: "delegate", link },
    snapshot,
    snapshotBesideReads: true,
  });
  // Loaded here, not at the top: an HTTP server never needs the stdio transport.
  const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
  const handle = serveStdio(
    buildFactory(
      runtime,
      gateway,
      `stdio:${process.pid}`,
      toolListing(runtime, siyuanUrl, config.siyuanToken),
      { kernel: kernelFromClient(client).reads, admission, snapshot },
      extension === undefined ? undefined : { extension, admission },
    ),
    {
      onerror: (e) => log(`sisyphus-server: ${e.message}`),
    },
  );
  log(
    kind === "kernel"
      ? `sisyphus-server: serving MCP on stdio; writes are delegated to the kernel authority at ${siyuanUrl}`
      : `sisyphus-server: serving MCP on stdio; writes are delegated to the write authority of ${config.dataDir}${config.autostart && launcher !== undefined ? " (started in the background on the first write if none serves it)" : ""}`,
  );
  return {
    async close() {
      await handle.close();
      await link.close();
    },
  };
}

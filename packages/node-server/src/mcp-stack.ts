/**
 * The MCP half of the process: the SDK, zod, the tool catalog, the gateway and the SiYuan client.
 * `main.ts` loads this module with a dynamic `import()` only after the HTTP socket listens, so the
 * parse and evaluation of these bundles (most of the cold start) overlap the client's connect and
 * first request instead of delaying the listening socket. Requests that arrive earlier wait for
 * it in the HTTP shell.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type NodeIncomingMessageLike, toWebRequest } from "@modelcontextprotocol/node";
import type {
  CallToolResult,
  McpServer,
  ServerCapabilities,
  ServerContext,
} from "@modelcontextprotocol/server";
import {
  createToolRuntime,
  fetchFeedbackSender,
  kernelFromClient,
  type ToolDescriptor,
} from "@sisyphus/mcp-tools";
import {
  Admission,
  type AuthorityEndpoint,
  type AuthorityServerOptions,
  admissionRefusalResult,
  createAuthorityEndpoint,
  createAuthorityServer,
  type DrainGate,
  isAdmissionRefusal,
} from "@sisyphus/mcp-tools/shell";
import {
  createSiyuanClient,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from "@sisyphus/siyuan-api/kernel";
import { type Clock, systemClock, type WriteCoordinator } from "@sisyphus/write-safety";
import type { AuthorityLink } from "./authority-link.js";
import type { ServerConfig } from "./config.js";
import {
  KERNEL_TIMEOUT_MS,
  MAX_REQUEST_BODY_BYTES,
  SETTINGS_READ_TIMEOUT_MS,
} from "./constants.js";
import type { McpEndpoint } from "./http-server.js";
import { KernelAuthorityLink } from "./kernel-authority-link.js";
import { localOutputSink } from "./local-output.js";
import { localFileSourceReader } from "./local-source.js";
import { NodeAuthorityLink } from "./node-authority-link.js";
import { cryptoRandomSource } from "./random.js";
import { principalOf } from "./security.js";
import { type AuthorityKind, readSettings, startupSettings } from "./settings-reader.js";

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

/** What an extension adds to every server instance, its calls through the admission gate. */
function extensionOptions(
  extension: ServerExtension | undefined,
  admission: Admission,
): Pick<AuthorityServerOptions, "capabilities" | "moreTools" | "verifyRequestState" | "register"> {
  if (extension === undefined) return {};
  return {
    ...(extension.capabilities === undefined ? {} : { capabilities: extension.capabilities }),
    // The listing handler reads only the descriptor's fields, not the SiYuan tool-name type.
    moreTools: extension.tools as readonly ToolDescriptor[],
    ...(extension.verifyRequestState === undefined
      ? {}
      : { verifyRequestState: extension.verifyRequestState }),
    register: (server) => extension.register(server, gateFor(admission)),
  };
}

/**
 * The settings of each call and each list, read through the kernel's `getFile` (one round trip):
 * a strict call needs them to select the authority this process started with
 * (`write_coordinator_changed` otherwise, until a restart).
 */
function nodeSettings(
  siyuanUrl: string,
  siyuanToken: string | undefined,
  startedWith: AuthorityKind,
): AuthorityServerOptions["settings"] {
  return {
    read: () => readSettings(siyuanUrl, siyuanToken, SETTINGS_READ_TIMEOUT_MS),
    strictCallsNeed: { kind: "started-with", authority: startedWith },
  };
}

/**
 * Answers a Node request with the shared endpoint: the web `Request` built from it (the body the
 * shell parsed, the signal aborted when the client goes away), the `Response` written back with
 * backpressure. A streamed answer (SSE: a legacy session's GET stream, a POST's events) has its
 * headers sent at once and its stream cancelled the moment the client goes away, as the SDK's
 * Node transport did through hono. (The SDK's `toNodeHandler` sends the headers only with the
 * first event, for a GET stream its first keep-alive 15 s later, and keeps a dropped stream until
 * its next one, refusing a reconnecting client with 409 meanwhile.)
 */
async function answerNode(
  endpoint: AuthorityEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const gone = new AbortController();
  res.once("close", () => gone.abort());
  const request = await toWebRequest(req as NodeIncomingMessageLike, body, {
    signal: gone.signal,
    maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
  });
  const response = await endpoint.fetch(request, body === undefined ? {} : { parsedBody: body });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    res.flushHeaders();
  }
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  gone.signal.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done || gone.signal.aborted) break;
      if (!res.write(chunk.value)) {
        await new Promise<void>((resolve) => {
          res.once("drain", resolve);
          gone.signal.addEventListener("abort", () => resolve(), { once: true });
        });
      }
    }
  } catch {
    // the stream failed or was cancelled: end the answer
  } finally {
    gone.signal.removeEventListener("abort", cancel);
    res.end();
  }
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
 * The `/mcp` endpoint of the HTTP authority (or kernel front): the shared authority endpoint
 * (`@sisyphus/mcp-tools/shell`; answers stream, so legacy sessions get GET streams and
 * server-to-client requests) behind `answerNode`. Authentication, guards and body parsing stay in
 * the shell.
 */
export function createHttpEndpoint(options: HttpEndpointOptions): McpEndpoint {
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
  const server = createAuthorityServer({
    runtime,
    admission: options.admission,
    role:
      a.kind === "node-http"
        ? { kind: "local", epoch: a.epoch }
        : { kind: "delegate", link: a.link },
    ...(options.drain === undefined ? {} : { drain: options.drain }),
    random: cryptoRandomSource,
    settings: nodeSettings(options.siyuanUrl, options.siyuanToken, a.kind),
    // The snapshot is a kernel round trip: read beside the call's first reads, decided before any
    // write and any answer (docs/decisions.md D-098).
    snapshotBesideReads: true,
    kernelReads: kernelFromClient(client).reads,
    principal: principalOf(options.authToken),
    serverRequests: true,
    ...extensionOptions(options.extension, options.admission),
  });
  const endpoint = createAuthorityEndpoint({
    server,
    responseMode: "sse",
    clock: options.clock ?? systemClock,
    maxRequestBodyBytes: MAX_REQUEST_BODY_BYTES,
    onError: options.onError,
  });
  return {
    handle: (req, res, body) => answerNode(endpoint, req, res, body),
    legacySessions: () => endpoint.legacySessions(),
    readBudget: () => runtime.readBudgetCounts(),
    close: () => endpoint.close(),
  };
}

/**
 * The kernel HTTP transport, loaded on first use: `undici` and its transport stay out of the
 * start-up path, so `initialize`, `server/discover` and `tools/list` never wait on loading them.
 */
function lazyTransport(baseUrl: string, token: string | undefined): Transport {
  const options = {
    baseUrl,
    ...(token === undefined ? {} : { token }),
    timeoutMs: KERNEL_TIMEOUT_MS,
  };
  let inner: Promise<Transport> | undefined;
  const get = () => {
    inner ??= import("./kernel-transport-undici.js").then((m) => m.undiciTransport(options));
    return inner;
  };
  return {
    name: "undici",
    async send(request: TransportRequest): Promise<TransportResponse> {
      return (await get()).send(request);
    },
    async close(): Promise<void> {
      if (inner !== undefined) await (await inner).close();
    },
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
  const server = createAuthorityServer({
    runtime,
    admission,
    role: { kind: "delegate", link },
    random: cryptoRandomSource,
    settings: nodeSettings(siyuanUrl, config.siyuanToken, kind),
    snapshotBesideReads: true,
    kernelReads: kernelFromClient(client).reads,
    principal: `stdio:${process.pid}`,
    serverRequests: true,
    ...extensionOptions(extension, admission),
  });
  // Loaded here, not at the top: an HTTP server never needs the stdio transport.
  const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
  const handle = serveStdio(() => server(), {
    onerror: (e) => log(`sisyphus-server: ${e.message}`),
  });
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

/**
 * The legacy `notifications/tools/list_changed` stream (spec "Tool notifications and response
 * recovery"): `GET /mcp` with a legacy session's `Mcp-Session-Id` and `Accept` exactly
 * `text/event-stream`, which the kernel hands to the `es` slot (contract §8.1, §8.4). Offered only
 * on a host that runs requests to one path in parallel (see `host-probe.ts`): on SiYuan 3.7.3 an
 * open stream would hold every POST to `/mcp`.
 *
 * A stream sends one invalidation when it opens, then every {@link SSE_CHECK_INTERVAL_MS} the
 * plugin reads its settings once for all streams and sends an invalidation to each stream whose
 * last snapshot (the access fingerprint: authority switch, permissions, turned-off tools) differs;
 * an unchanged snapshot sends nothing. Streams close after {@link SSE_MAX_AGE_MS}, with their
 * session, when the kernel endpoint is turned off, and when the settings cannot be used. A stream
 * carries notifications only: closing it never touches a tool call. There is no replay; a client
 * reconnects and lists the tools again.
 */
import { accessFingerprint } from "@sisyphus/mcp-tools/settings";
import type { PluginStorage } from "../stores/index.js";
import type { PluginRequest, RuntimeTimers, SsePort } from "./runtime-globals.js";
import { readKernelSettings } from "./settings.js";

/** Time between two checks of the settings while any stream is open. */
export const SSE_CHECK_INTERVAL_MS = 5_000;
/** Open streams per authentication context. */
export const SSE_MAX_PER_CONTEXT = 4;
/** Open streams in all. */
export const SSE_MAX_TOTAL = 64;
/** Lifetime of one stream; the client reconnects and lists the tools again. */
export const SSE_MAX_AGE_MS = 10 * 60_000;

/** The one event a stream carries: the JSON-RPC notification (no event ID: nothing is replayed). */
export const LIST_CHANGED_EVENT = JSON.stringify({
  jsonrpc: "2.0",
  method: "notifications/tools/list_changed",
});

/** One read of the settings: usable (endpoint switch and snapshot) or not. */
export type Inspection =
  | { readonly ok: true; readonly enabled: boolean; readonly snapshot: string }
  | { readonly ok: false; readonly reason: string };

/**
 * The settings as every call reads them (`readKernelSettings`): `settings.json` in the plugin's
 * storage, no file → the defaults, a file that does not parse → not usable.
 */
export function kernelInspection(storage: PluginStorage): () => Promise<Inspection> {
  return async () => {
    const read = await readKernelSettings(storage);
    if (!read.ok) return { ok: false, reason: read.message };
    return {
      ok: true,
      enabled: read.settings.kernelEndpointEnabled,
      snapshot: accessFingerprint(read.settings),
    };
  };
}

/**
 * Why a stream was not opened. The `es` slot cannot set a status (contract §8.4): the handler
 * throws, the kernel answers 500 with this text, and `status` is the HTTP status the refusal
 * stands for, written first in the text.
 */
export interface StreamRefusal {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

/** A refused stream, as the `es` handler throws it. */
export class StreamRefused extends Error {
  readonly refusal: StreamRefusal;
  constructor(refusal: StreamRefusal) {
    super(`${refusal.status} ${refusal.code}: ${refusal.message}`);
    this.name = "StreamRefused";
    this.refusal = refusal;
  }
}

/** The limits, injectable for tests. */
export interface StreamLimits {
  readonly intervalMs: number;
  readonly perContext: number;
  readonly total: number;
  readonly maxAgeMs: number;
}

/** What the registry needs. */
export interface ListChangedOptions {
  /** One read of the settings, shared by all streams of a check. */
  inspect(): Promise<Inspection>;
  timers: RuntimeTimers;
  /** Runs before each check: closes idle-expired sessions, whose streams close with them. */
  beforeCheck?(): void;
  limits?: Partial<StreamLimits>;
}

interface Stream {
  readonly context: string;
  readonly sessionId: string;
  readonly port: SsePort;
  /** The snapshot the stream's last invalidation stands for. */
  snapshot: string;
  readonly ageTimer: unknown;
}

/** The open streams of one plugin start, their limits and the shared check. */
export class ListChangedStreams {
  readonly #streams = new Set<Stream>();
  readonly #opts: ListChangedOptions;
  readonly #limits: StreamLimits;
  #interval: unknown;
  #checking = false;
  #checks = 0;
  #sent = 0;

  constructor(options: ListChangedOptions) {
    this.#opts = options;
    this.#limits = {
      intervalMs: SSE_CHECK_INTERVAL_MS,
      perContext: SSE_MAX_PER_CONTEXT,
      total: SSE_MAX_TOTAL,
      maxAgeMs: SSE_MAX_AGE_MS,
      ...options.limits,
    };
  }

  /** `/health` numbers: open streams, checks done, invalidations sent. */
  counts(): { sseStreams: number; sseChecks: number; sseNotifications: number } {
    return {
      sseStreams: this.#streams.size,
      sseChecks: this.#checks,
      sseNotifications: this.#sent,
    };
  }

  /**
   * Opens a stream on `port` for a session of `context`, or says why not: unusable settings or
   * the endpoint turned off (503), the context's limit (429), the total (503). The limits are
   * counted after the settings read, in the same turn as the registration, so two opens racing
   * cannot both take the last place. The invalidation goes out when the kernel opens the port.
   */
  async open(
    context: string,
    sessionId: string,
    port: SsePort,
  ): Promise<StreamRefusal | undefined> {
    const inspection = await this.#inspect();
    if (!inspection.ok) {
      return refusal(
        503,
        "settings_invalid",
        `The Sisyphus settings cannot be used: ${inspection.reason}`,
      );
    }
    if (!inspection.enabled) {
      return refusal(
        503,
        "kernel_endpoint_disabled",
        "The kernel endpoint is off in the Sisyphus settings; there are no tool notifications.",
      );
    }
    if (this.#streams.size >= this.#limits.total) {
      return refusal(
        503,
        "too_many_streams",
        `${this.#limits.total} streams are open; retry later.`,
      );
    }
    let ofContext = 0;
    for (const s of this.#streams) if (s.context === context) ofContext += 1;
    if (ofContext >= this.#limits.perContext) {
      return refusal(
        429,
        "too_many_streams",
        `${this.#limits.perContext} streams of this authentication context are open; close one first.`,
      );
    }
    const stream: Stream = {
      context,
      sessionId,
      port,
      snapshot: inspection.snapshot,
      ageTimer: this.#opts.timers.setTimeout(() => this.#close(stream), this.#limits.maxAgeMs),
    };
    this.#streams.add(stream);
    port.onopen = () => this.#send(stream);
    port.onclose = () => {
      this.#drop(stream);
    };
    if (this.#interval === undefined) {
      this.#interval = this.#opts.timers.setInterval(() => {
        void this.check();
      }, this.#limits.intervalMs);
    }
    return undefined;
  }

  /**
   * One check: expired sessions closed, the settings read once, every stream whose snapshot
   * changed invalidated; all closed when the endpoint is off or the settings cannot be used. A
   * check still reading when the next is due makes that one a no-op.
   */
  async check(): Promise<void> {
    if (this.#checking) return;
    this.#checking = true;
    try {
      this.#opts.beforeCheck?.();
      if (this.#streams.size === 0) return;
      const inspection = await this.#inspect();
      this.#checks += 1;
      for (const stream of [...this.#streams]) {
        if (!inspection.ok || !inspection.enabled) this.#close(stream);
        else if (stream.snapshot !== inspection.snapshot) {
          stream.snapshot = inspection.snapshot;
          this.#send(stream);
        }
      }
    } finally {
      this.#checking = false;
    }
  }

  /** Closes the streams of a session (it was deleted, expired or evicted). */
  closeSession(sessionId: string): void {
    for (const stream of [...this.#streams]) {
      if (stream.sessionId === sessionId) this.#close(stream);
    }
  }

  /** Closes every stream (the plugin unloads). */
  closeAll(): void {
    for (const stream of [...this.#streams]) this.#close(stream);
  }

  async #inspect(): Promise<Inspection> {
    try {
      return await this.#opts.inspect();
    } catch (e) {
      return { ok: false, reason: e instanceof Error ? e.message : String(e) };
    }
  }

  #send(stream: Stream): void {
    if (!this.#streams.has(stream)) return;
    try {
      stream.port.send({ data: LIST_CHANGED_EVENT });
      this.#sent += 1;
    } catch {
      this.#close(stream); // the stream is gone
    }
  }

  #close(stream: Stream): void {
    if (!this.#drop(stream)) return;
    try {
      stream.port.close();
    } catch {
      // already closed by the kernel
    }
  }

  /** Forgets a stream; the shared check stops with the last one. False when already gone. */
  #drop(stream: Stream): boolean {
    if (!this.#streams.delete(stream)) return false;
    this.#opts.timers.clearTimeout(stream.ageTimer);
    if (this.#streams.size === 0 && this.#interval !== undefined) {
      this.#opts.timers.clearInterval(this.#interval);
      this.#interval = undefined;
    }
    return true;
  }
}

function refusal(status: number, code: string, message: string): StreamRefusal {
  return { status, code, message };
}

/** What the `es` handler needs from the plugin around it. */
export interface StreamGate {
  /** The probe has shown that this host runs requests to one path in parallel. */
  readonly parallel: boolean;
  /** The streams, or undefined while the plugin is not serving. */
  readonly streams: ListChangedStreams | undefined;
  /** The authentication context of every caller (the plugin knows one). */
  readonly context: string;
  /** Whether `sessionId` names a live legacy session (a GET counts as activity in it). */
  session(sessionId: string): boolean;
  /**
   * Whether the request's `Origin` is refused, as on every other route (`settings.ts`
   * `originCheck`): at once (`pass`, `refused`) unless the settings must be read.
   */
  origin(): "pass" | "refused" | Promise<boolean>;
  /**
   * Logs a refusal decided after an await (the kernel log then says why: SiYuan 3.7.3 answers a
   * rejected handler with "promise rejected: <nil>", without the message).
   */
  logRefusal?(text: string): void;
}

/**
 * The `es` slot: opens the stream of `GET /mcp`, or throws {@link StreamRefused}. The kernel hands
 * this slot every request whose `Accept` is exactly `text/event-stream`, whatever its method and
 * path (contract §8.1). Synchronous unless the `Origin` needs the settings: SiYuan 3.7.3 answers a
 * throw with its message, but a rejected promise only as "promise rejected: <nil>" (plugin.go), so
 * every refusal it can decide at once is thrown at once.
 */
export function serveStream(req: PluginRequest, gate: StreamGate): Promise<void> | undefined {
  const refuse = (reason: StreamRefusal | undefined): void => {
    if (reason !== undefined) throw new StreamRefused(reason);
  };
  const refuseLater = (reason: StreamRefusal | undefined): void => {
    if (reason !== undefined) {
      gate.logRefusal?.(`SSE stream refused: ${new StreamRefused(reason).message}`);
    }
    refuse(reason);
  };
  const origin = gate.origin();
  if (typeof origin !== "string") {
    return origin.then(async (refused) =>
      refuseLater(refused ? ORIGIN_REFUSED : await streamRefusal(req, gate)),
    );
  }
  const reason = origin === "refused" ? ORIGIN_REFUSED : streamRefusal(req, gate);
  if (reason instanceof Promise) return reason.then(refuseLater);
  refuse(reason);
  return undefined;
}

const ORIGIN_REFUSED = refusal(
  403,
  "origin_not_allowed",
  "This Origin may not call the Sisyphus endpoints.",
);

/**
 * Why the stream is refused, or undefined once it is open: at once for everything but opening it,
 * which reads the settings (a parallel host only; SiYuan 3.7.3 refuses every stream with 405).
 */
function streamRefusal(
  req: PluginRequest,
  gate: StreamGate,
): StreamRefusal | undefined | Promise<StreamRefusal | undefined> {
  if (req.context.path !== "/mcp") return refusal(404, "not_found", "No stream at this path.");
  if (req.request.method.toUpperCase() !== "GET") {
    return refusal(
      406,
      "not_acceptable",
      "MCP requests are answered as JSON: send Accept: application/json, text/event-stream.",
    );
  }
  if (!gate.parallel) {
    return refusal(
      405,
      "method_not_allowed",
      "This host runs requests to one plugin path one at a time, so an open stream would hold every request to /mcp: there is no GET stream (tools.listChanged is not advertised).",
    );
  }
  const streams = gate.streams;
  const port = req.port;
  if (streams === undefined || port === undefined) {
    return refusal(503, "not_ready", "The Sisyphus kernel authority is not serving.");
  }
  const sessionId = header(req, "mcp-session-id");
  if (sessionId === undefined) {
    return refusal(
      400,
      "session_required",
      "The tool notification stream belongs to a 2025-era session: initialize, then GET /mcp with its Mcp-Session-Id.",
    );
  }
  if (!gate.session(sessionId)) return refusal(404, "session_not_found", "Session not found.");
  return streams.open(gate.context, sessionId, port);
}

/** A request header's first value, by name in any case (the kernel sends canonical Go names). */
function header(req: PluginRequest, name: string): string | undefined {
  for (const key of Object.keys(req.request.headers)) {
    if (key.toLowerCase() === name) return req.request.headers[key]?.[0];
  }
  return undefined;
}

/**
 * The delegating side of the authority rule: a process that is not the write authority sends
 * mutation and external calls to the authority's `/mcp` (`mcp-http-client.ts`). No local
 * fallback: unreachable → `write_coordinator_unavailable`; the response lost after the call was
 * sent → `outcome_unknown`. Two links behind this one interface, chosen by the options:
 * `NodeAuthorityLink` (`node-authority-link.ts`: the HTTP authority `authority.json` names,
 * started in the background when allowed) and `KernelAuthorityLink` (`kernel-authority-link.ts`:
 * the plugin's `/mcp` on the SiYuan port, with `/tasks` and the file transfers).
 */

import type { CallToolResult } from "@modelcontextprotocol/server";
import {
  type DelegateLink,
  PRECHECK_META_KEY,
  PRECHECK_SUBJECT_META_KEY,
  type PrecheckVerdict,
  shellError,
  TASK_ID_META_KEY,
} from "@sisyphus/mcp-tools/shell";
import type { BackgroundAuthorityOptions } from "./background-authority.js";
import { DELEGATION_TIMEOUT_MS, SERVER_INFO } from "./constants.js";
import type { KernelAddress } from "./kernel-request.js";
import {
  CONNECT_TIMEOUT_CODE,
  errorCodes,
  httpStatusOf,
  McpHttpClient,
  mentionsUnauthorized,
} from "./mcp-http-client.js";
import type { OnTransfer } from "./transfer-progress.js";

export {
  AUTHORITY_EPOCH_META_KEY,
  PRECHECK_META_KEY,
  TASK_ID_META_KEY,
} from "@sisyphus/mcp-tools/shell";

/** Options both links take. */
interface LinkOptions {
  /** Milliseconds a delegated call may take (default `DELEGATION_TIMEOUT_MS`). */
  readonly timeoutMs?: number;
  /** Told the progress of files staged or downloaded for the kernel authority (the CLI's bars). */
  readonly onTransfer?: OnTransfer;
}

/** Options of the link to the Node HTTP authority of a data directory. */
export interface NodeAuthorityLinkOptions extends LinkOptions {
  /** Data directory holding `authority.json` and `authority.credential`. */
  readonly dataDir: string;
  /** Explicit authority URL (overrides `authority.json`'s URL; nothing is started then). */
  readonly authorityUrl?: string;
  /**
   * The authority's bearer token (`SISYPHUS_AUTH_TOKEN`). Without it the link presents the running
   * authority's local credential from `authority.credential`.
   */
  readonly authToken?: string;
  /** The SiYuan kernel this process reads; an authority writing to another kernel is refused. */
  readonly siyuanUrl?: string;
  /** Start a background authority when none serves the data directory (see `background-authority.ts`). */
  readonly autostart?: Omit<BackgroundAuthorityOptions, "dataDir">;
  /** Not this link's: {@link KernelAuthorityLinkOptions}. */
  readonly kernel?: never;
}

/**
 * Options of the link to the kernel authority (the settings' `kernelEndpointEnabled`): every call
 * goes to the plugin's `/mcp` on the SiYuan port, authenticated with the SiYuan API token, each
 * with a fresh taskId; there is no `authority.json`, credential or autostart to use.
 */
export interface KernelAuthorityLinkOptions extends LinkOptions {
  readonly kernel: KernelAddress;
  /** The timers of `/tasks` requests and response recovery (default: the system's). */
  readonly taskTimers?: TaskTimers;
  /** Not this link's: the kernel authority is never started by a delegate. */
  readonly autostart?: never;
  readonly authorityUrl?: never;
  readonly authToken?: never;
  readonly dataDir?: never;
}

/**
 * The timers the kernel link's `/tasks` requests and response recovery run on: injected so that a
 * test can run the 2-second tries and 100 ms pauses on a fake clock.
 */
export interface TaskTimers {
  /** A signal that aborts `ms` milliseconds from now. */
  deadline(ms: number): AbortSignal;
  /** Resolves `ms` milliseconds from now. */
  pause(ms: number): Promise<void>;
}

/** Options of {@link AuthorityLink.open}: `kernel` selects the kernel link, and excludes `autostart`. */
export type AuthorityLinkOptions = NodeAuthorityLinkOptions | KernelAuthorityLinkOptions;

/** Where and how to send a delegated call, or the refusal to answer instead. */
export type LinkTarget =
  | { url: string; headers: Record<string, string>; meta: Record<string, unknown> }
  | { refusal: CallToolResult };

/** Top-level field of every answer a link makes up itself: whether its write may have left. */
export const NOTHING_SENT = { writeAttempted: false } as const;

/** The refusal when no call could be sent: `write_coordinator_unavailable` with `reason`. */
export function unavailable(reason: string, message: string): { refusal: CallToolResult } {
  return {
    refusal: shellError("write_coordinator_unavailable", message, { reason }, NOTHING_SENT),
  };
}

/** Errors that prove the call never left this process. */
const NOT_DISPATCHED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  CONNECT_TIMEOUT_CODE,
]);

/** Statuses that prove the authority's handler never saw the call. */
const NOT_HANDLED_STATUSES = new Set([404, 503]);

/**
 * One connection to a write authority, opened lazily and reopened after failures. Build one with
 * {@link AuthorityLink.open}. Its methods never throw.
 */
export abstract class AuthorityLink implements DelegateLink {
  /** The kernel link when `options.kernel` is given, else the Node link. */
  static async open(options: AuthorityLinkOptions): Promise<AuthorityLink> {
    if (options.kernel !== undefined) {
      const { KernelAuthorityLink } = await import("./kernel-authority-link.js");
      return new KernelAuthorityLink(options as KernelAuthorityLinkOptions);
    }
    const { NodeAuthorityLink } = await import("./node-authority-link.js");
    return new NodeAuthorityLink(options);
  }

  /** Which authority this link delegates to. */
  abstract readonly kind: "node-http" | "kernel";

  /**
   * Starts reading, without sending anything, what the next call needs to reach the authority (the
   * Node link: `authority.json` and the local credential), so a caller that still waits for
   * something else overlaps the two. The kernel link needs nothing read.
   */
  prefetch(): void {}
  readonly #timeoutMs: number;
  #client: McpHttpClient | undefined;
  #clientKey: string | undefined;
  /** Whether the client's `server/discover` has been answered. */
  #discovered = false;

  protected constructor(options: LinkOptions) {
    this.#timeoutMs = options.timeoutMs ?? DELEGATION_TIMEOUT_MS;
  }

  /**
   * Forwards one tool call. `mayExecute`: the call can execute a write (a real mutation or external
   * effect), so a response lost after sending is `outcome_unknown` rather than
   * `write_coordinator_unavailable`. `transferSignal` stops only files this host moves for the
   * call (the kernel link's staging and downloads), not the delegated call. Never throws.
   */
  call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    mayExecute: boolean,
    extraMeta: Record<string, unknown> = {},
    _transferSignal?: AbortSignal,
  ): Promise<CallToolResult> {
    return this.forward(tool, args, signal, mayExecute, extraMeta);
  }

  /**
   * Asks the authority to run the commit's checks for a call before this process asks its user to
   * confirm it (see `PRECHECK_META_KEY`): the refusal to answer (the authority's, or
   * `write_coordinator_unavailable|changed` when it cannot be asked), or passed with the call's
   * `subject` read there when `withSubject` (`PRECHECK_SUBJECT_META_KEY`). Never executes anything,
   * never throws.
   */
  async precheck(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    withSubject = false,
  ): Promise<PrecheckVerdict> {
    const result = await this.call(tool, args, signal, false, {
      [PRECHECK_META_KEY]: true,
      ...(withSubject ? { [PRECHECK_SUBJECT_META_KEY]: true } : {}),
    });
    if (result.isError === true) return { refused: result };
    const subject = (result.structuredContent as Record<string, unknown> | undefined)?.["subject"];
    return typeof subject === "string" ? { subject } : {};
  }

  /**
   * One `/tasks` operation (`status`, `result`, `cancel`) at the kernel authority: its JSON answer,
   * or `undefined` when it cannot be asked (the Node authority has none; unreachable, not 2xx).
   * Never throws.
   */
  task(_taskId: string, _operation: string): Promise<Record<string, unknown> | undefined> {
    return Promise.resolve(undefined);
  }

  /** Stops what the link keeps open (its connection; the Node link's heartbeat). */
  async close(): Promise<void> {
    this.#reset();
  }

  /** Where to send the next call, or the refusal to answer instead. */
  protected abstract target(): Promise<LinkTarget>;

  /** `_meta` every call carries besides the target's (the Node authority's epoch). */
  protected abstract callMeta(): Record<string, unknown>;

  /**
   * After a lost response of the call with `taskId`: its terminal result, asked of the authority
   * without sending the call again; `undefined` when there is none (the default).
   */
  protected recover(_taskId: string): Promise<CallToolResult | undefined> {
    return Promise.resolve(undefined);
  }

  /** Sends one call to the target and turns each failure into its typed answer. */
  protected async forward(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    mayExecute: boolean,
    extraMeta: Record<string, unknown>,
  ): Promise<CallToolResult> {
    const target = await this.target();
    if ("refusal" in target) return target.refusal;
    let client: McpHttpClient;
    try {
      // A write's preflight or commit goes only to an authority that answered server/discover.
      client = await this.#connect(
        target.url,
        target.headers,
        mayExecute || args["validateOnly"] === true,
      );
    } catch (e) {
      this.#reset();
      return shellError(
        "write_coordinator_unavailable",
        "The write authority cannot be reached.",
        { reason: mentionsUnauthorized(e) ? "unauthorized" : "unreachable" },
        NOTHING_SENT,
      );
    }
    // A caller's own taskId (the CLI's, which it needs to relay Ctrl-C) replaces the fresh one.
    const meta: Record<string, unknown> = { ...target.meta, ...extraMeta, ...this.callMeta() };
    const taskId = typeof meta[TASK_ID_META_KEY] === "string" ? meta[TASK_ID_META_KEY] : undefined;
    // MCP cancellation of a call with a task (the kernel's) is relayed to that task, the only
    // way to stop it (the kernel cannot see this client go away): accepted before its barrier,
    // refused once it is committing, remembered by the kernel if the call has not reached it yet.
    // The call itself is not abandoned: its own answer says what became of it (`cancelled`, or
    // its result once it was committing), as for the CLI's Ctrl-C.
    if (taskId !== undefined && signal?.aborted === true) {
      return shellError(
        "cancelled",
        "The call was cancelled before it was sent to the write authority; nothing was executed.",
        {},
        NOTHING_SENT,
      );
    }
    const relay = () => {
      if (taskId !== undefined) void this.task(taskId, "cancel");
    };
    if (taskId !== undefined) signal?.addEventListener("abort", relay, { once: true });
    const stopsRequest = taskId === undefined ? signal : undefined;
    try {
      return await client.callTool(tool, args, meta, {
        timeoutMs: this.#timeoutMs,
        ...(stopsRequest ? { signal: stopsRequest } : {}),
      });
    } catch (e) {
      this.#reset();
      const status = httpStatusOf(e);
      if (status !== undefined && NOT_HANDLED_STATUSES.has(status)) {
        return shellError(
          "write_coordinator_unavailable",
          `The write authority is not serving (HTTP ${status}); nothing was executed.`,
          { reason: "not_serving" },
          NOTHING_SENT,
        );
      }
      if (errorCodes(e).some((c) => NOT_DISPATCHED.has(c)) || mentionsUnauthorized(e)) {
        return shellError(
          "write_coordinator_unavailable",
          "The write authority cannot be reached; nothing was sent.",
          { reason: mentionsUnauthorized(e) ? "unauthorized" : "unreachable" },
          NOTHING_SENT,
        );
      }
      // A cancelled call's request was not stopped here (see the relay): its failure is real.
      if (taskId !== undefined) {
        const recovered = await this.recover(taskId);
        if (recovered !== undefined) return recovered;
      }
      if (!mayExecute) {
        return shellError(
          "write_coordinator_unavailable",
          "The write authority did not answer; nothing was executed.",
          { reason: "no_response" },
          NOTHING_SENT,
        );
      }
      return shellError(
        "outcome_unknown",
        "The call reached the write authority but its response was lost.",
        {
          reason: "response_lost",
          ...(typeof args["requestId"] === "string" ? { requestId: args["requestId"] } : {}),
          ...(taskId === undefined ? {} : { taskId }),
        },
        { writeAttempted: true },
      );
    } finally {
      signal?.removeEventListener("abort", relay);
    }
  }

  /**
   * The client of `url` with `headers`. Before the first preflight or call that may execute, its
   * `server/discover` is answered (once per client), so a write goes only to an authority that
   * answered in this era; a read is sent without that round trip (the spec lets a client send any
   * request first), and its failures answer the same reasons, nothing executed.
   */
  async #connect(
    url: string,
    headers: Record<string, string>,
    discover: boolean,
  ): Promise<McpHttpClient> {
    const key = `${url}\n${JSON.stringify(headers)}`;
    if (this.#client === undefined || this.#clientKey !== key) {
      this.#reset();
      this.#client = new McpHttpClient(new URL(url), headers, {
        name: `${SERVER_INFO.name}-delegate`,
        version: SERVER_INFO.version,
      });
      this.#clientKey = key;
    }
    const client = this.#client;
    if (discover && !this.#discovered) {
      await client.discover({ timeoutMs: this.#timeoutMs });
      this.#discovered = true;
    }
    return client;
  }

  #reset(): void {
    const c = this.#client;
    this.#client = undefined;
    this.#clientKey = undefined;
    this.#discovered = false;
    c?.close();
  }
}

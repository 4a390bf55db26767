/**
 * The delegating side of the authority rule: a process that is not the write authority sends
 * mutation and external calls to the HTTP authority's `/mcp` with the official MCP client. No
 * local fallback: unreachable → `write_coordinator_unavailable`; the response lost after the call
 * was sent → `outcome_unknown`; another kind of authority than the one first seen →
 * `write_coordinator_changed`. When none serves the data directory, the link may start the Node
 * authority in the background (`background-authority.ts`) and delegate to it.
 */

import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { KERNEL_MCP_PATH, PLUGIN_NAME } from "@sisyphus/mcp-tools/settings";
import {
  AUTHORITY_EPOCH_META_KEY,
  type DelegateLink,
  PRECHECK_META_KEY,
  shellError,
} from "@sisyphus/mcp-tools/shell";
import {
  type BackgroundAuthorityOptions,
  type BackgroundStart,
  startBackgroundAuthority,
} from "./background-authority.js";
import {
  DATA_FILES,
  DELEGATION_TIMEOUT_MS,
  HEALTH_PATH,
  SERVER_INFO,
  TASK_RECOVERY_ATTEMPTS,
  TASK_RECOVERY_PAUSE_MS,
  TASK_RECOVERY_TIMEOUT_MS,
} from "./constants.js";
import {
  type AuthorityRecord,
  pidAlive,
  readAuthorityRecord,
  readLocalCredential,
} from "./data-dir.js";
import { importEsm } from "./import-esm.js";
import { downloadedExportCall, exportLayout } from "./kernel-download.js";
import { isLocalUpload, stagedUploadCall } from "./kernel-staging.js";
import type { OnTransfer } from "./transfer-progress.js";

export { AUTHORITY_EPOCH_META_KEY, PRECHECK_META_KEY } from "@sisyphus/mcp-tools/shell";

const NOT_DISPATCHED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function errorCodes(e: unknown): string[] {
  const codes: string[] = [];
  let cur: unknown = e;
  for (let depth = 0; depth < 8 && cur !== undefined && cur !== null; depth++) {
    const c = (cur as { code?: unknown }).code;
    if (typeof c === "string" || typeof c === "number") codes.push(String(c));
    const errors = (cur as { errors?: unknown }).errors;
    if (Array.isArray(errors)) for (const inner of errors) codes.push(...errorCodes(inner));
    cur = (cur as { cause?: unknown }).cause;
  }
  return codes;
}

/**
 * The HTTP status of a failed MCP POST, if the client's error carries one. The kernel's plugin
 * route answers 404 (no such plugin) and 503 (not running) without calling the plugin at all.
 */
function httpStatusOf(e: unknown): number | undefined {
  let cur: unknown = e;
  for (let depth = 0; depth < 8 && cur !== undefined && cur !== null; depth++) {
    const data = (cur as { data?: { status?: unknown } }).data;
    if (typeof data?.status === "number") return data.status;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Statuses that prove the authority's handler never saw the call. */
const NOT_HANDLED_STATUSES = new Set([404, 503]);

function mentionsUnauthorized(e: unknown): boolean {
  let cur: unknown = e;
  for (let depth = 0; depth < 8 && cur !== undefined && cur !== null; depth++) {
    const msg = (cur as { message?: unknown }).message;
    if (typeof msg === "string" && /\b401\b|unauthori[sz]ed/i.test(msg)) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

/** Options of `AuthorityLink`. */
export interface AuthorityLinkOptions {
  /** Data directory holding `authority.json` and `authority.credential`. */
  dataDir: string;
  /** Explicit authority URL (overrides `authority.json`'s URL; nothing is started then). */
  authorityUrl?: string;
  /**
   * The authority's bearer token (`SISYPHUS_AUTH_TOKEN`). Without it the link presents the running
   * authority's local credential from `authority.credential`.
   */
  authToken?: string;
  /** The SiYuan kernel this process reads; an authority writing to another kernel is refused. */
  siyuanUrl?: string;
  /** Start a background authority when none serves the data directory (see `background-authority.ts`). */
  autostart?: Omit<BackgroundAuthorityOptions, "dataDir">;
  /**
   * The kernel authority instead (the settings' `kernelEndpointEnabled`): every call goes to the
   * plugin's `/mcp` on the SiYuan port, authenticated with the SiYuan API token, each with a fresh
   * taskId; `authority.json`, the credential and the autostart are not used.
   */
  kernel?: { readonly siyuanUrl: string; readonly siyuanToken?: string };
  timeoutMs?: number;
  /** Told the progress of files staged or downloaded for the kernel authority (the CLI's bars). */
  onTransfer?: OnTransfer;
}

/** Where and how to send a delegated call, or the refusal to answer instead. */
type Target =
  | { url: string; headers: Record<string, string>; meta: Record<string, unknown> }
  | { refusal: CallToolResult };

/** `_meta` key of the taskId every delegated kernel call carries (spec: task-control extension). */
export const TASK_ID_META_KEY = "io.siyuan.sisyphus/taskId";
/** The kernel authority's task-control endpoint. */
const KERNEL_TASKS_PATH = `/plugin/private/${PLUGIN_NAME}/tasks`;

/** Top-level field of every answer this link makes up itself: whether its write may have left. */
const NOTHING_SENT = { writeAttempted: false } as const;

function unavailable(reason: string, message: string): { refusal: CallToolResult } {
  return {
    refusal: shellError("write_coordinator_unavailable", message, { reason }, NOTHING_SENT),
  };
}

/** Whether two kernel base URLs name the same kernel (user info and a trailing slash ignored). */
function sameKernel(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      const url = new URL(u);
      return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
    } catch {
      return u;
    }
  };
  return norm(a) === norm(b);
}

/**
 * One connection to the HTTP authority, opened lazily and reopened after failures. The authority is
 * the one `authority.json` names (started in the background first when allowed and none serves);
 * a restarted authority of the same kind is used as it is (its lease pool is new, so leases issued
 * before answer `preflight_lease_invalid`, reason `other_epoch`); another kind of authority answers
 * `write_coordinator_changed`.
 */
export class AuthorityLink implements DelegateLink {
  readonly #options: AuthorityLinkOptions;
  #client: Client | undefined;
  #clientKey: string | undefined;
  #seen: AuthorityRecord | undefined;
  #starting: Promise<BackgroundStart> | undefined;
  #heartbeat: { timer: NodeJS.Timeout; key: string } | undefined;

  constructor(options: AuthorityLinkOptions) {
    this.#options = options;
  }

  /**
   * Forwards one tool call. `mayExecute`: the call can execute a write (a real mutation or external
   * effect), so a response lost after sending is `outcome_unknown` rather than `write_coordinator_unavailable`.
   * At the kernel authority an upload of a local file is staged first (`kernel-staging.ts`), and
   * an export's download manifest is saved on this host (`kernel-download.ts`).
   * `transferSignal` stops only those local transfers, not the delegated call: a shell that
   * cancels the call itself through `/tasks` and waits for its answer (the CLI's Ctrl-C) still
   * stops a staging or a download at once, removing its partial output.
   * Never throws.
   */
  call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    mayExecute: boolean,
    extraMeta: Record<string, unknown> = {},
    transferSignal?: AbortSignal,
  ): Promise<CallToolResult> {
    const kernel = this.#options.kernel;
    const transfer =
      transferSignal === undefined || signal === undefined
        ? (transferSignal ?? signal)
        : AbortSignal.any([signal, transferSignal]);
    if (kernel !== undefined && isLocalUpload(tool, args)) {
      return stagedUploadCall(
        kernel,
        args,
        transfer,
        (staged) => this.#forward(tool, staged, signal, mayExecute, extraMeta),
        this.#options.onTransfer,
      );
    }
    const layout = kernel === undefined ? undefined : exportLayout(tool, args);
    if (kernel !== undefined && layout !== undefined && extraMeta[PRECHECK_META_KEY] !== true) {
      return downloadedExportCall(
        kernel,
        layout,
        args,
        transfer,
        () => this.#forward(tool, args, signal, mayExecute, extraMeta),
        {},
        this.#options.onTransfer,
      );
    }
    return this.#forward(tool, args, signal, mayExecute, extraMeta);
  }

  async #forward(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    mayExecute: boolean,
    extraMeta: Record<string, unknown>,
  ): Promise<CallToolResult> {
    const target = await this.#target();
    if ("refusal" in target) return target.refusal;
    let client: Client;
    try {
      client = await this.#connect(target.url, target.headers);
    } catch (e) {
      await this.#reset();
      return shellError(
        "write_coordinator_unavailable",
        "The write authority cannot be reached.",
        { reason: mentionsUnauthorized(e) ? "unauthorized" : "unreachable" },
        NOTHING_SENT,
      );
    }
    // A caller's own taskId (the CLI's, which it needs to relay Ctrl-C) replaces the fresh one.
    const meta: Record<string, unknown> = {
      ...target.meta,
      ...extraMeta,
      ...(this.#seen === undefined ? {} : { [AUTHORITY_EPOCH_META_KEY]: this.#seen.epoch }),
    };
    const taskId = typeof meta[TASK_ID_META_KEY] === "string" ? meta[TASK_ID_META_KEY] : undefined;
    // MCP cancellation of a kernel call is relayed to its task (the kernel cannot see this
    // client go away): accepted before its barrier, refused once it is committing.
    const relay = () => {
      if (taskId !== undefined) void this.#task(taskId, "cancel");
    };
    if (taskId !== undefined) signal?.addEventListener("abort", relay, { once: true });
    try {
      const result = await client.callTool(
        { name: tool, arguments: args, _meta: meta },
        {
          ...(signal ? { signal } : {}),
          timeout: this.#options.timeoutMs ?? DELEGATION_TIMEOUT_MS,
        },
      );
      return result as CallToolResult;
    } catch (e) {
      await this.#reset();
      const codes = errorCodes(e);
      const status = httpStatusOf(e);
      if (status !== undefined && NOT_HANDLED_STATUSES.has(status)) {
        return shellError(
          "write_coordinator_unavailable",
          `The write authority is not serving (HTTP ${status}); nothing was executed.`,
          { reason: "not_serving" },
          NOTHING_SENT,
        );
      }
      if (codes.some((c) => NOT_DISPATCHED.has(c)) || mentionsUnauthorized(e)) {
        return shellError(
          "write_coordinator_unavailable",
          "The write authority cannot be reached; nothing was sent.",
          { reason: mentionsUnauthorized(e) ? "unauthorized" : "unreachable" },
          NOTHING_SENT,
        );
      }
      if (taskId !== undefined && signal?.aborted !== true) {
        const recovered = await this.#recover(taskId);
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
   * After a lost response from the kernel authority: asks `/tasks` for that task's result only, up
   * to `TASK_RECOVERY_ATTEMPTS` times (`TASK_RECOVERY_TIMEOUT_MS` each, `TASK_RECOVERY_PAUSE_MS`
   * apart) — never the business call again. `undefined` when no terminal result came back.
   */
  async #recover(taskId: string): Promise<CallToolResult | undefined> {
    for (let attempt = 0; attempt < TASK_RECOVERY_ATTEMPTS; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, TASK_RECOVERY_PAUSE_MS));
      const answer = await this.#task(taskId, "result");
      const result = answer?.["result"];
      if (answer?.["found"] === true && result !== undefined && answer["state"] !== "running") {
        return result as CallToolResult;
      }
    }
    return undefined;
  }

  /**
   * One `/tasks` operation (`status`, `result`, `cancel`) at the kernel authority: its JSON answer,
   * or `undefined` when it cannot be asked (no kernel authority, unreachable, not 2xx). Never throws.
   */
  task(taskId: string, operation: string): Promise<Record<string, unknown> | undefined> {
    return this.#task(taskId, operation);
  }

  /** One `/tasks` operation at the kernel authority; `undefined` when it cannot be asked. */
  async #task(taskId: string, operation: string): Promise<Record<string, unknown> | undefined> {
    const kernel = this.#options.kernel;
    if (kernel === undefined) return undefined;
    try {
      const res = await fetch(`${kernel.siyuanUrl}${KERNEL_TASKS_PATH}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(kernel.siyuanToken === undefined
            ? {}
            : { authorization: `Token ${kernel.siyuanToken}` }),
        },
        body: JSON.stringify({ taskId, operation }),
        signal: AbortSignal.timeout(TASK_RECOVERY_TIMEOUT_MS),
      });
      return res.ok ? ((await res.json()) as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Resolves the authority to send to: `authority.json` (starting one first when allowed), the URL and the bearer. */
  async #target(): Promise<Target> {
    const o = this.#options;
    if (o.kernel !== undefined) {
      const token = o.kernel.siyuanToken;
      return {
        url: `${o.kernel.siyuanUrl}${KERNEL_MCP_PATH}`,
        headers: token === undefined ? {} : { authorization: `Token ${token}` },
        meta: { [TASK_ID_META_KEY]: randomUUID() },
      };
    }
    let record = await readAuthorityRecord(o.dataDir);
    if (record === "untrusted") {
      return unavailable(
        "untrusted_record",
        `${join(o.dataDir, DATA_FILES.authority)} is not a private file of this user (owner, mode 0600); refusing to delegate to what it names.`,
      );
    }
    const served = record !== undefined && pidAlive(record.pid);
    if (o.authorityUrl === undefined && o.autostart !== undefined && !served) {
      const started = await this.#start(record?.epoch);
      if (!started.ok) {
        return unavailable(
          "start_failed",
          `No write authority serves ${o.dataDir}, and ${started.message}.`,
        );
      }
      record = started.record;
    }
    if (record !== undefined && this.#seen !== undefined && record.kind !== this.#seen.kind) {
      return {
        refusal: shellError(
          "write_coordinator_changed",
          "The write authority changed kind since this process first used it.",
          { reason: "other_kind" },
          NOTHING_SENT,
        ),
      };
    }
    if (
      record?.siyuanUrl !== undefined &&
      o.siyuanUrl !== undefined &&
      !sameKernel(record.siyuanUrl, o.siyuanUrl)
    ) {
      return unavailable(
        "other_kernel",
        `The write authority of ${o.dataDir} writes to the SiYuan kernel at ${record.siyuanUrl}, not ${new URL(o.siyuanUrl).host}: use another --data-dir for this kernel.`,
      );
    }
    const url = o.authorityUrl ?? record?.url ?? this.#seen?.url;
    if (url === undefined) {
      return unavailable(
        "no_authority",
        "No write authority serves this data directory: start `sisyphus-server --http` with the same data directory, or let this process start one (remove --no-autostart).",
      );
    }
    let token = o.authToken;
    if (token === undefined) {
      const credential = await readLocalCredential(o.dataDir);
      if (credential === "untrusted") {
        return unavailable(
          "untrusted_credential",
          `${join(o.dataDir, DATA_FILES.credential)} is not a private file of this user (owner, mode 0600); refusing to use it.`,
        );
      }
      token = credential;
    }
    if (token === undefined) {
      return unavailable(
        "no_auth_token",
        "No credential for the write authority: it left no authority.credential (it may be stopping), and SISYPHUS_AUTH_TOKEN (or --auth-token) is not set.",
      );
    }
    // A restart of the same kind is the same authority's successor (same ledger): adopt its epoch.
    if (record !== undefined) this.#seen = record;
    if (record?.idleStopMs !== undefined) this.#keepAwake(url, token, record.idleStopMs);
    return { url, headers: { authorization: `Bearer ${token}` }, meta: {} };
  }

  /** One background start at a time for all of this process's calls. */
  #start(staleEpoch: string | undefined): Promise<BackgroundStart> {
    const autostart = this.#options.autostart as Omit<BackgroundAuthorityOptions, "dataDir">;
    this.#starting ??= startBackgroundAuthority(
      { ...autostart, dataDir: this.#options.dataDir },
      staleEpoch,
    ).finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  /**
   * Heartbeats (an authenticated `GET /health`) at a third of an idle-stopping authority's idle
   * period, so it keeps serving while this process lives. The timer never keeps this process alive.
   */
  #keepAwake(url: string, token: string, idleStopMs: number): void {
    const key = `${url}\n${token}`;
    if (this.#heartbeat?.key === key) return;
    clearInterval(this.#heartbeat?.timer);
    const health = new URL(HEALTH_PATH, url);
    const timer = setInterval(
      () => {
        fetch(health, { headers: { authorization: `Bearer ${token}` } })
          .then((r) => r.body?.cancel())
          .catch(() => undefined);
      },
      Math.max(20, Math.floor(idleStopMs / 3)),
    );
    timer.unref();
    this.#heartbeat = { timer, key };
  }

  /**
   * Asks the authority to run the commit's checks for a call before this process asks its user to
   * confirm it (see `PRECHECK_META_KEY`): `undefined` when they pass, else the refusal to answer
   * (the authority's, or `write_coordinator_unavailable|changed` when it cannot be asked). Never
   * executes anything, never throws.
   */
  async precheck(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<CallToolResult | undefined> {
    const result = await this.call(tool, args, signal, false, { [PRECHECK_META_KEY]: true });
    return result.isError === true ? result : undefined;
  }

  async close(): Promise<void> {
    clearInterval(this.#heartbeat?.timer);
    this.#heartbeat = undefined;
    await this.#reset();
  }

  async #connect(url: string, headers: Record<string, string>): Promise<Client> {
    const key = `${url}\n${JSON.stringify(headers)}`;
    if (this.#client !== undefined && this.#clientKey === key) return this.#client;
    await this.#reset();
    // Loaded on first delegation, so the HTTP authority never loads the client SDK.
    const { Client, StreamableHTTPClientTransport } = (await importEsm(
      "@modelcontextprotocol/client",
    )) as typeof import("@modelcontextprotocol/client");
    const client = new Client(
      { name: `${SERVER_INFO.name}-delegate`, version: SERVER_INFO.version },
      { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers },
    });
    await client.connect(transport);
    this.#client = client;
    this.#clientKey = key;
    return client;
  }

  async #reset(): Promise<void> {
    const c = this.#client;
    this.#client = undefined;
    this.#clientKey = undefined;
    await c?.close().catch(() => undefined);
  }
}

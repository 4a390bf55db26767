/**
 * The delegating side of the authority rule: a process that is not the write authority sends
 * mutation and external calls to the HTTP authority's `/mcp` with the official MCP client. No
 * local fallback: unreachable → `write_coordinator_unavailable`; the response lost after the call
 * was sent → `outcome_unknown`; a different authority than the one first seen →
 * `write_coordinator_changed`.
 */
import type { Client } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { DELEGATION_TIMEOUT_MS, SERVER_INFO } from "./constants.js";
import { type AuthorityRecord, readAuthorityRecord } from "./data-dir.js";
import { importEsm } from "./import-esm.js";
import { shellError } from "./results.js";

/** `_meta` key carrying the authority epoch the delegating process expects. */
export const AUTHORITY_EPOCH_META_KEY = "io.sisyphus/authorityEpoch";

/**
 * `_meta` key of a precheck-only call (`true`): the authority runs the commit's checks that need no
 * kernel read (request ID, ledger, credential, lease) and answers their refusal, or
 * `{ precheck: "passed" }`; it never executes, confirms or admits the call.
 */
export const PRECHECK_META_KEY = "io.sisyphus/precheckOnly";

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
  /** Data directory holding `authority.json`. */
  dataDir: string;
  /** Explicit authority URL (overrides `authority.json`'s URL). */
  authorityUrl?: string;
  /** The authority's bearer token (same as `SISYPHUS_AUTH_TOKEN`). */
  authToken?: string;
  timeoutMs?: number;
}

/** One connection to the HTTP authority, opened lazily and reopened after failures. */
export class AuthorityLink {
  readonly #options: AuthorityLinkOptions;
  #client: Client | undefined;
  #clientUrl: string | undefined;
  #seen: AuthorityRecord | undefined;

  constructor(options: AuthorityLinkOptions) {
    this.#options = options;
  }

  /**
   * Forwards one tool call. `mayExecute`: the call can execute a write (a real mutation or external
   * effect), so a response lost after sending is `outcome_unknown` rather than `write_coordinator_unavailable`.
   * Never throws.
   */
  async call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    mayExecute: boolean,
    extraMeta: Record<string, unknown> = {},
  ): Promise<CallToolResult> {
    const record = await readAuthorityRecord(this.#options.dataDir);
    if (this.#seen !== undefined && record !== undefined) {
      if (record.epoch !== this.#seen.epoch || record.kind !== this.#seen.kind) {
        return shellError(
          "write_coordinator_changed",
          "The write authority changed since this process first used it.",
          {
            reason: record.kind !== this.#seen.kind ? "other_kind" : "other_epoch",
          },
        );
      }
    }
    const url = this.#options.authorityUrl ?? record?.url ?? this.#seen?.url;
    if (url === undefined) {
      return shellError(
        "write_coordinator_unavailable",
        "No write authority found: start `sisyphus-server --http` with the same data directory.",
        {
          reason: "no_authority",
        },
      );
    }
    if (this.#options.authToken === undefined) {
      return shellError(
        "write_coordinator_unavailable",
        "No auth token for the write authority: set SISYPHUS_AUTH_TOKEN (or --auth-token).",
        {
          reason: "no_auth_token",
        },
      );
    }
    if (this.#seen === undefined && record !== undefined) this.#seen = record;
    let client: Client;
    try {
      client = await this.#connect(url, this.#options.authToken);
    } catch (e) {
      await this.#reset();
      return shellError("write_coordinator_unavailable", "The write authority cannot be reached.", {
        reason: mentionsUnauthorized(e) ? "unauthorized" : "unreachable",
      });
    }
    const meta = {
      ...extraMeta,
      ...(this.#seen === undefined ? {} : { [AUTHORITY_EPOCH_META_KEY]: this.#seen.epoch }),
    };
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
      if (codes.some((c) => NOT_DISPATCHED.has(c)) || mentionsUnauthorized(e)) {
        return shellError(
          "write_coordinator_unavailable",
          "The write authority cannot be reached; nothing was sent.",
          {
            reason: mentionsUnauthorized(e) ? "unauthorized" : "unreachable",
          },
        );
      }
      if (!mayExecute) {
        return shellError(
          "write_coordinator_unavailable",
          "The write authority did not answer; nothing was executed.",
          {
            reason: "no_response",
          },
        );
      }
      return shellError(
        "outcome_unknown",
        "The call reached the write authority but its response was lost.",
        {
          reason: "response_lost",
          ...(typeof args["requestId"] === "string" ? { requestId: args["requestId"] } : {}),
        },
      );
    }
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
    await this.#reset();
  }

  async #connect(url: string, token: string): Promise<Client> {
    if (this.#client !== undefined && this.#clientUrl === url) return this.#client;
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
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    this.#client = client;
    this.#clientUrl = url;
    return client;
  }

  async #reset(): Promise<void> {
    const c = this.#client;
    this.#client = undefined;
    this.#clientUrl = undefined;
    await c?.close().catch(() => undefined);
  }
}

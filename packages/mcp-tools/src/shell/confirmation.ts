/**
 * The confirmation of a dangerous call: how the client is asked (MCP 2026-07-28 multi-round form
 * elicitation, legacy session elicitation, or the `confirm: true` convention), the commit's own
 * checks before anyone is asked, and the verdict of the answer. Part of the gateway
 * (`gateway.ts`), which decides when a call needs it.
 */
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  inputRequired,
  inputResponse,
  PROTOCOL_VERSION_META_KEY,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { ParsedCall } from "../parsed-call.js";
import type { PermissionMap } from "../permissions.js";
import { shellError } from "../tool-result.js";
import type { ConfirmationBinding, ConfirmationBook } from "./confirmation-book.js";

/** Per-connection facts the gateway needs besides the request context. */
export interface GatewayConnection {
  /** The authenticated principal (`bearer:<digest>` or `stdio:<pid>`). */
  principal: string;
  /** The legacy (2025) client capabilities of this connection, if it initialised. */
  legacyCapabilities: () => ClientCapabilities | undefined;
}

/** A dangerous call's confirmation is given the call, parsed once, and the request it came in. */
export interface ConfirmationRequest {
  readonly parsed: ParsedCall;
  /** The `confirm` argument as passed: the shell's convention, not one of the call's arguments. */
  readonly confirmArg: unknown;
  readonly ctx: ServerContext;
  readonly conn: GatewayConnection;
  /** The call's permissions from its settings snapshot (absent: the runtime's own). */
  readonly permissions?: PermissionMap | undefined;
}

/** Confirmed, or the result that answers the call instead (declined, invalid, asked, refused). */
export type ConfirmationVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly result: CallToolResult };

/**
 * The verdict of a commit's checks before confirmation: the refusal the commit would answer, or
 * passed with what the call would remove or move (`subject`, for the question; absent when there
 * is nothing to say).
 */
export type PrecheckVerdict =
  | { readonly refused: CallToolResult }
  | { readonly refused?: undefined; readonly subject?: string | undefined };

/**
 * The commit's checks that need no kernel read, where the ledger and leases live (this process
 * or its authority), and, when they pass, the call's subject (bounded reads there, no write,
 * outside the write lane) when `withSubject` (someone will be asked, or told to ask).
 * `permissions`: the call's own, when this process read its settings.
 */
export type CommitPrecheck = (
  parsed: ParsedCall,
  signal: AbortSignal,
  permissions: PermissionMap | undefined,
  withSubject: boolean,
) => Promise<PrecheckVerdict>;

const CONFIRM_KEY = "confirm";
/** The form a dangerous call's confirmation asks for: one boolean, `confirm`. */
const CONFIRM_SCHEMA: ElicitRequestFormParams["requestedSchema"] = {
  type: "object",
  properties: {
    [CONFIRM_KEY]: {
      type: "boolean",
      title: "Confirm",
      description: "true to run the destructive action",
    },
  },
  required: [CONFIRM_KEY],
};

/**
 * The question a dangerous call's confirmation asks the user: the action, its target as passed and,
 * when known, what it would remove or move (`subject`), so they can answer without looking it up.
 */
function describeOperation({ tool, args }: ParsedCall, subject: string | undefined): string {
  const action = typeof args["action"] === "string" ? `.${args["action"]}` : "";
  const target = ["id", "path", "notebook", "ids"].map((k) => args[k]).find((v) => v !== undefined);
  const where = target === undefined ? "" : ` on ${JSON.stringify(target).slice(0, 120)}`;
  const what = subject === undefined ? "" : `: ${subject}`;
  return `Sisyphus asks to run the destructive action ${tool}${action}${where}${what}. Confirm?`;
}

/** Whether a declared elicitation capability includes form mode (`{}` counts as form). */
export function declaresForm(elicitation: unknown): boolean {
  if (elicitation === undefined || elicitation === null || typeof elicitation !== "object")
    return false;
  const keys = Object.keys(elicitation as object);
  return keys.length === 0 || keys.includes("form");
}

/** How this request's client will be asked to confirm: modern or legacy form elicitation, or not. */
function clientDeclaration(
  ctx: ServerContext,
  conn: GatewayConnection,
): { modern: boolean; declaration: unknown } {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const modern = envelope?.[PROTOCOL_VERSION_META_KEY] !== undefined;
  const declaration = modern
    ? (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined)?.elicitation
    : conn.legacyCapabilities()?.elicitation;
  return { modern, declaration };
}

/**
 * A preflight answer that says `confirmationRequired: true` (from the runtime, here or at the
 * authority) gets `confirmation`: how this client's commit will be confirmed, `"elicitation"` when
 * it declares form elicitation (the server asks the user during the commit), else
 * `"confirm_true"` (the agent asks the user and commits with `confirm: true`). This process decides,
 * overriding what an authority said for its own connection.
 */
export function withConfirmationMode(
  result: CallToolResult,
  ctx: ServerContext,
  conn: GatewayConnection,
  subject?: string,
): CallToolResult {
  const sc = result.structuredContent as Record<string, unknown> | undefined;
  if (result.isError === true || sc?.["confirmationRequired"] !== true) return result;
  const form = declaresForm(clientDeclaration(ctx, conn).declaration);
  // An authority's answer to a delegating process may carry its subject: kept for an agent who
  // asks the user, dropped when the server asks (the question names it).
  const { subject: authoritySubject, ...rest } = sc;
  const said = form
    ? undefined
    : (subject ?? (typeof authoritySubject === "string" ? authoritySubject : undefined));
  const structuredContent = {
    ...rest,
    confirmation: form ? "elicitation" : "confirm_true",
    ...(said === undefined ? {} : { subject: said }),
    nextCall: nextCallOf(sc, form, said),
  };
  return {
    ...result,
    content: [{ type: "text", text: JSON.stringify(structuredContent) }],
    structuredContent,
  };
}

/**
 * The commit a confirmed preflight answer leads to, in words: the same call without validateOnly,
 * with the answer's requestId and credential, and `confirm: true` after asking the user when the
 * client cannot be asked by the server.
 */
function nextCallOf(sc: Record<string, unknown>, form: boolean, subject?: string): string {
  const field = sc["preconditionField"];
  const credential =
    typeof field === "string" ? ` and ${field}:${JSON.stringify(sc[field] ?? "")}` : "";
  const commit = `send this call again without validateOnly, with requestId:${JSON.stringify(sc["requestId"] ?? "")}${credential}`;
  return form
    ? `${commit[0]!.toUpperCase()}${commit.slice(1)}; the server asks the user to confirm during it.`
    : `Ask the user to confirm this action${subject === undefined ? "" : `, naming what it acts on (subject: ${subject})`} (a request from them for exactly this change is their yes); if they agree, ${commit} and confirm:true. If they do not, make no call.`;
}

/** The verdict of a form elicitation's answer (`accept` with `confirm: true` confirms). */
function fromElicitation(action: unknown, content: unknown): ConfirmationVerdict {
  if (action === "decline") {
    return {
      ok: false,
      result: shellError("confirmation_declined", "The user declined.", {}, { cancelled: false }),
    };
  }
  if (action === "cancel") {
    return {
      ok: false,
      result: shellError(
        "confirmation_cancelled",
        "The user cancelled the confirmation.",
        {},
        { cancelled: true },
      ),
    };
  }
  if (action === "accept") {
    const value = (content as Record<string, unknown> | undefined)?.[CONFIRM_KEY];
    if (value === true) return { ok: true };
    if (value === false) {
      return {
        ok: false,
        result: shellError(
          "confirmation_declined",
          "The user answered confirm=false.",
          {},
          { cancelled: false },
        ),
      };
    }
    return {
      ok: false,
      result: shellError(
        "confirmation_invalid",
        "The confirmation content is missing or not a boolean `confirm`.",
        { reason: "content" },
        { cancelled: false },
      ),
    };
  }
  return {
    ok: false,
    result: shellError(
      "confirmation_invalid",
      "The confirmation answer is malformed.",
      { reason: "action" },
      { cancelled: false },
    ),
  };
}

/**
 * The confirmation of one dangerous call, in this order:
 * 1. a `requestState` that is present is always redeemed against this request's binding, whatever
 *    capabilities it declares now (spec: removing capabilities cannot bypass an issued
 *    confirmation): forged, expired, reused or re-bound → `confirmation_invalid`; a valid one
 *    passes the commit's checks (below), then needs the form answer in `inputResponses`;
 * 2. `confirm: false` declines;
 * 3. the commit's own checks that need no kernel read (request ID, ledger, credential, lease):
 *    a commit that would be refused answers that refusal, and nobody is asked to approve it; when
 *    someone will be asked (4, 6, 7), they also give the call's subject, which the question names;
 * 4. a modern client declaring form elicitation is asked (`input_required`), even when it passed
 *    `confirm: true` (spec: confirm=true alone cannot bypass the form);
 * 5. a legacy session that passed `confirm: true` keeps that convention and is not asked again;
 * 6. a legacy session declaring form elicitation is asked over the session;
 * 7. otherwise `confirm: true` confirms and its absence is `confirmation_required`.
 */
export function createConfirmation(
  confirmations: ConfirmationBook,
  precheck: CommitPrecheck,
): (request: ConfirmationRequest) => Promise<ConfirmationVerdict> {
  const declined = (message: string): ConfirmationVerdict => ({
    ok: false,
    result: shellError("confirmation_declined", message, {}, { cancelled: false }),
  });
  const invalidConfirmation = (message: string, reason: string): ConfirmationVerdict => ({
    ok: false,
    result: shellError("confirmation_invalid", message, { reason }, { cancelled: false }),
  });

  return async function confirm({
    parsed,
    confirmArg,
    ctx,
    conn,
    permissions,
  }: ConfirmationRequest): Promise<ConfirmationVerdict> {
    const { modern, declaration } = clientDeclaration(ctx, conn);
    const binding: ConfirmationBinding = {
      principal: conn.principal,
      declaration,
      tool: parsed.tool,
      args: parsed.args,
    };
    const state = ctx.mcpReq.requestState<unknown>();
    if (state !== undefined) {
      const redeemed = confirmations.redeem(state, binding);
      if (!redeemed.ok) {
        return invalidConfirmation(
          `The confirmation state is ${redeemed.reason}.`,
          redeemed.reason,
        );
      }
      const checked = await precheck(parsed, ctx.mcpReq.signal, permissions, false);
      if (checked.refused !== undefined) return { ok: false, result: checked.refused };
      if (confirmArg === false) return declined("confirm=false was passed.");
      const view = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
      if (view.kind !== "elicit") {
        return invalidConfirmation("The retried call carries no confirmation answer.", "missing");
      }
      return fromElicitation(view.action, view.content);
    }
    if (confirmArg === false) return declined("confirm=false was passed.");
    const form = declaresForm(declaration);
    // Someone will be asked (or the agent told to ask) unless a `confirm: true` is kept as is.
    const asks = (modern && form) || confirmArg !== true;
    const checked = await precheck(parsed, ctx.mcpReq.signal, permissions, asks);
    if (checked.refused !== undefined) return { ok: false, result: checked.refused };
    const { subject } = checked;
    if (modern && form) {
      const requestState = confirmations.issue(binding);
      const asked = inputRequired({
        inputRequests: {
          [CONFIRM_KEY]: inputRequired.elicit({
            message: describeOperation(parsed, subject),
            requestedSchema: CONFIRM_SCHEMA,
          }),
        },
        requestState,
      });
      return { ok: false, result: asked as unknown as CallToolResult };
    }
    if (confirmArg === true) return { ok: true };
    if (!modern && form) {
      try {
        const answer = await ctx.mcpReq.elicitInput({
          mode: "form",
          message: describeOperation(parsed, subject),
          requestedSchema: CONFIRM_SCHEMA,
        });
        return fromElicitation(answer.action, answer.content);
      } catch {
        return invalidConfirmation(
          "The client did not answer the confirmation request.",
          "elicitation_failed",
        );
      }
    }
    return {
      ok: false,
      result: shellError(
        "confirmation_required",
        "This destructive action needs confirmation.",
        subject === undefined ? {} : { subject },
        { cancelled: false },
      ),
    };
  };
}

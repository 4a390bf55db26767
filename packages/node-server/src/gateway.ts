/**
 * The shell's route for every `tools/call`: admission (reads 4 at a time, one FIFO lane for
 * mutations and external effects, cap 128 → `queue_full`), confirmation of dangerous actions
 * (MCP 2026-07-28 multi-round form elicitation, legacy session elicitation, or the `confirm: true`
 * convention), then either the local tool runtime or, in a delegating process, the HTTP authority.
 */
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  inputRequired,
  inputResponse,
  PROTOCOL_VERSION_META_KEY,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { Admission } from "./admission.js";
import { AUTHORITY_EPOCH_META_KEY, type AuthorityLink } from "./authority-link.js";
import type { ConfirmationBook } from "./confirmation-book.js";
import { shellError } from "./results.js";

/** The part of `@sisyphus/mcp-tools`' `ToolRuntime` the shell uses. */
export interface ShellRuntime {
  classify(
    tool: string,
    args: Record<string, unknown>,
  ): {
    kind: "read" | "mutation" | "external" | "invalid";
    dangerous: boolean;
    validateOnly: boolean;
  };
  callTool(
    tool: string,
    args: Record<string, unknown>,
    context?: { signal?: AbortSignal; confirmed?: boolean },
  ): Promise<CallToolResult>;
}

/** Who executes mutations: this process (the authority) or the HTTP authority it delegates to. */
export type AuthorityRole =
  | { kind: "local"; epoch: string }
  | { kind: "delegate"; link: AuthorityLink };

/** Options of `createGateway`. */
export interface GatewayOptions {
  runtime: ShellRuntime;
  admission: Admission;
  confirmations: ConfirmationBook;
  role: AuthorityRole;
}

/** Per-connection facts the gateway needs besides the request context. */
export interface GatewayConnection {
  /** The authenticated principal (`bearer:<digest>` or `stdio:<pid>`). */
  principal: string;
  /** The legacy (2025) client capabilities of this connection, if it initialised. */
  legacyCapabilities: () => ClientCapabilities | undefined;
}

const CONFIRM_KEY = "confirm";
const CONFIRM_SCHEMA: { type: "object"; properties: Record<string, never>; required: string[] } = {
  type: "object",
  properties: {
    confirm: {
      type: "boolean",
      title: "Confirm",
      description: "true to run the destructive action",
    },
  } as unknown as Record<string, never>,
  required: ["confirm"],
};

function describeOperation(tool: string, args: Record<string, unknown>): string {
  const action = typeof args["action"] === "string" ? `.${args["action"]}` : "";
  const target = ["id", "path", "notebook", "ids"].map((k) => args[k]).find((v) => v !== undefined);
  const where = target === undefined ? "" : ` on ${JSON.stringify(target).slice(0, 120)}`;
  return `Sisyphus asks to run the destructive action ${tool}${action}${where}. Confirm?`;
}

/** Whether a declared elicitation capability includes form mode (`{}` counts as form). */
export function declaresForm(elicitation: unknown): boolean {
  if (elicitation === undefined || elicitation === null || typeof elicitation !== "object")
    return false;
  const keys = Object.keys(elicitation as object);
  return keys.length === 0 || keys.includes("form");
}

type Verdict = { ok: true } | { ok: false; result: CallToolResult };

function fromElicitation(action: unknown, content: unknown): Verdict {
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
 * Builds the `callTool` route handed to `runtime.registerTools`. Never throws for tool-level
 * outcomes. Returns an `input_required` result (typed as `CallToolResult` for the registration
 * seam) when a modern form-capable client must confirm.
 */
export function createGateway(options: GatewayOptions) {
  const { runtime, admission, confirmations, role } = options;

  async function confirm(
    tool: string,
    args: Record<string, unknown>,
    confirmArg: unknown,
    ctx: ServerContext,
    conn: GatewayConnection,
  ): Promise<Verdict> {
    if (confirmArg === false) {
      return {
        ok: false,
        result: shellError(
          "confirmation_declined",
          "confirm=false was passed.",
          {},
          { cancelled: false },
        ),
      };
    }
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    const modern = envelope?.[PROTOCOL_VERSION_META_KEY] !== undefined;
    const declaration = modern
      ? (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined)?.elicitation
      : conn.legacyCapabilities()?.elicitation;
    if (declaresForm(declaration) && modern) {
      const binding = { principal: conn.principal, declaration, tool, args };
      const raw = ctx.mcpReq.requestState<unknown>();
      if (raw === undefined) {
        const requestState = confirmations.issue(binding);
        const asked = inputRequired({
          inputRequests: {
            [CONFIRM_KEY]: inputRequired.elicit({
              message: describeOperation(tool, args),
              requestedSchema: CONFIRM_SCHEMA,
            }),
          },
          requestState,
        });
        return { ok: false, result: asked as unknown as CallToolResult };
      }
      const redeemed = confirmations.redeem(raw, binding);
      if (!redeemed.ok) {
        return {
          ok: false,
          result: shellError(
            "confirmation_invalid",
            `The confirmation state is ${redeemed.reason}.`,
            { reason: redeemed.reason },
            { cancelled: false },
          ),
        };
      }
      const view = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
      if (view.kind !== "elicit") {
        return {
          ok: false,
          result: shellError(
            "confirmation_invalid",
            "The retried call carries no confirmation answer.",
            { reason: "missing" },
            { cancelled: false },
          ),
        };
      }
      return fromElicitation(view.action, view.content);
    }
    if (declaresForm(declaration) && !modern) {
      try {
        const answer = await ctx.mcpReq.elicitInput({
          mode: "form",
          message: describeOperation(tool, args),
          requestedSchema: CONFIRM_SCHEMA as never,
        });
        return fromElicitation(answer.action, answer.content);
      } catch {
        return {
          ok: false,
          result: shellError(
            "confirmation_invalid",
            "The client did not answer the confirmation request.",
            { reason: "elicitation_failed" },
            { cancelled: false },
          ),
        };
      }
    }
    if (confirmArg === true) return { ok: true };
    return {
      ok: false,
      result: shellError(
        "confirmation_required",
        "This destructive action needs confirmation.",
        {},
        { cancelled: false },
      ),
    };
  }

  return async function callTool(
    tool: string,
    rawArgs: Record<string, unknown>,
    ctx: ServerContext,
    conn: GatewayConnection,
  ): Promise<CallToolResult> {
    const { confirm: confirmArg, ...args } = rawArgs;
    const cls = runtime.classify(tool, args);
    const writeClass = cls.kind === "mutation" || cls.kind === "external";
    const signal = ctx.mcpReq.signal;
    const outcome = await admission.admit<{ confirmed: boolean }, CallToolResult>(
      writeClass ? "write" : "read",
      signal,
      async () => {
        if (role.kind === "local") {
          const expected = ctx.mcpReq._meta?.[AUTHORITY_EPOCH_META_KEY];
          if (expected !== undefined && expected !== role.epoch) {
            return {
              stop: shellError(
                "write_coordinator_changed",
                "This authority is not the one the delegating process first used.",
                {
                  reason: "other_epoch",
                },
              ),
            };
          }
        }
        if (cls.dangerous && !cls.validateOnly && cls.kind !== "invalid") {
          const verdict = await confirm(tool, args, confirmArg, ctx, conn);
          if (!verdict.ok) return { stop: verdict.result };
          return { go: { confirmed: true } };
        }
        return { go: { confirmed: false } };
      },
      async ({ confirmed }) => {
        if (role.kind === "delegate" && writeClass) {
          const forwarded = confirmed ? { ...args, confirm: true } : args;
          return role.link.call(tool, forwarded, signal, !cls.validateOnly);
        }
        return runtime.callTool(tool, args, { signal, confirmed });
      },
    );
    if ("refused" in outcome) {
      return outcome.refused === "queue_full"
        ? shellError("queue_full", `More than ${admission.cap} calls in flight; nothing ran.`, {
            limit: admission.cap,
          })
        : shellError("cancelled", "The call was cancelled before it ran.");
    }
    return outcome;
  };
}

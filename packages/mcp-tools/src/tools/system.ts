/**
 * system: bootstrap, version, health (reads); notify (external side effect, no guarantee).
 */
import type {
  ExternalHandler,
  RunHandler,
  ToolContext,
  ToolHandlers,
  WriteContext,
} from "../handler.js";

/** What the runtime tells the system tool. */
export interface SystemInfo {
  readonly strict: boolean;
  readonly authority: { readonly kind: string; readonly epoch: string };
  /** Aggregate counts only (queues, leases, ledger size); never IDs or content. */
  readonly health: () => Record<string, unknown>;
}

/** The package version reported by `system.version`. */
export const SISYPHUS_VERSION = "0.1.0";

/** How to use the protocol, said once here instead of in every schema. */
export function bootstrapText(strict: boolean): Record<string, unknown> {
  return {
    writeProtocol: strict
      ? [
          "Reads run directly. Every write action needs two calls.",
          "1. Preflight: send the action with its business arguments and validateOnly:true. Nothing is written.",
          "2. Commit: resend the same action and arguments without validateOnly, adding requestId and, when the answer has preconditionField, that field with the returned value (e.g. expectedStateHash).",
          "Copy requestId and the credential exactly; never invent, shorten or extend them. A preflight lease lasts 10 minutes.",
          "Retrying a commit with the same requestId never writes twice: you get the stored receipt (replayed:true).",
          "state_changed: the target changed after preflight; reread before deciding to write again.",
          "outcome_unknown / readback_mismatch: the write may have happened; inspect the target, do not retry with a new requestId.",
          "preflight_lease_invalid: run the same validateOnly call again. idempotency_conflict: this requestId belongs to other arguments.",
          "Dangerous actions (delete, remove, move, rm, mv) need the user's confirmation; clients with form elicitation are asked by the server, others resend with confirm:true after asking the user.",
          "External actions (system.notify) take no validateOnly, requestId or hash and carry no guarantee.",
        ]
      : ["Strict Safe Writes is off: writes run directly, once, with writeSafetyGuaranteed:false."],
    addressing:
      "block/document take SiYuan IDs (20260101120000-abc1234); fs takes paths /<notebook name>/<title>/…",
    limits: {
      leaseTtlMs: 600_000,
      requestIdFirstExecutionMs: 600_000,
      ledgerRetentionMs: 604_800_000,
      writeQueueMax: 128,
    },
  };
}

/** The system tool's handlers. */
export const systemHandlers: ToolHandlers = {
  bootstrap: {
    read: {
      run: async (ctx: ToolContext) => ({
        ...bootstrapText(ctx.system.strict),
        strictSafeWrites: ctx.system.strict,
        authority: ctx.system.authority.kind,
      }),
    } as RunHandler<never>,
  },
  version: {
    read: {
      run: async (ctx: ToolContext) => ({
        sisyphus: SISYPHUS_VERSION,
        kernel: await ctx.kernel.version(),
      }),
    } as RunHandler<never>,
  },
  health: {
    read: {
      run: async (ctx: ToolContext) => {
        let kernel: "up" | "down" = "up";
        try {
          await ctx.kernel.version();
        } catch {
          kernel = "down";
        }
        return {
          kernel,
          authority: ctx.system.authority.kind,
          strictSafeWrites: ctx.system.strict,
          ...ctx.system.health(),
        };
      },
    } as RunHandler<never>,
  },
  notify: {
    external: {
      run: async (ctx: WriteContext, a: { msg: string; timeout?: number }) => {
        await ctx.write.pushMsg(a.msg, a.timeout);
        return { notified: true };
      },
    } as ExternalHandler<never>,
  },
};

/** Server instructions for MCP `initialize` / `server/discover`: short; details live in system.bootstrap. */
export const SERVER_INSTRUCTIONS =
  "Sisyphus edits SiYuan notes safely. Call system.bootstrap once for the write protocol. Reads run directly. " +
  "Every write is two calls: the action with validateOnly:true (preflight), then the same action and arguments " +
  "with the returned requestId and, if given, the field named by preconditionField. Copy those values exactly; " +
  "reuse the same requestId for retries. On outcome_unknown or readback_mismatch inspect the target instead of retrying.";

/**
 * system: bootstrap, version, health (reads); notify (external side effect, no guarantee).
 */
import {
  LEASE_TTL_MS,
  LEDGER_RETENTION_MS,
  REQUEST_ID_FIRST_EXECUTION_TTL_MS,
  WRITE_ADMISSION_MAX_IN_FLIGHT,
} from "@sisyphus/write-safety";
import { ToolError } from "../errors.js";
import { externalAction, readAction, type ToolHandlers } from "../handler.js";
import { grantsEverywhere } from "../permissions.js";
import { SISYPHUS_VERSION } from "../version.js";

/**
 * Said with every `system.sync` answer: the kernel's `performSync` answers nothing about the sync
 * (not enabled, failed, done), so neither does this tool.
 */
const SYNC_NOTE =
  "SiYuan answers nothing about the sync itself: whether it ran and how it ended is shown to the user in SiYuan (a notification), not here.";

export { SISYPHUS_VERSION };

/**
 * One line on credentials, in `system.bootstrap` and every preflight answer that carries one
 * (`credentialNote`): an agent seeing a few hex digits must not suspect a truncation.
 */
export const CREDENTIAL_NOTE =
  "The credential is a short alias (4+ hex digits) of a full SHA-256 held by the server; copy it as given.";

/** How to use the protocol, said once here instead of in every schema. */
export function bootstrapText(strict: boolean): Record<string, unknown> {
  return {
    writeProtocol: strict
      ? [
          "Reads run directly. Every write action needs two calls.",
          "1. Preflight: send the action with its business arguments and validateOnly:true. Nothing is written.",
          "2. Commit: resend the same action and arguments without validateOnly, adding requestId and, when the answer has preconditionField, that field with the returned value (e.g. expectedStateHash).",
          `Copy requestId and the credential exactly; never invent, shorten or extend them. A preflight lease lasts ${LEASE_TTL_MS / 60_000} minutes.`,
          CREDENTIAL_NOTE,
          "Retrying a commit with the same requestId never writes twice: you get the stored receipt (replayed:true, executedNow:false); an interrupted av.create finishes only its missing steps (resumed:true).",
          "state_changed: the target changed after preflight; reread before deciding to write again.",
          "outcome_unknown / readback_mismatch: the write may have happened; inspect the target, do not retry with a new requestId.",
          "preflight_lease_invalid: details.reason says why and the hint names the next call (usually the same validateOnly call again). idempotency_conflict: this requestId belongs to other arguments.",
          'Dangerous actions (delete, remove, rm, mv, document.move, and block.move to another document) need the user\'s confirmation: their preflight answer says confirmationRequired:true and confirmation "elicitation" (the server asks the user during the commit) or "confirm_true" (ask the user, then commit with confirm:true).',
          "write_coordinator_unavailable: nothing was written (writeAttempted:false). If details.reason is staging_busy or staging_full, wait details.retryAfterMs and send the same call again; if it is staging_timeout or unreachable, check that SiYuan runs (system.health), then send it again; for any other reason the write authority is not serving: tell the user.",
          "External actions (system.notify, system.sync, file.export_resources, file.extract_doc, extension.call, feedback.submit) take no validateOnly, requestId or hash and carry no guarantee; system.sync, extension.call and feedback.submit also need the user's confirmation (the server asks, or ask the user and resend with confirm:true). extension.list is an ordinary read.",
        ]
      : ["Strict Safe Writes is off: writes run directly, once, with writeSafetyGuaranteed:false."],
    addressing:
      "block/document take SiYuan IDs (20260101120000-abc1234); fs takes paths /<notebook name>/<title>/…",
    limits: {
      leaseTtlMs: LEASE_TTL_MS,
      requestIdFirstExecutionMs: REQUEST_ID_FIRST_EXECUTION_TTL_MS,
      ledgerRetentionMs: LEDGER_RETENTION_MS,
      writeQueueMax: WRITE_ADMISSION_MAX_IN_FLIGHT,
    },
  };
}

/** The system tool's handlers. */
export const systemHandlers = {
  bootstrap: readAction({
    run: async (ctx) => ({
      ...bootstrapText(ctx.system.strict),
      strictSafeWrites: ctx.system.strict,
      authority: ctx.system.authority.kind,
    }),
  }),
  version: readAction({
    run: async (ctx) => ({ sisyphus: SISYPHUS_VERSION, kernel: await ctx.kernel.version() }),
  }),
  health: readAction({
    run: async (ctx) => {
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
  }),
  notify: externalAction({
    run: async (ctx, a) => {
      await ctx.write.pushMsg(a.msg, a.timeout);
      return { notified: true };
    },
  }),
  sync: externalAction({
    run: async (ctx) => {
      // A download can rewrite any notebook: the call needs the permission everywhere.
      if (!grantsEverywhere(ctx.permissions, ctx.needs)) {
        throw new ToolError(
          "permission_denied",
          `a sync can change every notebook; it needs ${ctx.needs} on all of them`,
          { notebook: "(all notebooks)", needed: ctx.needs },
        );
      }
      await ctx.write.performSync();
      return { syncRequested: true, note: SYNC_NOTE };
    },
  }),
} satisfies ToolHandlers<"system">;

/** Server instructions for MCP `initialize` / `server/discover`: short; details live in system.bootstrap. */
export const SERVER_INSTRUCTIONS =
  "This server (Sisyphus) edits SiYuan notes safely. Call system.bootstrap once for the write protocol. Reads run directly. " +
  "Every write is two calls: the action with validateOnly:true (preflight), then the same action and arguments " +
  "with the returned requestId and, if given, the field named by preconditionField. Copy those values exactly; " +
  "reuse the same requestId for retries. On outcome_unknown or readback_mismatch inspect the target instead of retrying.";

/**
 * system: bootstrap, version, current_time, conf (a summary without secrets: `conf-summary.ts`),
 * health (reads); notify (external side effect, no guarantee).
 */
import {
  LEASE_TTL_MS,
  LEDGER_RETENTION_MS,
  REQUEST_ID_FIRST_EXECUTION_TTL_MS,
  WIRE_ERRORS,
  WRITE_ADMISSION_MAX_IN_FLIGHT,
} from "@sisyphus/write-safety";
import { ToolError } from "../errors.js";
import { externalAction, readAction, type ToolHandlers } from "../handler.js";
import { grantsEverywhere } from "../permissions.js";
import { SISYPHUS_VERSION } from "../version.js";
import { confSummary } from "./conf-summary.js";

/**
 * Said with every `system.sync` answer: the kernel's `performSync` answers nothing about the sync
 * (not enabled, failed, done), so neither does this tool.
 */
const SYNC_NOTE =
  "SiYuan answers nothing about the sync itself: whether it ran and how it ended is shown to the user in SiYuan (a notification), not here.";

export { SISYPHUS_VERSION };

/**
 * One line on credentials, said once in `system.bootstrap` (and so in the skill): an agent seeing a
 * few hex digits must not suspect a truncation.
 */
export const CREDENTIAL_NOTE =
  "The credential is a short alias (hashPrefixLength hex digits, 4 or more) of the target state's SHA-256 (held by the server); it stays while the target does.";

/**
 * The answer fields an agent must read right, defined once here (and in the skill) instead of in
 * every answer.
 */
export const ANSWER_FIELDS: Readonly<Record<string, string>> = Object.freeze({
  status:
    "committed = written and read back as asked (no need to read it again); no_change = the target already held what was asked; nothing in SiYuan changed.",
  current:
    "Written blocks as read back (ID → Kramdown) after block update/replace/append/prepend/insert/set_attrs, document.create, when small; a replay shows them as read now if targetNow is holds_result.",
  previousHash:
    "Alias of the state this action checked before writing (for an addition: the place it adds to); absent when it checked none.",
  resultHash:
    "Alias of that state after the write, as read back; never send it as an expected hash: each write takes its own preflight's.",
  writeSafetyGuaranteed:
    "true: Strict Safe Writes (lease checked, recorded, read back; a requestId never writes twice). false: an external action or strict mode off: it ran once, unverified.",
  executedNow:
    "true: this call wrote. false (replayed:true): this call wrote nothing; the fields describe this requestId's earlier write; targetNow: holds_result (the target, read now, still holds it), changed_since, or absent (not read).",
  writeAttempted:
    "On an error: false = nothing was sent to SiYuan; true = a write may have reached it (see the hint). On success it and writeExecuted are true (on a replay: by the earlier call).",
});

/** What `search.sql` may read: SiYuan's tables, said once here instead of in the tool description. */
export const SQL_GUIDE =
  "search.sql runs one SQLite SELECT (or WITH) on SiYuan's index; 64 rows unless LIMIT says otherwise; string literals in single quotes; always select box (the notebook ID): under limited permissions a row without it is withheld. " +
  'Table blocks(id, parent_id (under a heading: that heading), root_id = its document\'s ID, box, path, hpath, name, alias, memo, tag, content = plain text (tags as #x#), markdown, type, subtype, ial = attributes as {: k="v"}, sort (by type, not document order: block.get_children gives the order), created, updated as YYYYMMDDhhmmss). ' +
  "type: d document (its row: id = root_id, content = the title, hpath its path), h heading (subtype h1-h6), p paragraph, l list (subtype u bulleted, o numbered, t task), i list item, c code, t table, b blockquote, s super block, av database, callout, m math, html. " +
  "Also attributes(name, value, block_id, root_id, box), one row per block attribute, and refs(block_id, def_block_id, root_id, box). " +
  "Find every block mentioning words: search.fulltext (ranked, paged; the blocks holding the words, not the lists or headings around them). Exact filters (a type, an attribute, a document's blocks, dates): search.sql. Match text with instr(content, 'x') > 0, not LIKE … ESCAPE.";

/** How a file reaches `file.upload_asset`, per write authority (`system.bootstrap` says which one serves). */
export const UPLOAD_GUIDE =
  "Uploads (file.upload_asset) with authority node: pass localFilePath (absolute, readable where the Sisyphus server runs); node refuses uploadSource (source_unavailable). " +
  "With authority kernel: pass uploadSource, the handle (stg_…) the plugin's /plugin/private/siyuan-plugins-mcp-sisyphus/transfer/upload endpoint answers when the file is POSTed to it with the kernel's token (raw bytes with the file name percent-encoded in X-Sisyphus-File-Name, or JSON {fileName, dataBase64}; 10 MiB per file, kept 10 minutes); the Sisyphus CLI and Node server stage a localFilePath there themselves.";

/** How to use the protocol, said once here instead of in every schema. */
export function bootstrapText(strict: boolean): Record<string, unknown> {
  return {
    writeProtocol: strict
      ? [
          "Reads run directly. Every write action needs two calls.",
          "1. Preflight: send the action with its business arguments and validateOnly:true. Nothing is written.",
          "2. Commit, after its preflight answers (never batched with it): resend the same action and arguments without validateOnly, adding requestId and, when the answer's preconditionField names a field (null: requestId only), that field with the returned value (e.g. expectedStateHash).",
          `Copy requestId and the credential (the value under preconditionField) exactly; never invent, shorten or extend them. A preflight lease lasts ${LEASE_TTL_MS / 60_000} minutes; each write needs its own (a later preflight leaves earlier ones valid), and a commit whose target changed since its preflight writes nothing (state_changed).`,
          CREDENTIAL_NOTE,
          `Retrying a commit with the same requestId (its answer lost, or unsure) never writes twice: resend it unchanged (confirm:true included if it had it) and you get the stored receipt (replayed:true, executedNow:false; kept ${LEDGER_RETENTION_MS / 86_400_000} days); an interrupted av.create finishes only its missing steps (resumed:true).`,
          'Dangerous actions (delete, remove, rm, mv, document.move, and block.move to another document) need the user\'s confirmation: their preflight answer says confirmationRequired:true and confirmation "elicitation" (the server asks the user during the commit) or "confirm_true" (ask the user first, then commit with confirm:true; a request from the user for exactly this change is their yes), and nextCall names the commit.',
          "External actions (system.notify, system.sync, file.export_resources, file.extract_doc, extension.call, feedback.submit) take no validateOnly, requestId or hash and carry no guarantee; system.sync, extension.call and feedback.submit also need the user's confirmation (the server asks, or ask the user and resend with confirm:true).",
          "An error answers error.code, error.message and error.hint (the next call); errors below lists every code.",
        ]
      : ["Strict Safe Writes is off: writes run directly, once, with writeSafetyGuaranteed:false."],
    addressing:
      "block/document take SiYuan IDs (20260101120000-abc1234); fs takes paths /<notebook name>/<title>/…; document.get answers a document's Kramdown, where every block's ID and attributes follow it as {: id=\"…\" …}. Write Markdown as read: tags #tag#, refs ((id \"anchor\")) (or 'anchor'), task items - [ ] text / - [X] done (read as - {: id=…}[ ] text: leave out the {: …}).",
    answerFields: ANSWER_FIELDS,
    errors: errorGuide(),
    sql: SQL_GUIDE,
    uploads: UPLOAD_GUIDE,
    limits: {
      // Named for what an agent does with them: a commit must follow its preflight within
      // commitWithinMs (the lease and the requestId's first execution, whichever ends first); a
      // committed requestId answers its receipt when resent for replayWithinMs.
      commitWithinMs: Math.min(LEASE_TTL_MS, REQUEST_ID_FIRST_EXECUTION_TTL_MS),
      replayWithinMs: LEDGER_RETENTION_MS,
      writesInFlightMax: WRITE_ADMISSION_MAX_IN_FLIGHT,
    },
  };
}

/** Every error code an answer can carry, with its meaning and next call (the wire table's hints). */
export function errorGuide(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [code, row] of Object.entries(WIRE_ERRORS)) out[code] = row.hint;
  return out;
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
  conf: readAction({
    run: async (ctx) => confSummary(await ctx.kernel.systemConf()),
  }),
  current_time: readAction({
    run: async (ctx) => {
      const unixMs = await ctx.kernel.currentTime();
      return { unixMs, iso: new Date(unixMs).toISOString() };
    },
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

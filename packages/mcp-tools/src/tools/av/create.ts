/**
 * av.create (additive): a new database with its carrier block, an optional name and optional
 * template columns, in stages the kernel requires (contract §4.7, "Creating a database from the
 * API, step by step"):
 *
 * 0. reserve the IDs: the carrier block's (its Markdown's IAL), the database's (`data-av-id`) and
 *    one per template column, recorded in the ledger before the first write;
 * 1. `block`: insert the carrier block at the anchor (as block.insert);
 * 2. `file`: render it with `createIfNotExist`, which writes the kernel's default database
 *    (a "Primary Key" column and a "Select" column); with template columns the default "Select"
 *    column's ID is recorded too, since the template replaces it;
 * 3. `name`: the `setAttrViewName` transaction (when a name is given);
 * 4. `columns`: each template column after the previous one (the first after the primary key);
 * 5. `trim`: the default "Select" column removed (with template columns only).
 *
 * Each stage is recorded once the kernel shows it, then the complete receipt. A replay of the same
 * request after a crash or a lost response resumes (`resumable`): it checks the kernel for the
 * reserved IDs and redoes only what the kernel does not show, so it never makes a second carrier
 * block or database; what it cannot prove (a block or database under a reserved ID that is not
 * this creation's) fails, answered `outcome_unknown` with the reserved IDs and confirmed stages.
 */
import { RECEIPT_DIGESTS } from "@sisyphus/write-safety";
import { notFound, ToolError } from "../../errors.js";
import type {
  ArgsOf,
  MutationHandler,
  Probed,
  ReadbackResult,
  ToolContext,
  WriteContext,
} from "../../handler.js";
import type { AvFile, AvKey } from "../../kernel.js";
import { notebooksOfBlocks } from "../../permissions.js";
import { avDigest, keySetState } from "../../state/av-state.js";
import { requireContainer } from "../block/checks.js";
import { compactKey } from "./reads.js";

type Args = ArgsOf<"av", "create">;

/** The IDs a creation uses, in the order they are recorded in the ledger. */
interface Reserved {
  readonly block: string;
  readonly av: string;
  /** One per template column, in order. */
  readonly keys: readonly string[];
  /** The default "Select" column the template replaces, once the database file exists. */
  readonly replaced: readonly string[];
}

/** The creation's receipt: small, complete, replayed as it is. */
type Receipt = Record<string, unknown>;

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const pad = (n: number): string => String(n).padStart(2, "0");

/**
 * A fresh node ID: this machine's local time (as the kernel's IDs) and 7 random characters. Not a
 * secret, only unique: a collision would have to fall in the same second.
 */
export function newNodeId(now: Date = new Date()): string {
  const stamp = `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
  let tail = "";
  for (let i = 0; i < 7; i++) tail += ALPHABET[Math.floor(Math.random() * ALPHABET.length)];
  return `${stamp}-${tail}`;
}

/** The name the kernel stores for `name` (setAttrViewName: trimmed, newlines as spaces, 512 max). */
export function storedAvName(name: string): string {
  return [...name.trim().replace(/\r?\n/g, " ")].slice(0, 512).join("");
}

/** The carrier block's Markdown: the database's HTML block with both reserved IDs. */
function carrierMarkdown(ids: Reserved): string {
  return `<div data-type="NodeAttributeView" data-av-id="${ids.av}" data-av-type="table"></div>\n{: id="${ids.block}"}`;
}

/** The database ID a block shows (`data-av-id`), `""` for another kind of block, `null` for none. */
async function carrierOf(ctx: ToolContext, blockID: string): Promise<string | null> {
  const kramdown = await ctx.kernel.getBlockKramdown(blockID);
  if (kramdown === null) return null;
  const m = /^<div data-type="NodeAttributeView"[^>]*\sdata-av-id="([^"]*)"/.exec(kramdown);
  return m?.[1] ?? "";
}

/** A resumption or stage that cannot be proven this creation's: fails, answered outcome_unknown. */
function unproven(message: string, ids: Reserved): ToolError {
  return new ToolError("kernel_error", message, { id: ids.block, avID: ids.av });
}

/** The columns of the database's file, in file order. */
function keysOf(av: AvFile): AvKey[] {
  return (av.keyValues ?? []).map((kv) => (kv as { key: AvKey }).key);
}

/** The reserved IDs of an earlier attempt, or fresh ones (recorded before the first write). */
async function reserve(ctx: WriteContext, a: Args): Promise<Reserved> {
  const n = a.columns?.length ?? 0;
  const prior = ctx.creation.resumed?.reservedIds ?? [];
  if (prior.length >= 2 + n) {
    return {
      block: prior[0]!,
      av: prior[1]!,
      keys: prior.slice(2, 2 + n),
      replaced: prior.slice(2 + n),
    };
  }
  const ids: string[] = [];
  while (ids.length < 2 + n) {
    const id = newNodeId();
    // Distinct even within one second: a repeat draws again.
    if (!ids.includes(id)) ids.push(id);
  }
  await ctx.creation.record({ reservedIds: ids });
  return { block: ids[0]!, av: ids[1]!, keys: ids.slice(2), replaced: [] };
}

/** Stage `block`: the carrier block, unless the kernel already shows it. */
/**
 * Recorded when the kernel answered the carrier insert with another block than the reserved one:
 * something was written that the creation cannot find by its IDs, so it never resumes.
 */
const STRAY_BLOCK = "stray-block";

async function stageBlock(ctx: WriteContext, a: Args, ids: Reserved, resuming: boolean) {
  let shows: string | null = null;
  if (resuming) {
    await ctx.kernel.flush();
    shows = await carrierOf(ctx, ids.block);
  }
  if (shows === null) {
    const made = await ctx.write.insertBlock("markdown", carrierMarkdown(ids), a);
    if (made !== ids.block) {
      // A block landed where the reserved one was expected: a replay must not insert another.
      await ctx.creation.record({ confirmedStage: STRAY_BLOCK });
      throw unproven(`the kernel made carrier block ${made} instead of ${ids.block}`, ids);
    }
    await ctx.kernel.flush();
    shows = await carrierOf(ctx, ids.block);
  }
  if (shows !== ids.av) {
    throw unproven(
      shows === null
        ? `carrier block ${ids.block} does not exist after its insert`
        : `block ${ids.block} does not show database ${ids.av}`,
      ids,
    );
  }
}

/** Stage `file`: the database's file, unless it exists. */
async function stageFile(ctx: WriteContext, ids: Reserved, resuming: boolean): Promise<AvFile> {
  let av = resuming ? await ctx.kernel.getAttributeView(ids.av) : null;
  if (av === null) {
    await ctx.write.createAttributeView(ids.av, ids.block);
    av = await ctx.kernel.getAttributeView(ids.av);
  }
  if (av === null) throw unproven(`database ${ids.av} has no file after it was rendered`, ids);
  return av;
}

/** The default columns a template replaces: before any template column exists, all but the primary key. */
const defaultColumns = (av: AvFile, ids: Reserved): string[] =>
  keysOf(av)
    .filter((k) => k.type !== "block" && !ids.keys.includes(k.id))
    .map((k) => k.id);

/** Stage `name`: the database's name, unless it already has it (`file`: the file just made). */
async function stageName(ctx: WriteContext, name: string, ids: Reserved, file: AvFile | null) {
  const want = storedAvName(name);
  // Resuming, a name sent before the crash may still wait in the kernel's queue.
  if (file === null) await ctx.kernel.flush();
  const current = file ?? (await ctx.kernel.getAttributeView(ids.av));
  if ((current?.name ?? "") === want) return;
  await ctx.write.setAttributeViewName(ids.av, name);
  await ctx.kernel.flush();
  if (((await ctx.kernel.getAttributeView(ids.av))?.name ?? "") !== want) {
    throw unproven(`database ${ids.av} is not named as requested after setAttrViewName`, ids);
  }
}

/** Stage `columns`: each template column the database does not have yet, in order. */
async function stageColumns(ctx: WriteContext, a: Args, ids: Reserved, file: AvFile | null) {
  const columns = a.columns ?? [];
  const before = file ? keysOf(file) : await ctx.kernel.getAttributeViewKeys(ids.av);
  const pk = before.find((k) => k.type === "block");
  if (pk === undefined) throw unproven(`database ${ids.av} has no primary key column`, ids);
  const have = new Set(before.map((k) => k.id));
  let previous = pk.id;
  for (const [i, column] of columns.entries()) {
    const id = ids.keys[i] as string;
    if (!have.has(id)) await ctx.write.addAttributeViewKey(ids.av, { id, ...column }, previous);
    previous = id;
  }
  const after = new Map((await ctx.kernel.getAttributeViewKeys(ids.av)).map((k) => [k.id, k]));
  for (const [i, column] of columns.entries()) {
    const key = after.get(ids.keys[i] as string);
    if (key?.name !== column.name || key.type !== column.type) {
      throw unproven(`column ${column.name} (${column.type}) is missing after it was added`, ids);
    }
  }
}

/** Stage `trim`: the default columns the template replaces, removed. */
async function stageTrim(ctx: WriteContext, ids: Reserved, resuming: boolean) {
  const keys = async () =>
    new Set((await ctx.kernel.getAttributeViewKeys(ids.av)).map((k) => k.id));
  const have = resuming ? await keys() : new Set(ids.replaced);
  for (const id of ids.replaced)
    if (have.has(id)) await ctx.write.removeAttributeViewKey(ids.av, id);
  const left = await keys();
  if (ids.replaced.some((id) => left.has(id))) {
    throw unproven(`database ${ids.av} still has its default columns after their removal`, ids);
  }
}

/** The columns of the database's current view, in their order. */
function viewColumns(av: AvFile): AvKey[] {
  const byId = new Map(keysOf(av).map((k) => [k.id, k]));
  const views = (av.views ?? []) as Array<Record<string, unknown>>;
  const view = views.find((v) => v["id"] === av.viewID) ?? views[0] ?? {};
  const layout = (view[String(view["type"] ?? "table")] ?? {}) as Record<string, unknown>;
  const fields = (layout["columns"] ?? layout["cardFields"] ?? layout["fields"] ?? []) as Array<{
    id: string;
  }>;
  return fields.map((f) => byId.get(f.id)).filter((k): k is AvKey => k !== undefined);
}

/**
 * The receipt: carrier block, database, view, name and columns as the kernel now shows them. With a
 * template, its complete pre/postimage digests (the template as requested; the database's key set
 * as created), which every answer names by their aliases.
 */
async function receiptOf(ctx: ToolContext, a: Args, ids: Reserved): Promise<Receipt> {
  const av = await ctx.kernel.getAttributeView(ids.av);
  if (av === null) throw unproven(`database ${ids.av} has no file`, ids);
  const receipt: Receipt = {
    id: ids.block,
    avID: ids.av,
    viewID: av.viewID ?? "",
    name: av.name ?? "",
    columns: viewColumns(av).map(compactKey),
  };
  if (a.columns !== undefined && a.columns.length > 0) {
    receipt[RECEIPT_DIGESTS] = {
      templatePreimageHash: avDigest({ template: a.columns.map((c) => [c.name, c.type]) }),
      templatePostimageHash: avDigest(keySetState(av)),
    };
  }
  return receipt;
}

/**
 * Runs the stages not yet confirmed, each recorded once the kernel shows it, then records the
 * complete receipt. With a complete receipt already recorded nothing is written.
 */
async function execute(ctx: WriteContext, a: Args): Promise<Receipt> {
  const resumed = ctx.creation.resumed;
  if (resumed?.receipt !== undefined) return resumed.receipt;
  const done = new Set(resumed?.confirmedStages ?? []);
  const resuming = resumed !== undefined;
  const templated = (a.columns?.length ?? 0) > 0;
  let ids = await reserve(ctx, a);
  if (done.has(STRAY_BLOCK)) {
    throw unproven("an earlier attempt's carrier insert made another block than reserved", ids);
  }
  if (!done.has("block")) {
    await stageBlock(ctx, a, ids, resuming);
    await ctx.creation.record({ confirmedStage: "block" });
  }
  // The file as the file stage left it; later stages read the kernel when they resume.
  let file: AvFile | null = null;
  if (!done.has("file")) {
    file = await stageFile(ctx, ids, resuming);
    const replaced = templated ? defaultColumns(file, ids) : [];
    ids = { ...ids, replaced };
    await ctx.creation.record({ reservedIds: replaced, confirmedStage: "file" });
  }
  if (a.name !== undefined && !done.has("name")) {
    await stageName(ctx, a.name, ids, file);
    await ctx.creation.record({ confirmedStage: "name" });
  }
  if (templated && !done.has("columns")) {
    await stageColumns(ctx, a, ids, file);
    await ctx.creation.record({ confirmedStage: "columns" });
  }
  if (templated && !done.has("trim")) {
    await stageTrim(ctx, ids, file === null);
    await ctx.creation.record({ confirmedStage: "trim" });
  }
  const receipt = await receiptOf(ctx, a, ids);
  await ctx.creation.record({ receipt });
  return receipt;
}

/** The anchor must exist (a parent must take children), as for block.insert. */
async function probe(ctx: ToolContext, a: Args): Promise<Probed<null>> {
  const sibling = a.nextID ?? a.previousID;
  const anchor = sibling ?? (a.parentID as string);
  if (sibling === undefined) await requireContainer(ctx, anchor);
  else if (!(await ctx.kernel.checkBlockExist(sibling))) throw notFound("anchor block", sibling);
  return { state: { anchor }, notebooks: await notebooksOfBlocks(ctx, [anchor]), snapshot: null };
}

/**
 * The readback: the carrier block shows the database, whose file has the requested name and
 * columns (the primary key, then the template's in order, nothing else when a template was given).
 */
async function readback(ctx: ToolContext, a: Args, receipt: Receipt): Promise<ReadbackResult> {
  const block = String(receipt["id"]);
  const avID = String(receipt["avID"]);
  await ctx.kernel.flush();
  const shows = await carrierOf(ctx, block);
  const av = await ctx.kernel.getAttributeView(avID);
  const columns = (av ? viewColumns(av) : []).map((k) => ({ name: k.name, type: k.type }));
  const state = { block, shows, avID, name: av?.name ?? null, columns };
  const mismatch = (reason: string): ReadbackResult => ({ state, verdict: "mismatch", reason });
  if (shows !== avID) return mismatch(`block ${block} does not show database ${avID}`);
  if (av === null) return mismatch(`database ${avID} has no file`);
  if (a.name !== undefined && av.name !== storedAvName(a.name)) {
    return mismatch(`database ${avID} is not named as requested`);
  }
  if (a.columns !== undefined && a.columns.length > 0) {
    const want = [{ name: columns[0]?.name, type: "block" }, ...a.columns];
    if (JSON.stringify(columns) !== JSON.stringify(want)) {
      return mismatch(`database ${avID} does not have exactly the requested columns`);
    }
  }
  return { state, verdict: "applied", receipt };
}

/** av.create (additive, staged, resumable). */
export const create: MutationHandler<Args, null, Receipt> = {
  targets: (a) => [a.nextID ?? a.previousID ?? a.parentID ?? ""],
  resumable: true,
  probe,
  execute: (ctx, a) => execute(ctx, a),
  readback: (ctx, a, _before, receipt) => readback(ctx, a, receipt),
};

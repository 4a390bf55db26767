/**
 * av row mutations: `add_rows` (additive: bind existing blocks, or new detached rows),
 * `remove_rows` and `set_cells` (manifest: the rows, or the cells, named in the call).
 *
 * Every probe reads the database's file with `getAttributeView`, which never creates one (a
 * missing file is `not_found`). Every readback reads the file again and proves the requested
 * change cell by cell; a two-way relation cell also proves the back link in the other database.
 */

import { stateHash } from "@sisyphus/core-hash";
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
import {
  avDigest,
  avKey,
  cellState,
  keyState,
  primaryKey,
  relationSide,
  rowIds,
  rowState,
  valuesOf,
} from "../../state/av-state.js";
import { newNodeId } from "./create.js";
import { plainCell } from "./reads.js";

/** The database's file, or `not_found`; never creates one. */
export async function requireAv(ctx: ToolContext, id: string): Promise<AvFile> {
  const av = await ctx.kernel.getAttributeView(id);
  if (av === null) throw notFound("database", id);
  return av;
}

/** `invalid_arguments` with the message. */
export const invalid = (message: string): ToolError => new ToolError("invalid_arguments", message);

/** Refuses a list that names an ID twice. */
function distinct(ids: readonly string[], what: string): void {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw invalid(`${what} ${id} is named twice`);
    seen.add(id);
  }
}

/** Distinct fresh node IDs (a repeat within one second draws again). */
function freshIds(n: number): string[] {
  const ids = new Set<string>();
  while (ids.size < n) ids.add(newNodeId());
  return [...ids];
}

/** The verdict of a readback that found every requested change: `unchanged` if nothing moved. */
function settled(before: Probed<unknown>, state: unknown, receipt: Record<string, unknown>) {
  const verdict = stateHash(state) === stateHash(before.state) ? "unchanged" : "applied";
  return { state, verdict, receipt } satisfies ReadbackResult;
}

const mismatch = (state: unknown, reason: string): ReadbackResult => ({
  state,
  verdict: "mismatch",
  reason,
});

// ------------------------------------------------------------------ add_rows

type AddArgs = ArgsOf<"av", "add_rows">;
/** One row the executor adds, with the item ID it chose. */
interface NewRow {
  readonly itemID: string;
  readonly blockID?: string;
  readonly content?: string;
}

/** The block a primary-key value binds, `undefined` for a detached row. */
function boundBlock(pkValue: Record<string, unknown> | undefined): string | undefined {
  if (pkValue === undefined || pkValue["isDetached"] === true) return undefined;
  const id = (pkValue["block"] as { id?: unknown } | undefined)?.id;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** The blocks the database binds. */
function boundBlocks(av: AvFile): Set<string> {
  const pk = primaryKey(av);
  const out = new Set<string>();
  for (const v of pk ? valuesOf(av, pk.id).values() : []) {
    const b = boundBlock(v);
    if (b !== undefined) out.add(b);
  }
  return out;
}

/** The rows' state: which item IDs the database has. */
const rowsState = (av: AvFile) => ({ id: av.id, rows: rowIds(av).sort() });

async function probeAdd(ctx: ToolContext, a: AddArgs): Promise<Probed<null>> {
  const blocks = a.blockIDs ?? [];
  distinct(blocks, "block");
  const av = await requireAv(ctx, a.id);
  const bound = boundBlocks(av);
  for (const b of blocks) {
    if (!(await ctx.kernel.checkBlockExist(b))) throw notFound("block", b);
    if (bound.has(b)) {
      throw new ToolError("already_exists", `block ${b} already is a row of database ${a.id}`);
    }
  }
  return {
    state: rowsState(av),
    notebooks: blocks.length > 0 ? await notebooksOfBlocks(ctx, blocks) : [],
    snapshot: null,
  };
}

async function executeAdd(ctx: WriteContext, a: AddArgs): Promise<NewRow[]> {
  const blocks = a.blockIDs ?? [];
  const contents = a.detached ?? [];
  const ids = freshIds(blocks.length + contents.length);
  const rows: NewRow[] = [
    ...blocks.map((blockID, i) => ({ itemID: ids[i] as string, blockID })),
    ...contents.map((content, i) => ({ itemID: ids[blocks.length + i] as string, content })),
  ];
  await ctx.write.addAttributeViewBlocks(a.id, rows);
  return rows;
}

/** Every new row exists under its item ID, binding its block or holding its detached text. */
async function readbackAdd(ctx: ToolContext, a: AddArgs, rows: NewRow[]): Promise<ReadbackResult> {
  await ctx.kernel.flush();
  const av = await requireAv(ctx, a.id);
  const state = rowsState(av);
  const pk = primaryKey(av);
  const pkValues = pk ? valuesOf(av, pk.id) : new Map();
  for (const row of rows) {
    const v = pkValues.get(row.itemID);
    if (v === undefined) return mismatch(state, `row ${row.itemID} is missing after its insert`);
    if (row.blockID !== undefined && boundBlock(v) !== row.blockID) {
      return mismatch(state, `row ${row.itemID} does not bind block ${row.blockID}`);
    }
    const shown = cellState(v) as { content: string; bound: unknown };
    if (row.blockID === undefined && (shown.bound !== null || shown.content !== row.content)) {
      return mismatch(state, `row ${row.itemID} does not hold the requested text`);
    }
  }
  return {
    state,
    verdict: "applied",
    receipt: {
      id: a.id,
      rows: rows.map((r) =>
        r.blockID === undefined ? { rowID: r.itemID } : { rowID: r.itemID, blockID: r.blockID },
      ),
    },
  };
}

/** av.add_rows (additive). */
export const addRows: MutationHandler<AddArgs, null, NewRow[]> = {
  targets: (a) => [a.id, ...(a.blockIDs ?? [])],
  probe: probeAdd,
  execute: (ctx, a) => executeAdd(ctx, a),
  readback: (ctx, a, _before, rows) => readbackAdd(ctx, a, rows),
  summary: (a) => ({ rowCount: (a.blockIDs?.length ?? 0) + (a.detached?.length ?? 0) }),
};

// ------------------------------------------------------------------ remove_rows

type RemoveArgs = ArgsOf<"av", "remove_rows">;

/** The manifest: each named row with every stored cell. */
function removeState(av: AvFile, rowIDs: readonly string[]) {
  const have = new Set(rowIds(av));
  return {
    id: av.id,
    rows: [...rowIDs]
      .sort()
      .filter((r) => have.has(r))
      .map((r) => rowState(av, r)),
  };
}

async function probeRemove(ctx: ToolContext, a: RemoveArgs): Promise<Probed<null>> {
  distinct(a.rowIDs, "row");
  const av = await requireAv(ctx, a.id);
  const have = new Set(rowIds(av));
  // At commit a row gone since preflight only changes the digest (state_changed).
  for (const r of a.rowIDs) {
    if (!have.has(r) && ctx.phase !== "commit") throw notFound(`row of database ${a.id}`, r);
  }
  return { state: removeState(av, a.rowIDs), notebooks: [], snapshot: null };
}

/** None of the rows is left (a bound block stays a block; only its row goes). */
async function readbackRemove(ctx: ToolContext, a: RemoveArgs): Promise<ReadbackResult> {
  await ctx.kernel.flush();
  const av = await requireAv(ctx, a.id);
  const state = removeState(av, a.rowIDs);
  if (state.rows.length > 0) {
    return mismatch(state, `${state.rows.length} of the rows are still in database ${a.id}`);
  }
  return { state, verdict: "applied", receipt: { id: a.id, removed: a.rowIDs.length } };
}

/** av.remove_rows (manifest, dangerous). */
export const removeRows: MutationHandler<RemoveArgs, null, null> = {
  targets: (a) => [a.id, ...a.rowIDs],
  probe: probeRemove,
  execute: async (ctx, a) => {
    await ctx.write.removeAttributeViewBlocks(a.id, a.rowIDs);
    return null;
  },
  readback: (ctx, a) => readbackRemove(ctx, a),
  summary: (a) => ({ rowCount: a.rowIDs.length }),
};

// ------------------------------------------------------------------ set_cells

type SetArgs = ArgsOf<"av", "set_cells">;
type Plain = SetArgs["cells"][number]["value"];

/** One cell as the executor sends it and the readback expects it. */
interface CellPlan {
  readonly rowID: string;
  readonly keyID: string;
  /** The kernel's value object. */
  readonly value: Record<string, unknown>;
  /** The plain value the readback must show. */
  readonly expect: unknown;
}

/** What set_cells' probe hands on: the plan, and the relation-value preimage when relations change. */
interface SetSnapshot {
  readonly plan: readonly CellPlan[];
  readonly relationDigest?: string;
}

const TEXT_TYPES = new Set(["text", "url", "email", "phone"]);

/** Refuses a value the column's type cannot take. */
function wrongType(k: AvKey, want: string): ToolError {
  return invalid(`column ${k.name} (${k.id}) is ${k.type}: its value must be ${want}`);
}

/** The kernel value and the expected plain value of one cell, from the column's type. */
export function cellPlan(k: AvKey, rowID: string, v: Plain): CellPlan {
  const plan = (value: Record<string, unknown>, expect: unknown): CellPlan => ({
    rowID,
    keyID: k.id,
    value,
    expect,
  });
  if (TEXT_TYPES.has(k.type)) {
    if (v !== null && typeof v !== "string") throw wrongType(k, "a string or null");
    return plan({ [k.type]: { content: v ?? "" } }, v === "" ? null : v);
  }
  switch (k.type) {
    case "number":
    case "date":
      if (v !== null && (typeof v !== "number" || !Number.isFinite(v))) {
        throw wrongType(k, k.type === "date" ? "Unix milliseconds or null" : "a number or null");
      }
      return plan({ [k.type]: { content: v ?? 0, isNotEmpty: v !== null } }, v);
    case "checkbox":
      if (v !== null && typeof v !== "boolean") throw wrongType(k, "true, false or null");
      return plan({ checkbox: { checked: v === true } }, v === true);
    case "select":
    case "mSelect": {
      const names = typeof v === "string" ? [v] : v;
      if (!Array.isArray(names) || names.length === 0 || names.some((n) => n === "")) {
        // The kernel saves nothing for an empty option list: emptying is not offered.
        throw wrongType(k, "one or more option names (a select cannot be emptied here)");
      }
      if (k.type === "select" && names.length > 1) throw wrongType(k, "one option name");
      return plan({ mSelect: names.map((content) => ({ content })) }, [...new Set(names)]);
    }
    case "relation": {
      const ids = v === null ? [] : v;
      if (!Array.isArray(ids)) throw wrongType(k, "a list of item IDs or null");
      return plan({ relation: { blockIDs: ids } }, [...new Set(ids)]);
    }
    default:
      throw invalid(`column ${k.name} (${k.id}) is ${k.type}: its cells cannot be set`);
  }
}

/** A two-way relation column's far side: destination ID and back key, or `undefined`. */
function twoWay(k: AvKey): { avID: string; backKeyID: string } | undefined {
  const rel = keyState(k).relation;
  return rel?.isTwoWay && rel.backKeyID !== ""
    ? { avID: rel.avID, backKeyID: rel.backKeyID }
    : undefined;
}

/**
 * The manifest: each named cell with its column, plus the far side of every two-way relation
 * column among them (the destination's columns and back-key values), since setting such a cell
 * also writes the other database.
 */
async function cellsState(ctx: ToolContext, av: AvFile, a: SetArgs) {
  const rows = new Set(rowIds(av));
  const cells = a.cells.map((c) => {
    const k = avKey(av, c.keyID);
    return {
      rowID: c.rowID,
      row: rows.has(c.rowID),
      key: k ? keyState(k) : null,
      value: k ? cellState(valuesOf(av, k.id).get(c.rowID)) : null,
    };
  });
  const far: Record<string, unknown> = {};
  for (const c of a.cells) {
    const k = avKey(av, c.keyID);
    const side = k ? twoWay(k) : undefined;
    if (side !== undefined && !(c.keyID in far)) {
      const dest = side.avID === av.id ? av : await ctx.kernel.getAttributeView(side.avID);
      far[c.keyID] = relationSide(dest, side.backKeyID);
    }
  }
  return { id: av.id, cells, relations: far };
}

/** The relation part of the manifest (relation cells and their far sides), for its pre/postimage. */
function relationImage(state: Awaited<ReturnType<typeof cellsState>>) {
  return {
    cells: state.cells.filter((c) => c.key?.type === "relation"),
    relations: state.relations,
  };
}

async function probeSet(ctx: ToolContext, a: SetArgs): Promise<Probed<SetSnapshot>> {
  distinct(
    a.cells.map((c) => `${c.rowID}/${c.keyID}`),
    "cell",
  );
  const av = await requireAv(ctx, a.id);
  const rows = new Set(rowIds(av));
  // A commit's re-probe only reports: a row or column gone since preflight changes the digest.
  const check = ctx.phase !== "commit";
  const plan: CellPlan[] = [];
  for (const c of a.cells) {
    const k = avKey(av, c.keyID);
    if (!rows.has(c.rowID) || k === undefined) {
      if (!check) continue;
      if (k === undefined) throw notFound(`column of database ${a.id}`, c.keyID);
      throw notFound(`row of database ${a.id}`, c.rowID);
    }
    const p = cellPlan(k, c.rowID, c.value);
    if (k.type === "relation") await requireRelated(ctx, av, k, p.expect as string[]);
    plan.push(p);
  }
  const state = await cellsState(ctx, av, a);
  const hasRelation = plan.some((p) => avKey(av, p.keyID)?.type === "relation");
  return {
    state,
    notebooks: [],
    snapshot: hasRelation ? { plan, relationDigest: avDigest(relationImage(state)) } : { plan },
  };
}

/** A relation cell names items of the column's destination database only. */
async function requireRelated(ctx: ToolContext, av: AvFile, k: AvKey, ids: readonly string[]) {
  const destID = keyState(k).relation?.avID;
  if (destID === undefined) {
    throw invalid(`relation column ${k.name} (${k.id}) points at no database yet`);
  }
  const dest = destID === av.id ? av : await requireAv(ctx, destID);
  const items = new Set(rowIds(dest));
  for (const id of ids) if (!items.has(id)) throw notFound(`item of database ${destID}`, id);
}

/** Whether the far side shows `rowID` as related from each item it should, and from no other. */
function backLinksHold(dest: AvFile, backKeyID: string, rowID: string, related: readonly string[]) {
  const want = new Set(related);
  for (const [item, v] of valuesOf(dest, backKeyID)) {
    const has = (plainCell(v) as string[]).includes(rowID);
    if (has !== want.has(item)) return false;
    want.delete(item);
  }
  return want.size === 0;
}

/** Each cell shows the requested value; each two-way relation cell's back links hold. */
async function readbackSet(
  ctx: ToolContext,
  a: SetArgs,
  before: Probed<SetSnapshot>,
): Promise<ReadbackResult> {
  await ctx.kernel.flush();
  const av = await requireAv(ctx, a.id);
  const state = await cellsState(ctx, av, a);
  for (const p of before.snapshot.plan) {
    const shown = plainCell(
      valuesOf(av, p.keyID).get(p.rowID) ?? { type: avKey(av, p.keyID)?.type },
    );
    if (JSON.stringify(shown) !== JSON.stringify(p.expect)) {
      return mismatch(state, `cell ${p.rowID}/${p.keyID} does not show the requested value`);
    }
    const k = avKey(av, p.keyID);
    const side = k ? twoWay(k) : undefined;
    if (side !== undefined) {
      const dest = side.avID === av.id ? av : await ctx.kernel.getAttributeView(side.avID);
      if (dest === null || !backLinksHold(dest, side.backKeyID, p.rowID, p.expect as string[])) {
        return mismatch(state, `database ${side.avID} does not show the back links of ${p.rowID}`);
      }
    }
  }
  const digests =
    before.snapshot.relationDigest === undefined
      ? {}
      : {
          [RECEIPT_DIGESTS]: {
            relationValuePreimageHash: before.snapshot.relationDigest,
            relationValuePostimageHash: avDigest(relationImage(state)),
          },
        };
  return settled(before, state, { id: a.id, ...digests });
}

/** av.set_cells (manifest). */
export const setCells: MutationHandler<SetArgs, SetSnapshot, null> = {
  targets: (a) => [a.id, ...a.cells.map((c) => c.rowID)],
  probe: probeSet,
  execute: async (ctx, a, before) => {
    await ctx.write.batchSetAttributeViewBlockAttrs(
      a.id,
      before.snapshot.plan.map((p) => ({ keyID: p.keyID, itemID: p.rowID, value: p.value })),
    );
    return null;
  },
  readback: (ctx, a, before) => readbackSet(ctx, a, before),
  summary: (a) => ({ cellCount: a.cells.length }),
};

/**
 * av column mutations: `add_column` and `remove_column` (state: the database's key set).
 *
 * A relation column reaches into a second database, so its state covers both: the destination's
 * columns, and for a two-way relation the back key's values. A change in either database between
 * preflight and commit answers `state_changed`. A rollup's state covers what it reads: the
 * relation column's values and the destination column it rolls up.
 *
 * A relation or rollup column is added and configured in one transaction (`addAttrViewCol`, then
 * `updateAttrViewColRelation` or `updateAttrViewColRollup`) the kernel applies asynchronously:
 * the readback flushes, then proves the column and its configuration in both databases. The
 * relation's and the rollup's preimage and postimage digests go into the receipt, answered as
 * aliases.
 */
import { RECEIPT_DIGESTS } from "@sisyphus/write-safety";
import { notFound } from "../../errors.js";
import type {
  ArgsOf,
  MutationHandler,
  Probed,
  ReadbackResult,
  ToolContext,
  WriteContext,
} from "../../handler.js";
import type { AvFile } from "../../kernel.js";
import {
  avDigest,
  avKey,
  avKeys,
  columnState,
  type KeyState,
  keySetState,
  keyState,
  relationSide,
} from "../../state/av-state.js";
import { newNodeId } from "./create.js";
import { plainCell } from "./reads.js";
import { invalid, requireAv } from "./rows.js";

type AddArgs = ArgsOf<"av", "add_column">;
type RemoveArgs = ArgsOf<"av", "remove_column">;
type Json = Record<string, unknown>;

/** Reads a database file, `null` when it has none. */
type AvRead = (id: string) => Promise<AvFile | null>;

/**
 * A reader that asks the kernel once per database for one step (a probe, a readback): its checks
 * and its state name the same far database, and one live read answers both.
 */
function avReader(ctx: ToolContext): AvRead {
  const seen = new Map<string, Promise<AvFile | null>>();
  return (id) => {
    let file = seen.get(id);
    if (file === undefined) {
      file = ctx.kernel.getAttributeView(id);
      seen.set(id, file);
    }
    return file;
  };
}

/** The other database a column reads, or `null` (also when its file is gone). */
async function other(read: AvRead, av: AvFile, id: string | undefined) {
  if (id === undefined || id === "") return null;
  return id === av.id ? av : await read(id);
}

/** A database the arguments name, or `not_found`. */
async function requireOther(read: AvRead, av: AvFile, id: string): Promise<AvFile> {
  const file = await other(read, av, id);
  if (file === null) throw notFound("database", id);
  return file;
}

/** What add_column's probe hands on: where the column goes and the preimage digests. */
interface AddSnapshot {
  readonly previousKeyID: string;
  readonly preimage?: string;
}

/** The destination of a rollup: the relation column's database. */
function rollupSource(av: AvFile, relationKeyID: string): string | undefined {
  const k = avKey(av, relationKeyID);
  return k?.type === "relation" ? keyState(k).relation?.avID : undefined;
}

/**
 * add_column's state: the key set, and the far side the column reaches (a relation's destination
 * with its back key; a rollup's inputs). `backKeyID` names the back key once it exists.
 */
async function addState(read: AvRead, av: AvFile, a: AddArgs, backKeyID = "") {
  const state: Json = { db: keySetState(av) };
  if (a.relation !== undefined) {
    state["relation"] = relationSide(await other(read, av, a.relation.avID), backKeyID);
  }
  if (a.rollup !== undefined) state["rollup"] = await rollupInputs(read, av, a.rollup);
  return state;
}

/** What a rollup reads: the relation column's values and the destination column's. */
async function rollupInputs(read: AvRead, av: AvFile, r: NonNullable<AddArgs["rollup"]>) {
  const dest = await other(read, av, rollupSource(av, r.relationKeyID));
  return {
    related: columnState(av, r.relationKeyID),
    dest:
      dest === null
        ? null
        : { id: dest.id, target: avKey(dest, r.keyID) ? columnState(dest, r.keyID) : null },
  };
}

/** The image a receipt digests: the relation's far side, or the rollup's inputs. */
const image = (state: Json): unknown => state["relation"] ?? state["rollup"];

async function probeAdd(ctx: ToolContext, a: AddArgs): Promise<Probed<AddSnapshot>> {
  const av = await requireAv(ctx, a.id);
  const keys = avKeys(av);
  const read = avReader(ctx);
  if (ctx.phase !== "commit") await checkAdd(read, av, a);
  const state = await addState(read, av, a);
  const far = image(state);
  return {
    state,
    notebooks: [],
    snapshot: {
      // After the last column unless told: the kernel's "" would make it the first.
      previousKeyID: a.previousKeyID ?? keys[keys.length - 1]?.id ?? "",
      ...(far === undefined ? {} : { preimage: avDigest(far) }),
    },
  };
}

/** The arguments against the databases: anchor column, destination, rollup's relation and target. */
async function checkAdd(read: AvRead, av: AvFile, a: AddArgs) {
  if (a.previousKeyID !== undefined && avKey(av, a.previousKeyID) === undefined) {
    throw notFound(`column of database ${a.id}`, a.previousKeyID);
  }
  if (a.relation !== undefined) await requireOther(read, av, a.relation.avID);
  if (a.rollup !== undefined) {
    const destID = rollupSource(av, a.rollup.relationKeyID);
    if (destID === undefined) {
      throw invalid(
        `rollup.relationKeyID ${a.rollup.relationKeyID} is not a relation column pointing at a database`,
      );
    }
    const dest = await requireOther(read, av, destID);
    if (avKey(dest, a.rollup.keyID) === undefined) {
      throw notFound(`column of database ${destID}`, a.rollup.keyID);
    }
  }
}

/** What the executor made: the new column's ID and, for a two-way relation, the back key's. */
interface Added {
  readonly keyID: string;
  readonly backKeyID: string;
}

/**
 * One write. A plain column goes through `addAttributeViewKey`, which the kernel applies before
 * it answers. A relation or rollup column is added and configured in one transaction (the
 * configuration is a transaction op): the kernel applies it asynchronously, and a second op that
 * fails leaves the column unconfigured, which the readback reports as a mismatch.
 */
async function executeAdd(
  ctx: WriteContext,
  a: AddArgs,
  before: Probed<AddSnapshot>,
): Promise<Added> {
  const keyID = newNodeId();
  let backKeyID = a.relation?.twoWay ? newNodeId() : "";
  while (backKeyID === keyID) backKeyID = newNodeId();
  const key = { id: keyID, name: a.name, type: a.type };
  const previousKeyID = before.snapshot.previousKeyID;
  if (!configured(a)) {
    await ctx.write.addAttributeViewKey(a.id, key, previousKeyID);
    return { keyID, backKeyID };
  }
  await ctx.write.addAttrViewColumn({
    avID: a.id,
    key,
    previousKeyID,
    ...(a.relation === undefined
      ? {}
      : {
          relation: {
            destAvID: a.relation.avID,
            isTwoWay: a.relation.twoWay,
            backKeyID,
            backName: a.relation.backName ?? "",
          },
        }),
    ...(a.rollup === undefined
      ? {}
      : {
          rollup: {
            relationKeyID: a.rollup.relationKeyID,
            targetKeyID: a.rollup.keyID,
            operator: a.rollup.calc,
          },
        }),
  });
  return { keyID, backKeyID };
}

/** A relation or rollup column: configured by a transaction op the kernel applies later. */
const configured = (a: AddArgs): boolean => a.relation !== undefined || a.rollup !== undefined;

/** The rendered rollup cells of column `keyID` by row (what the kernel computes; not stored). */
async function renderedColumn(ctx: ToolContext, avID: string, keyID: string): Promise<Json> {
  const r = await ctx.kernel.renderAttributeView(avID, { page: 1, pageSize: 1024 });
  if (r === null) throw notFound("database", avID);
  const view = (r.view ?? {}) as Json;
  const columns = (Array.isArray(view["columns"]) ? view["columns"] : []) as Json[];
  const at = columns.findIndex((c) => c["id"] === keyID);
  const out: Json = {};
  for (const row of (Array.isArray(view["rows"]) ? view["rows"] : []) as Json[]) {
    const cell = (Array.isArray(row["cells"]) ? row["cells"] : [])[at] as Json | undefined;
    out[String(row["id"])] = at < 0 ? null : plainCell(cell?.["value"]);
  }
  return out;
}

/** Why the new column does not show as requested, or `undefined` when it does. */
function addProblem(av: AvFile, dest: AvFile | null, a: AddArgs, made: Added): string | undefined {
  const k = avKey(av, made.keyID);
  if (k === undefined) return `column ${made.keyID} is missing after its insert`;
  const ks = keyState(k);
  if (ks.name !== a.name || ks.type !== a.type)
    return `column ${made.keyID} is not ${a.name} (${a.type})`;
  if (a.relation !== undefined) return relationProblem(ks, av, dest, a, made);
  if (a.rollup !== undefined) {
    const want = {
      relationKeyID: a.rollup.relationKeyID,
      keyID: a.rollup.keyID,
      operator: a.rollup.calc,
    };
    if (JSON.stringify(ks.rollup) !== JSON.stringify(want)) {
      return `rollup column ${made.keyID} is not configured as requested`;
    }
  }
  return undefined;
}

/**
 * Why a new relation column does not show as requested: its configuration, and for a two-way
 * relation the back key (relation and name: `backName`, else the kernel's "<database> <column>").
 */
function relationProblem(
  ks: KeyState,
  av: AvFile,
  dest: AvFile | null,
  a: AddArgs,
  made: Added,
): string | undefined {
  const r = a.relation;
  if (r === undefined) return undefined;
  if (ks.relation === undefined) {
    return `column ${made.keyID} was added, but its relation to database ${r.avID} is not configured`;
  }
  const want = { avID: r.avID, isTwoWay: r.twoWay, backKeyID: made.backKeyID };
  if (JSON.stringify(ks.relation) !== JSON.stringify(want)) {
    return `relation column ${made.keyID} does not point at database ${r.avID} as requested`;
  }
  if (!r.twoWay) return undefined;
  const back = dest ? avKey(dest, made.backKeyID) : undefined;
  const rel = back ? keyState(back).relation : undefined;
  if (back === undefined || rel?.avID !== a.id || !rel.isTwoWay || rel.backKeyID !== made.keyID) {
    return `database ${r.avID} has no back key ${made.backKeyID} relating to ${made.keyID}`;
  }
  const name = (r.backName ?? "").trim() || `${av.name ?? ""} ${a.name}`.trim();
  if (back.name !== name) return `back key ${made.backKeyID} is not named ${name}`;
  return undefined;
}

async function readbackAdd(
  ctx: ToolContext,
  a: AddArgs,
  before: Probed<AddSnapshot>,
  made: Added,
): Promise<ReadbackResult> {
  // Only a transaction needs the barrier: `addAttributeViewKey` writes the file before answering.
  if (configured(a)) await ctx.kernel.flush();
  const av = await requireAv(ctx, a.id);
  const read = avReader(ctx);
  const state = await addState(read, av, a, made.backKeyID);
  const dest = a.relation ? await other(read, av, a.relation.avID) : null;
  const problem = addProblem(av, dest, a, made);
  if (problem !== undefined) return { state, verdict: "mismatch", reason: problem };
  const receipt: Json = { id: a.id, keyID: made.keyID };
  if (made.backKeyID !== "") receipt["backKeyID"] = made.backKeyID;
  if (a.relation !== undefined) {
    receipt[RECEIPT_DIGESTS] = {
      relationPreimageHash: before.snapshot.preimage,
      relationPostimageHash: avDigest(image(state)),
    };
  }
  if (a.rollup !== undefined) {
    receipt[RECEIPT_DIGESTS] = {
      rollupPreimageHash: before.snapshot.preimage,
      rollupPostimageHash: avDigest(await renderedColumn(ctx, a.id, made.keyID)),
    };
  }
  return { state, verdict: "applied", receipt };
}

/** av.add_column (state). */
export const addColumn: MutationHandler<AddArgs, AddSnapshot, Added> = {
  probeUnlikeResult: true,
  targets: (a) => [a.id, ...(a.relation ? [a.relation.avID] : [])],
  probe: probeAdd,
  execute: executeAdd,
  readback: readbackAdd,
};

// ------------------------------------------------------------------ remove_column

/** What remove_column's probe hands on: the far side of a two-way relation, and its preimage. */
interface RemoveSnapshot {
  readonly far?: { readonly avID: string; readonly backKeyID: string; readonly preimage: string };
}

/** remove_column's state: the key set, the column's values, and a two-way relation's far side. */
async function removeState(read: AvRead, av: AvFile, keyID: string, far?: RemoveSnapshot["far"]) {
  const k = avKey(av, keyID);
  const rel = k ? keyState(k).relation : undefined;
  const side = far ?? (rel?.isTwoWay ? { avID: rel.avID, backKeyID: rel.backKeyID } : undefined);
  const state: Json = { db: keySetState(av), values: k ? columnState(av, keyID) : null };
  if (side !== undefined)
    state["relation"] = relationSide(await other(read, av, side.avID), side.backKeyID);
  return state;
}

async function probeRemove(ctx: ToolContext, a: RemoveArgs): Promise<Probed<RemoveSnapshot>> {
  const av = await requireAv(ctx, a.id);
  const k = avKey(av, a.keyID);
  if (ctx.phase !== "commit") {
    if (k === undefined) throw notFound(`column of database ${a.id}`, a.keyID);
    if (k.type === "block") throw invalid("the primary key column cannot be removed");
  }
  const state = await removeState(avReader(ctx), av, a.keyID);
  const rel = k ? keyState(k).relation : undefined;
  const far =
    rel?.isTwoWay && state["relation"] !== undefined
      ? { avID: rel.avID, backKeyID: rel.backKeyID, preimage: avDigest(state["relation"]) }
      : undefined;
  return { state, notebooks: [], snapshot: far ? { far } : {} };
}

/** The column is gone; a two-way relation's back key is gone too, or left one-way. */
async function readbackRemove(
  ctx: ToolContext,
  a: RemoveArgs,
  before: Probed<RemoveSnapshot>,
): Promise<ReadbackResult> {
  await ctx.kernel.flush();
  const av = await requireAv(ctx, a.id);
  const far = before.snapshot.far;
  const read = avReader(ctx);
  const state = await removeState(read, av, a.keyID, far);
  const bad = (reason: string): ReadbackResult => ({ state, verdict: "mismatch", reason });
  if (avKey(av, a.keyID) !== undefined)
    return bad(`column ${a.keyID} is still in database ${a.id}`);
  const receipt: Json = { id: a.id, keyID: a.keyID };
  if (far !== undefined) {
    const dest = await other(read, av, far.avID);
    const back = dest ? avKey(dest, far.backKeyID) : undefined;
    if (dest !== null && a.removeBackKey && back !== undefined) {
      return bad(`back key ${far.backKeyID} is still in database ${far.avID}`);
    }
    if (
      dest !== null &&
      !a.removeBackKey &&
      (back === undefined || keyState(back).relation?.isTwoWay)
    ) {
      return bad(`back key ${far.backKeyID} in database ${far.avID} is not left one-way`);
    }
    receipt[RECEIPT_DIGESTS] = {
      relationPreimageHash: far.preimage,
      relationPostimageHash: avDigest(state["relation"]),
    };
  }
  return { state, verdict: "applied", receipt };
}

/** av.remove_column (state, dangerous). */
export const removeColumn: MutationHandler<RemoveArgs, RemoveSnapshot, null> = {
  targets: (a) => [a.id, a.keyID],
  probe: probeRemove,
  execute: async (ctx, a, before) => {
    const twoWay = before.snapshot.far !== undefined;
    await ctx.write.removeAttributeViewKey(a.id, a.keyID, twoWay ? a.removeBackKey : undefined);
    return null;
  },
  readback: readbackRemove,
};

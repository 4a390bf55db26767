/**
 * av.duplicate (additive): a copy of a database, as SiYuan's "duplicate completely" makes it — two
 * kernel writes:
 *
 * 1. `duplicateAttributeViewBlock` writes the copy's file (the database ID replaced in every byte,
 *    so columns, views and rows keep their IDs; the name suffixed " (Duplicated <time>)"; two-way
 *    relations made one-way; every bound block also shows the copy) and answers the new database's
 *    ID and the ID its block is to have;
 * 2. `insertBlock` puts that carrier block after the original's (`blockID`, default the first
 *    block showing the database), in the original's layout.
 *
 * Not resumable: once the first write may have reached the kernel a failure is `outcome_unknown`,
 * and a replay never sends either write again. The readback follows the new IDs: the block shows
 * the new database, whose columns (relations one-way) and rows (cell by cell) are the source's as
 * the commit's probe read them.
 */
import { notFound, ToolError } from "../../errors.js";
import type { ArgsOf, MutationHandler, ReadbackResult, ToolContext } from "../../handler.js";
import type { AvFile } from "../../kernel.js";
import { notebooksOfBlocks } from "../../permissions.js";
import {
  type KeyState,
  keySetState,
  primaryKey,
  rowIds,
  rowState,
  valuesOf,
} from "../../state/av-state.js";
import { requireAv } from "./rows.js";

type Args = ArgsOf<"av", "duplicate">;

/** What the probe read: the source's file, the block the copy follows and its layout. */
interface Source {
  readonly av: AvFile;
  readonly after: string;
  readonly layout: string;
}

/** What the two writes made. */
interface Made {
  readonly avID: string;
  readonly blockID: string;
}

/** The database a block shows and its layout, or `null` for another kind of block or none. */
async function carrier(ctx: ToolContext, id: string) {
  const kramdown = await ctx.kernel.getBlockKramdown(id);
  if (kramdown === null) return null;
  const div = /^<div data-type="NodeAttributeView"[^>]*>/.exec(kramdown)?.[0];
  if (div === undefined) return null;
  return {
    avID: /\sdata-av-id="([^"]*)"/.exec(div)?.[1] ?? "",
    layout: /\sdata-av-type="([^"]*)"/.exec(div)?.[1] ?? "table",
  };
}

/** The blocks a database's rows bind (the copy makes each also show the copy). */
function boundBlocks(av: AvFile): string[] {
  const pk = primaryKey(av);
  if (pk === undefined) return [];
  return [...valuesOf(av, pk.id).values()]
    .filter((v) => v["isDetached"] !== true)
    .map((v) => String((v["block"] as { id?: unknown } | undefined)?.id ?? ""))
    .filter((id) => id !== "");
}

async function probe(ctx: ToolContext, a: Args) {
  const av = await requireAv(ctx, a.id);
  let after = a.blockID;
  if (after === undefined) {
    after = (await ctx.kernel.avPrimaryKeyValues(a.id, "", 1))?.blockIDs[0];
    if (after === undefined) {
      throw new ToolError(
        "invalid_arguments",
        `no block shows database ${a.id}: av.duplicate puts the copy after one; insert one with av.create's Markdown first`,
        { id: a.id },
      );
    }
  }
  const shows = await carrier(ctx, after);
  if (shows === null && a.blockID !== undefined && ctx.phase !== "commit") {
    if (!(await ctx.kernel.checkBlockExist(after))) throw notFound("block", after);
  }
  if (shows?.avID !== a.id) {
    throw new ToolError(
      "invalid_arguments",
      `block ${after} does not show database ${a.id}; pass one of its blocks as blockID (av.primary_key_values answers blockIDs)`,
      { id: a.id, blockID: after },
    );
  }
  // the copy's block goes into the original's document; every bound block gains the copy
  const notebooks = await notebooksOfBlocks(ctx, [after, ...boundBlocks(av)]);
  return {
    state: { id: a.id, after },
    notebooks,
    snapshot: { av, after, layout: shows.layout } satisfies Source,
  };
}

/** The source's columns as the copy should hold them: relations one-way, self-relations re-pointed. */
function expectedKeys(source: AvFile, copyID: string): KeyState[] {
  return keySetState(source).keys.map((k) =>
    k.relation === undefined
      ? k
      : {
          ...k,
          relation: {
            avID: k.relation.avID === source.id ? copyID : k.relation.avID,
            isTwoWay: false,
            backKeyID: k.relation.isTwoWay ? "" : k.relation.backKeyID,
          },
        },
  );
}

/** What SiYuan appends to a named copy's name: its local time. */
const DUPLICATED_SUFFIX = /^ \(Duplicated \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\)$/;

/** Why the copy is not the source's, or `undefined` when it is. */
export function copyProblem(source: AvFile, copy: AvFile): string | undefined {
  const name = copy.name ?? "";
  const was = source.name ?? "";
  const suffix = name.startsWith(was) ? name.slice(was.length) : null;
  const named = was === "" ? name === "" : suffix !== null && DUPLICATED_SUFFIX.test(suffix);
  if (!named)
    return `database ${copy.id} is named ${JSON.stringify(name)}, not as a copy of ${JSON.stringify(was)}`;
  if (JSON.stringify(keySetState(copy).keys) !== JSON.stringify(expectedKeys(source, copy.id)))
    return `database ${copy.id} does not have the columns of database ${source.id}`;
  const rows = rowIds(source);
  if (JSON.stringify(rowIds(copy)) !== JSON.stringify(rows))
    return `database ${copy.id} does not have the rows of database ${source.id}`;
  for (const id of rows) {
    if (JSON.stringify(rowState(copy, id)) !== JSON.stringify(rowState(source, id)))
      return `row ${id} of database ${copy.id} does not hold the cells of database ${source.id}`;
  }
  return undefined;
}

async function readback(
  ctx: ToolContext,
  a: Args,
  before: { readonly snapshot: Source },
  made: Made,
): Promise<ReadbackResult> {
  await ctx.kernel.flush();
  const source = before.snapshot.av;
  const [shows, copy] = await Promise.all([
    carrier(ctx, made.blockID),
    ctx.kernel.getAttributeView(made.avID),
  ]);
  const state = {
    id: made.blockID,
    avID: made.avID,
    shows: shows?.avID ?? null,
    name: copy?.name ?? null,
    columns: copy ? keySetState(copy).keys.length : 0,
    rows: copy ? rowIds(copy).length : 0,
  };
  const receipt = { id: made.blockID, avID: made.avID, sourceAvID: a.id };
  const fail = (reason: string): ReadbackResult => ({
    state,
    verdict: "mismatch",
    reason,
    receipt,
  });
  if (copy === null) return fail(`database ${made.avID} has no file after the copy`);
  if (shows?.avID !== made.avID)
    return fail(`block ${made.blockID} does not show database ${made.avID}`);
  const why = copyProblem(source, copy);
  if (why !== undefined) return fail(why);
  return {
    state,
    verdict: "applied",
    receipt: {
      ...receipt,
      name: copy.name ?? "",
      after: before.snapshot.after,
      columns: state.columns,
      rows: state.rows,
    },
  };
}

/** av.duplicate (additive, two writes, not resumable). */
export const duplicate: MutationHandler<Args, Source, Made> = {
  targets: (a) => [a.id, ...(a.blockID ? [a.blockID] : [])],
  probe,
  async execute(ctx, _a, before) {
    const made = await ctx.write.duplicateAttributeView(before.snapshot.av.id);
    const block = `<div data-type="NodeAttributeView" data-av-id="${made.avID}" data-av-type="${before.snapshot.layout}"></div>\n{: id="${made.blockID}"}`;
    const inserted = await ctx.write.insertBlock("markdown", block, {
      previousID: before.snapshot.after,
    });
    if (inserted !== made.blockID) {
      throw new ToolError(
        "kernel_error",
        `the kernel made block ${inserted} for the copy instead of ${made.blockID}`,
        { avID: made.avID, id: made.blockID },
      );
    }
    return made;
  },
  readback,
};

/**
 * block.insert, prepend, append: additive writes. No digest is leased, but the preflight proves the
 * anchor exists (and a parent anchor takes children) before a request ID is issued; the readback
 * requires the new block to exist.
 */
import { notFound } from "../../errors.js";
import type {
  ArgsOf,
  MutationHandler,
  Probed,
  ReadbackResult,
  ToolContext,
} from "../../handler.js";
import { notebooksOfBlocks } from "../../permissions.js";
import { readBlockState } from "../../state/block-state.js";
import { contentMismatch } from "../../state/readback.js";
import { requireContainer } from "./checks.js";

/**
 * Where the new block will land, checked before anything is issued: a sibling anchor must exist, a
 * parent anchor must be a container (the kernel refuses a leaf parent with -1).
 */
async function probeAnchor(
  ctx: ToolContext,
  anchorId: string,
  role: "sibling" | "parent",
): Promise<Probed<null>> {
  if (role === "parent") await requireContainer(ctx, anchorId);
  else if (!(await ctx.kernel.checkBlockExist(anchorId))) throw notFound("anchor block", anchorId);
  return {
    state: { anchor: anchorId },
    notebooks: await notebooksOfBlocks(ctx, [anchorId]),
    snapshot: null,
  };
}

/**
 * Readback of a created block: it must exist after the kernel applied the queue and show the
 * requested content (several requested blocks are read from the document after the first).
 */
export async function createdBlockReadback(
  ctx: ToolContext,
  request: { readonly data: string; readonly dataType: "markdown" | "dom" },
  newId: string | null,
): Promise<ReadbackResult> {
  if (newId === null) {
    return {
      state: { created: null },
      verdict: "mismatch",
      reason: "the kernel returned no new block ID",
    };
  }
  await ctx.kernel.flush();
  const after = await readBlockState(ctx.kernel, newId);
  if (!after.exists) {
    return {
      state: after.state,
      verdict: "mismatch",
      reason: `block ${newId} does not exist after the write`,
      receipt: { id: newId },
    };
  }
  const mismatch = await contentMismatch(ctx.kernel, { id: newId, ...request }, after, after);
  if (mismatch !== undefined) {
    return { state: after.state, verdict: "mismatch", reason: mismatch, receipt: { id: newId } };
  }
  return {
    state: after.state,
    verdict: "applied",
    receipt: { id: newId },
    shown: { [newId]: after.kramdown },
  };
}

/** block.insert: before `nextID`, after `previousID`, or as the last child of `parentID`. */
export const insert: MutationHandler<ArgsOf<"block", "insert">, null, string | null> = {
  targets: (a) => [a.nextID ?? a.previousID ?? a.parentID ?? ""],
  probe: (ctx, a) => {
    const sibling = a.nextID ?? a.previousID;
    return sibling !== undefined
      ? probeAnchor(ctx, sibling, "sibling")
      : probeAnchor(ctx, a.parentID as string, "parent");
  },
  execute: (ctx, a) => ctx.write.insertBlock(a.dataType, a.data, a),
  readback: (ctx, a, _before, newId) => createdBlockReadback(ctx, a, newId),
};

/** block.prepend: as the first child of `parentID`. */
export const prepend: MutationHandler<ArgsOf<"block", "prepend">, null, string | null> = {
  targets: (a) => [a.parentID],
  probe: (ctx, a) => probeAnchor(ctx, a.parentID, "parent"),
  execute: (ctx, a) => ctx.write.prependBlock(a.dataType, a.data, a.parentID),
  readback: (ctx, a, _before, newId) => createdBlockReadback(ctx, a, newId),
};

/** block.append: as the last child of `parentID`. */
export const append: MutationHandler<ArgsOf<"block", "append">, null, string | null> = {
  targets: (a) => [a.parentID],
  probe: (ctx, a) => probeAnchor(ctx, a.parentID, "parent"),
  execute: (ctx, a) => ctx.write.appendBlock(a.dataType, a.data, a.parentID),
  readback: (ctx, a, _before, newId) => createdBlockReadback(ctx, a, newId),
};

/**
 * block.set_attrs: sets or deletes (`null` or "") attributes; the readback requires the requested
 * values, and `unchanged` when the block already had them.
 */
import type { ArgsOf, MutationHandler } from "../../handler.js";
import { notebooksOfBlocks } from "../../permissions.js";
import { attrsMatch } from "../../state/attributes.js";
import {
  type BlockSnapshot,
  currentOf,
  readBlockState,
  requireBlock,
} from "../../state/block-state.js";

/** block.set_attrs: attribute names are checked by the argument schema (`attrMap`). */
export const setAttrs: MutationHandler<ArgsOf<"block", "set_attrs">, BlockSnapshot, null> = {
  targets: (a) => [a.id],
  showsWritten: true,
  async probe(ctx, a) {
    const snap = await requireBlock(ctx, a.id);
    return {
      state: snap.state,
      notebooks: await notebooksOfBlocks(ctx, [a.id]),
      snapshot: snap,
      current: currentOf([snap]),
    };
  },
  async execute(ctx, a) {
    await ctx.write.setBlockAttrs(a.id, { ...a.attrs });
    return null;
  },
  async readback(ctx, a, before) {
    await ctx.kernel.flush();
    const after = await readBlockState(ctx.kernel, a.id);
    if (!after.exists)
      return { state: after.state, verdict: "mismatch", reason: `block ${a.id} no longer exists` };
    if (!attrsMatch(after.attrs, a.attrs)) {
      return {
        state: after.state,
        verdict: "mismatch",
        reason: "the attributes do not show the requested values",
      };
    }
    const requestedNoOp = attrsMatch(before.snapshot.attrs, a.attrs);
    return {
      state: after.state,
      verdict: requestedNoOp ? "unchanged" : "applied",
      shown: currentOf([after]),
    };
  },
};

/** block.delete (dangerous: the shell asks the user to confirm). */
import type { ArgsOf, MutationHandler } from "../../handler.js";
import { notebooksOfBlocks } from "../../permissions.js";
import {
  type BlockSnapshot,
  currentOf,
  readBlockState,
  requireBlock,
} from "../../state/block-state.js";

/** block.delete: the readback requires the block to be gone. */
export const del: MutationHandler<ArgsOf<"block", "delete">, BlockSnapshot, null> = {
  targets: (a) => [a.id],
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
    await ctx.write.deleteBlock(a.id);
    return null;
  },
  async readback(ctx, a) {
    await ctx.kernel.flush();
    const after = await readBlockState(ctx.kernel, a.id);
    return after.exists
      ? { state: after.state, verdict: "mismatch", reason: `block ${a.id} still exists` }
      : { state: after.state, verdict: "applied", receipt: { deleted: a.id } };
  },
};

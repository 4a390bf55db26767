/** The live state of a block a write targets: `not_found` before any lease when it does not exist. */
import { notFound } from "../../errors.js";
import type { ToolContext } from "../../handler.js";
import { type BlockSnapshot, readBlockState } from "../../state/block-state.js";

/** Reads a block's live state (see `readBlockState`); throws `not_found` when it does not exist. */
export async function requireBlock(ctx: ToolContext, id: string): Promise<BlockSnapshot> {
  const snap = await readBlockState(ctx.kernel, id);
  if (!snap.exists) throw notFound("block", id);
  return snap;
}

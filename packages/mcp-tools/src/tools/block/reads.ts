/** block reads by ID: get_kramdown, get_attrs, get_children, info, dom. */
import { notFound } from "../../errors.js";
import { type ReadAction, readAction, type ToolContext } from "../../handler.js";
import { notebooksOfBlocks } from "../../permissions.js";

/** A read of one block by ID whose read permission is checked on the block's notebook. */
function blockRead(
  run: (ctx: ToolContext, args: { id: string }) => Promise<unknown>,
): ReadAction<{ id: string }> {
  return readAction({ run, notebooks: (ctx, a) => notebooksOfBlocks(ctx, [a.id]) });
}

/** block.get_kramdown. */
export const getKramdown = blockRead(async (ctx, a) => {
  const kramdown = await ctx.kernel.getBlockKramdown(a.id);
  if (kramdown === null) throw notFound("block", a.id);
  return { id: a.id, kramdown };
});

/** block.get_attrs. */
export const getAttrs = blockRead(async (ctx, a) => {
  const attrs = await ctx.kernel.getBlockAttrs(a.id);
  if (attrs === null) throw notFound("block", a.id);
  return { id: a.id, attrs };
});

/** block.get_children. */
export const getChildren = blockRead(async (ctx, a) => {
  if (!(await ctx.kernel.checkBlockExist(a.id))) throw notFound("block", a.id);
  return { id: a.id, children: await ctx.kernel.getChildBlocks(a.id) };
});

/** block.info. */
export const info = blockRead(async (ctx, a) => {
  const found = await ctx.kernel.getBlockInfo(a.id);
  if (found === null) throw notFound("block", a.id);
  return { id: a.id, ...found };
});

/** block.dom. */
export const dom = blockRead(async (ctx, a) => {
  const html = await ctx.kernel.getBlockDOM(a.id);
  if (html === null) throw notFound("block", a.id);
  return { id: a.id, dom: html };
});

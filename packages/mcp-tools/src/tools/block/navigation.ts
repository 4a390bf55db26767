/**
 * block navigation reads: backlinks and backmentions (the documents that reference the block, or
 * name it without a reference; one `getBacklink2` call, paged here), and the breadcrumb from the
 * block's document down to it. Documents of notebooks the caller may not read are withheld.
 */
import { notFound } from "../../errors.js";
import { type ReadAction, readAction, type ToolContext } from "../../handler.js";
import type { RefDoc } from "../../kernel.js";
import { notebooksOfBlocks } from "../../permissions.js";
import { pageOf, plainText, readableItems } from "../listing.js";

/** Arguments of a paged read of one block. */
export interface PagedId {
  readonly id: string;
  readonly page: number;
  readonly pageSize: number;
}

/** One compact referencing document: `path` is the kernel's `<notebook name>/<hpath>`. */
function compactRefDoc(d: RefDoc) {
  return { id: d.id, title: d.title, path: d.path, notebook: d.notebook, count: d.count };
}

/** backlinks / backmentions: the documents of one list of `getBacklink2`, one page of them. */
function refDocs(list: "backlinks" | "backmentions"): ReadAction<PagedId> {
  return readAction({
    run: async (ctx: ToolContext, a: PagedId) => {
      const found = await ctx.kernel.getBacklinks(a.id);
      if (found.notebook === "") throw notFound("block", a.id);
      const { kept, withheld } = readableItems(ctx.permissions, found[list], (d) => d.notebook);
      const { items, ...paging } = pageOf(kept.map(compactRefDoc), a.page, a.pageSize);
      return { id: a.id, [list]: items, ...paging, ...withheld };
    },
    notebooks: (ctx, a) => notebooksOfBlocks(ctx, [a.id]),
  });
}

/** block.backlinks. */
export const backlinks = refDocs("backlinks");
/** block.backmentions. */
export const backmentions = refDocs("backmentions");

/** block.breadcrumb: the document (named `<notebook name>/<hpath>`), headings and ancestors, the block. */
export const breadcrumb = readAction({
  run: async (ctx: ToolContext, a: { id: string }) => {
    const crumbs = await ctx.kernel.getBlockBreadcrumb(a.id);
    if (crumbs.length === 0) throw notFound("block", a.id);
    return {
      id: a.id,
      path: crumbs.map((c) => ({
        id: c.id,
        type: c.type,
        ...(c.subType === "" ? {} : { subType: c.subType }),
        name: plainText(c.name),
      })),
    };
  },
  notebooks: (ctx, a) => notebooksOfBlocks(ctx, [a.id]),
});

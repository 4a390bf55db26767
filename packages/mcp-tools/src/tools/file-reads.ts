/**
 * file reads: list_templates (SiYuan's template search, names only) and doc_assets (the asset
 * links of a document).
 */
import { notFound } from "../errors.js";
import { readAction } from "../handler.js";
import { notebooksOfBlocks } from "../permissions.js";

/**
 * file.list_templates: the paths under `data/templates/` (`weekly.md`, `folder/x.md`) whose path
 * holds every word of the keyword, as `searchTemplate` ranks them. The kernel's absolute paths
 * (of its host) and its marked-up titles are left out. Templates belong to the workspace, not to
 * a notebook: no notebook permission applies (as `file.create_template`).
 */
export const listTemplates = readAction({
  run: async (ctx, a: { keyword: string }) => {
    const hits = await ctx.kernel.searchTemplate(a.keyword);
    return { templates: hits.map((h) => h.path) };
  },
});

/**
 * file.doc_assets: the `assets/…` paths the block's document links (links, images, the
 * `custom-data-assets` attributes, an HTML block's `src`), each once, in document order. Any block
 * ID names its document, as the kernel reads it.
 */
export const docAssets = readAction({
  run: async (ctx, a: { id: string }) => {
    const assets = await ctx.kernel.getDocAssets(a.id);
    if (assets === null) throw notFound("block", a.id);
    return { id: a.id, assets };
  },
  notebooks: (ctx, a) => notebooksOfBlocks(ctx, [a.id]),
});

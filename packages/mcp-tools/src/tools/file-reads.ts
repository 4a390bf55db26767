/**
 * file reads: list_templates (SiYuan's template search, names only), doc_assets (the asset links
 * of a document) and list_unused_assets (the assets no document links).
 */
import { notFound } from "../errors.js";
import { readAction } from "../handler.js";
import { notebooksOfBlocks, permissionOf } from "../permissions.js";
import { pageOf } from "./listing.js";

/** The most unused assets SiYuan 3.7.3 lists (it shows the user a toast when there are more). */
export const KERNEL_UNUSED_ASSETS_MAX = 512;

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

/**
 * file.list_unused_assets: the asset files and folders no document, title image or database
 * links, as SiYuan lists them (newest first, at most 512), one page of them. A notebook's asset
 * (`<notebook>/assets/…`) needs read on that notebook, one under `data/assets/` the default
 * permission (the workspace's, as `file.upload_asset`); the others are withheld.
 */
export const listUnusedAssets = readAction({
  run: async (ctx, a: { page: number; pageSize: number }) => {
    const found = await ctx.kernel.getUnusedAssets();
    const readable = (path: string): boolean => {
      const box = /^(\d{14}-[a-z0-9]{7})\/assets\//.exec(path)?.[1];
      return (
        (box === undefined ? ctx.permissions.default : permissionOf(ctx.permissions, box)) !==
        "none"
      );
    };
    const kept = found.filter((x) => readable(x.path));
    const withheld = found.length - kept.length;
    const { items, ...paging } = pageOf(kept, a.page, a.pageSize);
    return {
      assets: items,
      ...paging,
      ...(found.length >= KERNEL_UNUSED_ASSETS_MAX ? { capped: true } : {}),
      ...(withheld > 0 ? { withheld, withheldReason: "assets of notebooks you may not read" } : {}),
    };
  },
});

/**
 * document.child_sort_mode: the order a document's or a notebook's child documents are listed in.
 * SiYuan 3.7.3 keeps one mode per notebook (its conf's `sortMode`, 15 = the workspace's
 * `fileTree.sort`) for every level of that notebook; a document has no mode of its own there.
 */
import { notFound, ToolError } from "../../errors.js";
import { readAction } from "../../handler.js";
import { notebooksOfBlocks } from "../../permissions.js";

/** A notebook's `sortMode` that defers to the workspace's `fileTree.sort`. */
export const SORT_MODE_FILE_TREE = 15;

/** SiYuan's sort modes (`util.SortMode*`), by number. */
export const SORT_MODE_NAMES = [
  "name_asc",
  "name_desc",
  "updated_asc",
  "updated_desc",
  "natural_asc",
  "natural_desc",
  "custom",
  "ref_count_asc",
  "ref_count_desc",
  "created_asc",
  "created_desc",
  "size_asc",
  "size_desc",
  "sub_doc_count_asc",
  "sub_doc_count_desc",
  "workspace",
] as const;

/**
 * The mode, its name and where it is set (`notebook`, or `workspace` when the notebook defers);
 * `id` is a notebook's ID or a document's. Another block's ID is `invalid_arguments`.
 */
export const childSortMode = readAction({
  run: async (ctx, a: { id: string }) => {
    const notebooks = await ctx.kernel.lsNotebooks();
    let box = notebooks.find((n) => n.id === a.id);
    if (box === undefined) {
      const info = await ctx.kernel.getBlockInfo(a.id);
      if (info === null) throw notFound("document or notebook", a.id);
      if (info.rootID !== a.id) {
        throw new ToolError(
          "invalid_arguments",
          `${a.id} is a block inside document ${info.rootID}, not a document or a notebook; only documents have child documents`,
          { id: a.id, docID: info.rootID },
        );
      }
      box = notebooks.find((n) => n.id === info.box);
      if (box === undefined) throw notFound("notebook", info.box);
    }
    const fromWorkspace = box.sortMode === SORT_MODE_FILE_TREE;
    const mode = fromWorkspace
      ? ((await ctx.kernel.systemConf())["fileTree"] as { sort?: unknown } | undefined)?.sort
      : box.sortMode;
    if (typeof mode !== "number") {
      throw new ToolError("kernel_error", "SiYuan's configuration answered no fileTree.sort", {
        kernelCode: "decode",
      });
    }
    return {
      id: a.id,
      notebook: box.id,
      sortMode: mode,
      name: SORT_MODE_NAMES[mode] ?? String(mode),
      setBy: fromWorkspace ? "workspace" : "notebook",
    };
  },
  notebooks: async (ctx, a) => {
    const isNotebook = (await ctx.kernel.lsNotebooks()).some((n) => n.id === a.id);
    return isNotebook ? [a.id] : notebooksOfBlocks(ctx, [a.id]);
  },
});

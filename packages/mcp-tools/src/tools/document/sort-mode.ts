/**
 * document.child_sort_mode: the order a document's or a notebook's child documents are listed in.
 * SiYuan 3.7.3 keeps one mode per notebook (its conf's `sortMode`, 15 = the workspace's
 * `fileTree.sort`) for every level of that notebook; a document has no mode of its own there.
 */
import { SORT_MODE_NAMES } from "../../args.js";
import { notFound, ToolError } from "../../errors.js";
import {
  type ArgsOf,
  type MutationHandler,
  type ReadbackResult,
  readAction,
} from "../../handler.js";
import { notebooksOfBlocks } from "../../permissions.js";
import { type NotebookState, readNotebookState } from "../notebook.js";

/** A notebook's `sortMode` that defers to the workspace's `fileTree.sort`. */
export const SORT_MODE_FILE_TREE = 15;

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

/**
 * document.set_child_sort_mode (state): the notebook's `sortMode` through `setNotebookConf`, read
 * back through the row child_sort_mode reads (`lsNotebooks`). SiYuan 3.7.3 has no per-document
 * mode, so a document's ID is refused with its notebook rather than reordering the whole notebook
 * unasked; `workspace` (15) defers to the workspace's `fileTree.sort`.
 */
export const setChildSortMode: MutationHandler<
  ArgsOf<"document", "set_child_sort_mode">,
  NotebookState,
  null
> = {
  targets: (a) => [a.notebook],
  async probe(ctx, a) {
    const state = await readNotebookState(ctx, a.notebook);
    if (!state.row) {
      const info = await ctx.kernel.getBlockInfo(a.notebook);
      if (info === null) throw notFound("notebook", a.notebook);
      throw new ToolError(
        "invalid_arguments",
        `${a.notebook} is not a notebook: SiYuan 3.7.3 keeps one child sort mode per notebook, for every level; pass notebook ${info.box} to set it for all of that notebook`,
        { id: a.notebook, notebook: info.box },
      );
    }
    return { state, notebooks: [a.notebook], snapshot: state };
  },
  async execute(ctx, a) {
    await ctx.write.setNotebookConf(a.notebook, { sortMode: SORT_MODE_NAMES.indexOf(a.mode) });
    return null;
  },
  async readback(ctx, a, before): Promise<ReadbackResult> {
    const after = await readNotebookState(ctx, a.notebook);
    const want = SORT_MODE_NAMES.indexOf(a.mode);
    if (after.row?.sortMode !== want)
      return {
        state: after,
        verdict: "mismatch",
        reason: `the notebook's sort mode is ${after.row?.sortMode ?? "gone"}, not ${want} (${a.mode})`,
      };
    return {
      state: after,
      verdict: before.snapshot.row?.sortMode === want ? "unchanged" : "applied",
      receipt: { notebook: a.notebook, sortMode: want, name: a.mode },
    };
  },
};

/**
 * fs: documents addressed by path `/<notebook name>/<title>/<title>…`. ls, read, tree, search
 * (reads); write (additive when new, state with `overwrite`); rm (state); mv, reorder (structure);
 * replace (manifest). One file
 * per kind of action; this table joins them to the catalog's actions.
 */
import { mutationAction, type ToolHandlers } from "../../handler.js";
import { fsReads } from "./reads.js";
import { mv, rm } from "./remove-move.js";
import { reorder } from "./reorder.js";
import { replace } from "./replace.js";
import { write } from "./write.js";

/** The fs tool's handlers. */
export const fsHandlers = {
  ...fsReads,
  write: mutationAction(write),
  rm: mutationAction(rm),
  mv: mutationAction(mv),
  reorder: mutationAction(reorder),
  replace: mutationAction(replace),
} satisfies ToolHandlers<"fs">;

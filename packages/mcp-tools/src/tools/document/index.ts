/**
 * document: get, list_tree, find, lookup (reads); create (additive); rename, set_attrs (alias
 * set_attr), remove (state); move, reorder (structure). One file per kind of action; this table
 * joins them to the catalog's actions.
 */
import { mutationAction, type ToolHandlers } from "../../handler.js";
import { create } from "./create.js";
import { remove, rename, setAttrs } from "./meta-mutations.js";
import { documentReads } from "./reads.js";
import { move, reorder } from "./structure.js";

/** The document tool's handlers. */
export const documentHandlers = {
  ...documentReads,
  create: mutationAction(create),
  rename: mutationAction(rename),
  set_attrs: mutationAction(setAttrs),
  remove: mutationAction(remove),
  move: mutationAction(move),
  reorder: mutationAction(reorder),
} satisfies ToolHandlers<"document">;

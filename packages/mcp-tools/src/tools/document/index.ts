/**
 * document: get, list_tree, find, lookup, outline, recent, daily_note, snapshot, child_sort_mode
 * (reads); create, create_daily_note, duplicate (additive); rename, set_attrs (alias set_attr),
 * set_icon, set_child_sort_mode, remove (state); move, reorder, heading_to_doc, doc_to_heading
 * (structure). One file per kind of action; this table
 * joins them to the catalog's actions.
 */
import { mutationAction, readAction, type ToolHandlers } from "../../handler.js";
import { snapshot } from "../snapshot.js";
import { create } from "./create.js";
import { createDailyNote, dailyNote } from "./daily-note.js";
import { duplicate } from "./duplicate.js";
import { docToHeading, headingToDoc } from "./heading.js";
import { remove, rename, setAttrs, setIcon } from "./meta-mutations.js";
import { outline, recent } from "./navigation.js";
import { documentReads } from "./reads.js";
import { childSortMode, setChildSortMode } from "./sort-mode.js";
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
  outline,
  recent,
  child_sort_mode: childSortMode,
  daily_note: dailyNote,
  snapshot: readAction(snapshot),
  create_daily_note: mutationAction(createDailyNote),
  duplicate: mutationAction(duplicate),
  set_icon: mutationAction(setIcon),
  set_child_sort_mode: mutationAction(setChildSortMode),
  heading_to_doc: mutationAction(headingToDoc),
  doc_to_heading: mutationAction(docToHeading),
} satisfies ToolHandlers<"document">;

/**
 * block: reads by ID (backlinks, backmentions and the breadcrumb among them), over several IDs
 * (batch_kramdown, word_count) and recent_updated; additive insert/prepend/append, add_to_daily_note;
 * update, replace, set_attrs, delete, set_fold_state (state); move (structure); transfer_references
 * and find_replace (manifest: several blocks). One file per kind of write; this table joins them to
 * the catalog's actions.
 */
import { mutationAction, type ToolHandlers } from "../../handler.js";
import { setAttrs } from "./attrs.js";
import { batchKramdown, recentUpdated, wordCount } from "./batch-reads.js";
import { addToDailyNote } from "./daily-note-block.js";
import { del } from "./delete.js";
import { findReplace } from "./find-replace.js";
import { setFoldState } from "./fold.js";
import { append, insert, prepend } from "./insert.js";
import { move } from "./move.js";
import { backlinks, backmentions, breadcrumb } from "./navigation.js";
import { dom, getAttrs, getChildren, getKramdown, info } from "./reads.js";
import { replace } from "./replace.js";
import { transferReferences } from "./transfer-refs.js";
import { update } from "./update.js";

/** The block tool's handlers. */
export const blockHandlers = {
  get_kramdown: getKramdown,
  get_attrs: getAttrs,
  get_children: getChildren,
  info,
  dom,
  backlinks,
  backmentions,
  breadcrumb,
  batch_kramdown: batchKramdown,
  word_count: wordCount,
  recent_updated: recentUpdated,
  insert: mutationAction(insert),
  prepend: mutationAction(prepend),
  append: mutationAction(append),
  update: mutationAction(update),
  replace: mutationAction(replace),
  find_replace: mutationAction(findReplace),
  set_attrs: mutationAction(setAttrs),
  delete: mutationAction(del),
  move: mutationAction(move),
  set_fold_state: mutationAction(setFoldState),
  transfer_references: mutationAction(transferReferences),
  add_to_daily_note: mutationAction(addToDailyNote),
} satisfies ToolHandlers<"block">;

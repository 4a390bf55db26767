/**
 * av (databases): get, render, keys (reads); create (additive, staged and resumable); add_rows,
 * remove_rows, set_cells (rows.ts), add_column, remove_column (columns.ts), rename (rename.ts), duplicate (duplicate.ts) and
 * filter_sort, search, primary_key_values (lookups.ts). One file
 * per kind of action; this table joins them to the catalog's actions.
 */
import { mutationAction, type ToolHandlers } from "../../handler.js";
import { addColumn, removeColumn } from "./columns.js";
import { create } from "./create.js";
import { duplicate } from "./duplicate.js";
import { avLookups } from "./lookups.js";
import { avReads } from "./reads.js";
import { rename } from "./rename.js";
import { addRows, removeRows, setCells } from "./rows.js";

/** The av tool's handlers. */
export const avHandlers = {
  ...avReads,
  create: mutationAction(create),
  add_rows: mutationAction(addRows),
  remove_rows: mutationAction(removeRows),
  set_cells: mutationAction(setCells),
  add_column: mutationAction(addColumn),
  remove_column: mutationAction(removeColumn),
  rename: mutationAction(rename),
  duplicate: mutationAction(duplicate),
  ...avLookups,
} satisfies ToolHandlers<"av">;

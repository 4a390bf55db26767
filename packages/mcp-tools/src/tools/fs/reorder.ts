/** fs.reorder: child documents by title (the engine is document.reorder's). */
import { ToolError } from "../../errors.js";
import type { ArgsOf } from "../../handler.js";
import { listChildren } from "../../state/doc-state.js";
import { reorderHandler } from "../reorder.js";
import { parentAt } from "./paths.js";

/** fs.reorder: the child documents of `path`, by title, in the given order. */
export const reorder = reorderHandler<ArgsOf<"fs", "reorder">>(
  async (ctx, a) => {
    const parent = await parentAt(ctx, a.path);
    const children = await listChildren(ctx, parent);
    const orderedIds = a.order.map((title) => {
      const matches = children.filter((c) => c.name === title);
      if (matches.length !== 1) {
        throw new ToolError(
          matches.length === 0 ? "not_found" : "ambiguous_path",
          `${matches.length === 0 ? "no" : matches.length} child documents titled ${title}: list the children with fs.ls and use their exact titles (or document.reorder with IDs)`,
          matches.length === 0 ? { id: title } : { ids: matches.map((m) => m.id) },
        );
      }
      return matches[0]!.id;
    });
    return { parent, orderedIds };
  },
  (a) => [a.path],
);

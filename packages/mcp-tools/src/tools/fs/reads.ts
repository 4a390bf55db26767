/** fs reads: ls, read, tree. */
import { notFound } from "../../errors.js";
import { readAction, type ToolHandlers } from "../../handler.js";
import { listChildren } from "../../state/doc-state.js";
import { listTree } from "../document/tree.js";
import { parentAt, requireDocAt } from "./paths.js";

/** The fs tool's reads. */
export const fsReads = {
  ls: readAction({
    run: async (ctx, a) => {
      const parent = await parentAt(ctx, a.path);
      const files = await listChildren(ctx, parent);
      return {
        path: a.path,
        entries: files.map((f) => ({ title: f.name, id: f.id, children: f.subFileCount })),
      };
    },
  }),
  read: readAction({
    run: async (ctx, a) => {
      const { id } = await requireDocAt(ctx, a.path);
      const kramdown = await ctx.kernel.getBlockKramdown(id);
      if (kramdown === null) throw notFound("path", a.path);
      return { path: a.path, id, kramdown };
    },
  }),
  tree: readAction({
    run: async (ctx, a) => {
      const parent = await parentAt(ctx, a.path);
      return { path: a.path, ...(await listTree(ctx, parent, a.depth)) };
    },
  }),
} satisfies Pick<ToolHandlers<"fs">, "ls" | "read" | "tree">;

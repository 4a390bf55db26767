/** document reads: get, list_tree, find, lookup. */
import { notFound, ToolError } from "../../errors.js";
import { readAction, type ToolHandlers } from "../../handler.js";
import { locateDoc, normalizeHpath, requireDoc, resolveParent } from "../../state/doc-state.js";
import { docByTitle, findDocs } from "./find.js";
import { listTree } from "./tree.js";

/** The document tool's reads. */
export const documentReads = {
  get: readAction({
    run: async (ctx, a) => {
      const id = a.id ?? (await docByTitle(ctx, a.title as string)).id;
      const [loc, kramdown, hpath, notebooks] = await Promise.all([
        locateDoc(ctx, id),
        ctx.kernel.getBlockKramdown(id),
        ctx.kernel.getHPathByID(id),
        ctx.kernel.lsNotebooks(),
      ]);
      if (!loc || kramdown === null) throw notFound("document", id);
      const notebookName = notebooks.find((n) => n.id === loc.notebook)?.name ?? "";
      return { id, notebook: loc.notebook, notebookName, hpath, kramdown };
    },
    notebooks: async (ctx, a) =>
      a.id === undefined
        ? [(await docByTitle(ctx, a.title as string)).notebook]
        : [(await requireDoc(ctx, a.id)).notebook],
  }),
  list_tree: readAction({
    run: async (ctx, a) => {
      const parent = await resolveParent(ctx, a.id ?? a.notebook);
      if (parent.notebook !== a.notebook) {
        throw new ToolError(
          "invalid_arguments",
          `document ${a.id} is not in notebook ${a.notebook}: pass the document's own notebook`,
          { id: a.id, notebook: parent.notebook },
        );
      }
      return {
        notebook: a.notebook,
        root: a.id ?? "/",
        ...(await listTree(ctx, parent, a.depth)),
      };
    },
    notebooks: async (_ctx, a) => [a.notebook],
  }),
  find: readAction({
    run: findDocs,
    notebooks: async (_ctx, a) => (a.notebook === undefined ? [] : [a.notebook]),
  }),
  lookup: readAction({
    run: async (ctx, a) => {
      if (a.id) {
        const [loc, hpath] = await Promise.all([
          locateDoc(ctx, a.id),
          ctx.kernel.getHPathByID(a.id),
        ]);
        if (!loc) throw notFound("document", a.id);
        return { id: a.id, notebook: loc.notebook, path: loc.path, hpath };
      }
      const ids = await ctx.kernel.getIDsByHPath(
        a.notebook as string,
        normalizeHpath(a.hpath as string),
      );
      return { notebook: a.notebook, hpath: normalizeHpath(a.hpath as string), ids };
    },
    notebooks: async (ctx, a) =>
      a.id ? [(await requireDoc(ctx, a.id)).notebook] : [a.notebook as string],
  }),
} satisfies Pick<ToolHandlers<"document">, "get" | "list_tree" | "find" | "lookup">;

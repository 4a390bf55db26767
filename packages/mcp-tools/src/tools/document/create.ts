/**
 * document.create (additive), and the probe and readback fs.write shares with it when it creates.
 */
import { notFound, ToolError } from "../../errors.js";
import type { ArgsOf, MutationHandler, ReadbackResult, ToolContext } from "../../handler.js";
import { splitOwnIal } from "../../state/attributes.js";
import { locateDoc, normalizeHpath } from "../../state/doc-state.js";
import { documentShows } from "../../state/readback.js";

/** Probe of a document creation: the notebook must exist and be open. */
export async function probeNotebookOpen(ctx: ToolContext, notebook: string) {
  const rows = await ctx.kernel.lsNotebooks();
  const row = rows.find((r) => r.id === notebook);
  if (!row) throw notFound("notebook", notebook);
  if (row.closed)
    throw new ToolError("notebook_closed", `notebook ${notebook} is closed`, { notebook });
  return { state: { notebook }, notebooks: [notebook], snapshot: null };
}

/**
 * Readback of a created document: it exists live, at the requested hpath, and shows the requested
 * Markdown (an empty request is not compared: the kernel gives a new empty document one empty
 * paragraph). What it read is `shown` (the answer's `current`): the document's Kramdown as
 * `get_kramdown` answers it, its body's blocks and then its own IAL line (its ID and title), so the
 * key's block is plain to see.
 */
export async function createdDocReadback(
  ctx: ToolContext,
  id: string,
  hpath: string,
  markdown: string,
): Promise<ReadbackResult> {
  await ctx.kernel.flush();
  const [loc, actual] = await Promise.all([locateDoc(ctx, id), ctx.kernel.getHPathByID(id)]);
  const state = { id, location: loc, hpath: actual };
  if (!loc)
    return {
      state,
      verdict: "mismatch",
      reason: `document ${id} does not exist after the write`,
      receipt: { id },
    };
  if (actual !== normalizeHpath(hpath)) {
    return {
      state,
      verdict: "mismatch",
      reason: `document ${id} is at ${actual}, not ${normalizeHpath(hpath)}`,
      receipt: { id },
    };
  }
  let shown: Record<string, string> | undefined;
  if (markdown.trim() !== "") {
    const kramdown = (await ctx.kernel.getBlockKramdown(id)) ?? "";
    if (!documentShows(splitOwnIal(kramdown).body, markdown)) {
      return {
        state,
        verdict: "mismatch",
        reason: `document ${id} does not show the requested content`,
        receipt: { id },
      };
    }
    shown = { [id]: kramdown };
  }
  return { state, verdict: "applied", receipt: { id, hpath: actual }, ...(shown && { shown }) };
}

/** document.create: a new document at `hpath`; the readback requires it there. */
export const create: MutationHandler<ArgsOf<"document", "create">, null, string> = {
  targets: (a) => [a.notebook],
  probe: (ctx, a) => probeNotebookOpen(ctx, a.notebook),
  execute: (ctx, a) => ctx.write.createDocWithMd(a.notebook, normalizeHpath(a.hpath), a.markdown),
  readback: (ctx, a, _before, id) => createdDocReadback(ctx, id, a.hpath, a.markdown),
};

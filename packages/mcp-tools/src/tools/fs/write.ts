/** fs.write: create, or with `overwrite` replace, the document at a path. */
import { notFound, ToolError } from "../../errors.js";
import type { ArgsOf, MutationHandler } from "../../handler.js";
import { splitOwnIal } from "../../state/attributes.js";
import { normalizeHpath, readDocBody } from "../../state/doc-state.js";
import { documentShows } from "../../state/readback.js";
import { createdDocReadback, probeNotebookOpen } from "../document/create.js";
import { docAt, docPath } from "./paths.js";

interface WriteSnapshot {
  readonly notebook: string;
  readonly hpath: string;
  readonly existing: string | null;
  readonly before: string;
}

/**
 * fs.write: creates the document at `path` (additive), or with `overwrite` replaces the content of
 * the one there (state precondition over its whole Kramdown).
 */
export const write: MutationHandler<ArgsOf<"fs", "write">, WriteSnapshot, string> = {
  targets: (a) => [a.path],
  async probe(ctx, a) {
    const p = await docPath(ctx, a.path);
    const notebook = p.notebook;
    const existing = await docAt(ctx, notebook, p.hpath);
    if (!a.overwrite) {
      if (existing) {
        throw new ToolError(
          "already_exists",
          `${a.path} exists: read it with fs.read, or preflight fs.write with overwrite:true to replace its content`,
          { id: existing },
        );
      }
      const open = await probeNotebookOpen(ctx, notebook);
      return { ...open, snapshot: { notebook, hpath: p.hpath, existing: null, before: "" } };
    }
    if (!existing) throw notFound("path", a.path);
    const doc = await readDocBody(ctx, existing);
    if (!doc) throw notFound("path", a.path);
    return {
      state: doc.state,
      notebooks: [notebook],
      snapshot: { notebook, hpath: p.hpath, existing, before: splitOwnIal(doc.kramdown).body },
    };
  },
  async execute(ctx, a, before) {
    const s = before.snapshot;
    if (s.existing === null)
      return ctx.write.createDocWithMd(s.notebook, normalizeHpath(s.hpath), a.markdown);
    // Updating a document ID replaces all of its children with the new content.
    await ctx.write.updateBlock(s.existing, "markdown", a.markdown);
    return s.existing;
  },
  async readback(ctx, a, before, id) {
    if (before.snapshot.existing === null) {
      // fs answers paths and Markdown: the created document's Kramdown (`current`) is document.create's.
      const { shown: _kramdown, ...created } = await createdDocReadback(
        ctx,
        id,
        before.snapshot.hpath,
        a.markdown,
      );
      return created;
    }
    await ctx.kernel.flush();
    // The document's whole Kramdown, live by ID (the kernel answers none once it is gone): the
    // same state the probe read, so an unchanged document hashes as before.
    const doc = await readDocBody(ctx, id);
    if (doc === null)
      return {
        state: { id, missing: true },
        verdict: "mismatch",
        reason: `document ${id} no longer exists`,
      };
    const state = doc.state;
    if (!documentShows(splitOwnIal(doc.kramdown).body, a.markdown)) {
      return {
        state,
        verdict: "mismatch",
        reason: "the document does not show the written content",
      };
    }
    // `unchanged` is decided from the request and the before-state, never from the readback.
    const same = documentShows(before.snapshot.before, a.markdown);
    if (!same && JSON.stringify(state) === JSON.stringify(before.state)) {
      return {
        state,
        verdict: "mismatch",
        reason: "the document still shows its previous content although the request changes it",
      };
    }
    return { state, verdict: same ? "unchanged" : "applied", receipt: { id } };
  },
};

/**
 * `docSaveAsTemplate` as SiYuan 3.7.3 answers it (`model.DocSaveAsTemplate`): the block's document
 * (a heading with its children, another block alone, under the document's IAL) rendered with each
 * block's IAL less `updated`, inline marks as spans, `template`/`siyuan-template` code blocks as
 * paragraphs of their code; saved as `data/templates/<FilterFileName(name)>.md`. An existing file
 * without `overwrite` answers code 1 and writes nothing; an unknown ID answers code 0 and writes
 * nothing. A block's ID other than a heading's or the document's gives that block, and any of them a
 * stray IAL line of a fresh root ID (kernel-probes template.docSaveAsTemplate). Not modelled: HTML
 * blocks wrapped in `<div>`, embed scripts on one line.
 */
import type { Block } from "./block.js";
import { kernelError } from "./errors.js";
import { type HandlerContext, panicReply, type Route } from "./handler-kit.js";
import { filterFileName, truncateLenFileName } from "./handlers-asset.js";
import { ialString, renderKramdown } from "./render.js";

/** A block as the template holds it: no `updated`, template code as a paragraph. */
function templateBlock(b: Block): Block {
  const { updated: _updated, ...attrs } = b.attrs;
  const children = b.children.map(templateBlock);
  if (b.type === "c" && (b.lang === "template" || b.lang === "siyuan-template")) {
    return { ...b, type: "p", lang: "", attrs, children: [] };
  }
  return { ...b, attrs, children };
}

function docSaveAsTemplate(ctx: HandlerContext): unknown {
  const { id, name, overwrite } = ctx.body;
  if (typeof id !== "string" || typeof name !== "string" || typeof overwrite !== "boolean") {
    throw panicReply();
  }
  const ws = ctx.kernel.ws;
  const loc = ws.locate(id);
  if (!loc) return null;
  const root = loc.doc.root;
  let nodes: Block[];
  if (loc.block.type === "d") nodes = root.children;
  else if (loc.block.type === "h" && loc.parent)
    nodes = [loc.block, ...ws.headingChildren(loc.block, loc.parent)];
  else nodes = [loc.block];
  const body = nodes.map((n) =>
    renderKramdown(templateBlock(n), { withIal: true, textmark: true }),
  );
  const { id: docId, updated: _updated, ...rootAttrs } = root.attrs;
  let md: string;
  if (loc.block.type === "d") {
    md = [...body, ialString({ id: docId ?? root.id, ...rootAttrs })].join("\n\n");
  } else {
    // The kernel moves the blocks into a fresh tree: its root's ID and a stray IAL line with it.
    const fresh = ctx.kernel.ids.newId();
    const stray = ialString({ id: fresh, type: "doc", updated: ctx.kernel.ids.timestamp() });
    md = `${body.join("\n\n")}\n\n\n${stray}\n\n${ialString({ id: fresh, ...rootAttrs })}`;
  }
  // Lute's format renderer ends each code span with a zero-width space.
  md = md.replace(/(<span data-type="code">[^<]*<\/span>)(?!\u200b)/g, "$1\u200b");
  const path = `/data/templates/${truncateLenFileName(`${filterFileName(name)}.md`)}`;
  const files = ctx.kernel.files;
  if (files.kind(path) !== null && !overwrite) throw kernelError(1, "");
  files.write(path, Buffer.from(md, "utf8"), ctx.kernel.ids.clock.now());
  return null;
}

/** The routes of this file. */
export const templateRoutes: Record<string, Route> = {
  "/api/template/docSaveAsTemplate": {
    handler: docSaveAsTemplate,
    auth: true,
    body: "json",
    write: true,
  },
};

/**
 * `docSaveAsTemplate` as SiYuan 3.7.3 answers it (`model.DocSaveAsTemplate`): the block's document
 * (a heading with its children, another block alone, under the document's IAL) rendered with each
 * block's IAL less `updated`, inline marks as spans, `template`/`siyuan-template` code blocks as
 * paragraphs of their code; saved as `data/templates/<FilterFileName(name)>.md`. An existing file
 * without `overwrite` answers code 1 and writes nothing; an unknown ID answers code 0 and writes
 * nothing. A block's ID other than a heading's or the document's gives that block, and any of them a
 * stray IAL line of a fresh root ID (kernel-probes template.docSaveAsTemplate). Not modelled: HTML
 * blocks wrapped in `<div>`, embed scripts on one line. Also here: `/api/template/render` (below).
 */
import { posix } from "node:path";
import { type Block, newBlock, walk } from "./block.js";
import { isValidNodeId } from "./clock.js";
import { kernelError } from "./errors.js";
import { executeTemplate, GoTemplateError, NotModelledError } from "./go-template.js";
import { processZone, utcZone } from "./go-time.js";
import { type HandlerContext, panicReply, type Route } from "./handler-kit.js";
import { filterFileName, truncateLenFileName, workspaceAbs } from "./handlers-asset.js";
import { parseInline, parseMarkdown } from "./markdown.js";
import {
  decodeLuteEntities,
  goEscapeHtml,
  ialString,
  LUTE_ENTITIES,
  renderDom,
  renderKramdown,
} from "./render.js";

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

/** Go's `html.UnescapeString` for the entities the sandbox knows; another named one is refused. */
function htmlUnescape(s: string): string {
  return decodeLuteEntities(s, (m) =>
    refuse(`the HTML entity ${m} in a block's name or alias is not modelled`),
  );
}

/** gulu's `IsSubPath(workspaceDir, p)`: absolute, inside, and not the directory itself. */
function inWorkspace(dir: string, p: string): boolean {
  if (p === "" || p === dir || !p.startsWith("/")) return false;
  const rel = posix.relative(posix.normalize(dir), posix.normalize(p));
  return rel !== "" && rel !== ".." && !rel.startsWith("../");
}

/** Language(44) of the kernel's `en` pack, the sandbox's language. */
const PARSE_TEMPLATE_FAILED = "Parse template failed: %s";

/** A line that starts an HTML block (CommonMark's kinds 1–6, and inline tags alone on a line). */
const HTML_BLOCK_START =
  /^\s*(<!--|<\?|<![A-Za-z]|<!\[CDATA\[|<\/?(address|article|aside|audio|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|pre|script|search|section|style|summary|table|tbody|td|textarea|tfoot|th|thead|title|tr|track|ul|video|span|a|b|i|em|strong|img|br|kbd|u|sub|sup|font|code|mark|s|del|ins|small)(\s|\/?>|$))/im;

/** Inline Markdown the sandbox reads differently from Lute, with what to call it. */
const UNMODELLED_INLINE: ReadonlyArray<[RegExp, string]> = [
  [/\(\(\d{14}-[a-z0-9]{7}|siyuan:\/\/blocks\//, "a block reference"],
  [/\\([!-/:-@[-`{-~]|$)/m, "a backslash escape"],
  [/``/, "a code span of several backticks"],
  [/!\[/, "an image"],
  [/\[\^/, "a footnote"],
  [/\]\([^)\s]*\s/, "a link title"],
  [/(^|[^~])~[^~\s]|\^[^\s^]+\^/, "a subscript or superscript"],
  [/^\s*\|?(\s*:?-+:?\s*\|)+\s*(:?-+:?)?\s*$/m, "a table"],
  [/^\s*(\{\{\{|\{\{\s*select\b)/i, "a super block or an embed"],
  [HTML_BLOCK_START, "an HTML block"],
  [/<[A-Za-z][A-Za-z0-9+.-]*:[^\s<>]*>|<[^\s<>@]+@[^\s<>]+>/, "an autolink"],
];

/** What of a block the sandbox does not render as Lute does, or null. */
function unmodelled(b: Block): string | null {
  if (b.type === "av") return "a database block";
  if (b.type === "html" || b.type === "s") return "an HTML or super block";
  if (b.type === "b" && /^\s*\[!/.test(b.children[0]?.text ?? "")) return "a callout";
  if (b.type !== "p" && b.type !== "h") return null;
  for (const [re, what] of UNMODELLED_INLINE) if (re.test(b.text)) return what;
  for (const m of b.text.matchAll(/&([A-Za-z][A-Za-z0-9]*);/g)) {
    if (!((m[1] ?? "") in LUTE_ENTITIES)) return "an HTML entity";
  }
  const segs = parseInline(b.text);
  // the sandbox reads `_` as emphasis also inside words, Lute does not: refuse where `_` makes any
  const marks = (t: string) => JSON.stringify(parseInline(t).map((g) => g.types));
  if (b.text.includes("_") && marks(b.text) !== marks(b.text.replace(/_/g, "\u0001"))) {
    return "emphasis with underscores";
  }
  for (const seg of segs) {
    if (seg.types.length > 1) return "nested inline marks";
    const t = seg.types[0];
    if (t === "tag") return "a tag";
    if (t === "kbd" || t === "u" || t === "sup" || t === "sub") return "inline HTML";
  }
  return null;
}

const refuse = (what: string): never => {
  throw kernelError(-1, `siyuan-sandbox: ${what}`);
};

/**
 * `/api/template/render` as SiYuan 3.7.3 answers it (`model.RenderTemplate`, kernel-probes
 * `template.render.*`): the file at an absolute path inside the workspace run as a Go template with
 * delimiters `.action{` `}` on `{title, id, name, alias}` of the block, the result parsed as
 * Kramdown, every block given a fresh ID and `updated`, rendered as the editor's block DOM. What the
 * sandbox does not model is refused with `siyuan-sandbox: …`: the functions, methods and actions the
 * engine names, and the Markdown constructs {@link unmodelled} names (tables, images, database
 * blocks, block references…). `preview` changes nothing else here: only database blocks (refused)
 * would be saved without it.
 */
function renderTemplate(ctx: HandlerContext): unknown {
  const { path, id, preview } = ctx.body;
  if (typeof path !== "string" || typeof id !== "string") throw panicReply();
  if (!isValidNodeId(id)) throw kernelError(-1, "invalid ID argument");
  const k = ctx.kernel;
  const dir = workspaceAbs(k, "");
  if (!inWorkspace(dir, path)) throw kernelError(-1, `Path [${path}] is not in workspace`);
  if (preview !== undefined && preview !== null && typeof preview !== "boolean") throw panicReply();
  const loc = k.ws.locate(id);
  if (!loc) throw kernelError(-1, "tree not found");
  const wsPath = `/${posix.relative(posix.normalize(dir), posix.normalize(path))}`;
  const kind = k.files.kind(wsPath);
  if (kind === null) throw kernelError(-1, `open ${path}: no such file or directory`);
  if (kind === "dir") throw kernelError(-1, `read ${path}: is a directory`);
  const md = k.files.read(wsPath).toString("utf8");

  const b = loc.block;
  // sql.BuildBlockFromNode: name and alias HTML-unescaped, a document's title as stored
  const name = htmlUnescape(b.attrs.name ?? "");
  const data = {
    title: b.type === "d" ? (b.attrs.title ?? "") : name,
    id: b.id,
    name,
    alias: htmlUnescape(b.attrs.alias ?? ""),
  };
  let out: string;
  try {
    out = executeTemplate(md, data, {
      left: ".action{",
      right: "}",
      env: { now: () => k.ids.clock.now(), zone: k.ids.utc ? utcZone : processZone },
    });
  } catch (e) {
    if (e instanceof NotModelledError) throw kernelError(-1, e.message);
    if (e instanceof GoTemplateError) {
      throw kernelError(-1, goEscapeHtml(PARSE_TEMPLATE_FAILED.replace("%s", e.message)));
    }
    throw e;
  }

  // parseKTree: an empty result is one empty paragraph
  const blocks = parseMarkdown(out, { keepParagraphIndent: true }).blocks;
  if (blocks.length === 0) blocks.push(newBlock("p"));
  const updated = k.ids.timestamp();
  const root = newBlock("d", { children: blocks });
  if (/^\s*---\n[\s\S]*?\n---[ \t]*(\n|$)/.test(out)) {
    refuse("YAML front matter in a template's output is not modelled");
  }
  walk(root, (n) => {
    if (n === root) return;
    const what = unmodelled(n);
    if (what) refuse(`${what} in a template's output is not modelled`);
    // RenderTemplate gives an empty quote an empty paragraph
    if (n.type === "b" && n.children.length === 0) n.children.push(newBlock("p"));
    // a fresh ID in place of the template's (or after its other attributes), `updated` now
    n.id = k.ids.newId();
    n.attrs.id = n.id;
    delete n.attrs["custom-avs"];
    n.attrs.updated = updated;
    if (n.attrs["heading-fold"] === "1") n.attrs.status = "temp";
  });
  return { path, content: renderDom(root, undefined, undefined, true) };
}

/** The routes of this file. */
export const templateRoutes: Record<string, Route> = {
  "/api/template/docSaveAsTemplate": {
    handler: docSaveAsTemplate,
    auth: true,
    body: "json",
    write: true,
  },
  "/api/template/render": { handler: renderTemplate, auth: true, body: "json", write: false },
};

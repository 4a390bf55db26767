/**
 * Navigation and tags (contract §4.10): searchTag, listDocTree, backlinks and mentions, outline,
 * breadcrumb, recent documents, daily notes, and the UI reload endpoints (which answer null, and
 * `reloadProtyle` first refreshes dynamic anchor texts, which can rewrite other documents).
 */
import { type Block, headingLevel, LUTE_NODE_NAMES, walk } from "./block.js";
import { zeroBlockJson } from "./block-json.js";
import { dateParts, isValidNodeId } from "./clock.js";
import {
  BREADCRUMB_NAME_MAX_CHARS,
  DYNAMIC_ANCHOR_MAX_CHARS,
  SQL_DEFAULT_LIMIT_ROWS as NAV_SEARCH_LIMIT,
  RECENT_DOCS_MAX_LIST_COUNT,
} from "./constants.js";
import { kernelError } from "./errors.js";
import { type HandlerContext, panicReply, type Route, reqId, reqStr } from "./handler-kit.js";
import { workspaceAbs } from "./handlers-asset.js";
import { blockRoutes } from "./handlers-block.js";
import type { Kernel } from "./kernel.js";
import { type InlineSegment, inlineRefs, inlineTags, parseInline } from "./markdown.js";
import { escapeHtml, inlineDom, plainContent, renderDom } from "./render.js";
import type { Workspace } from "./workspace.js";
import type { DocEntry } from "./workspace-index.js";

/** Where the UI keeps its recent documents. */
export const RECENT_DOC_FILE = "/data/storage/recent-doc.json";

const r = (handler: Route["handler"], body: Route["body"] = "json", write = false): Route => ({
  handler,
  auth: true,
  body,
  write,
});

/** Documents of open notebooks, in ID (creation) order. */
function openDocs(ws: Workspace): DocEntry[] {
  return [...ws.docs.values()]
    .filter((d) => ws.notebooks.get(d.box)?.conf.closed === false)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const boxName = (ws: Workspace, box: string): string => ws.notebooks.get(box)?.conf.name ?? "";

/** Space-separated words of a filter (lowercased). */
const words = (s: string): string[] =>
  s
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());

const containsAll = (text: string, ws: string[]): boolean => {
  const t = text.toLowerCase();
  return ws.every((w) => t.includes(w));
};

// ---------------------------------------------------------------- tags

function searchTag(ctx: HandlerContext): Promise<unknown> {
  const k = reqStr(ctx, "k");
  return ctx.kernel.flush().then(() => {
    const ws = ctx.kernel.ws;
    const labels: string[] = [];
    for (const doc of openDocs(ws)) {
      for (const t of (doc.root.attrs.tags ?? "").split(",")) if (t.trim()) labels.push(t.trim());
      walk(doc.root, (b) => {
        if (b.type === "p" || b.type === "h") labels.push(...inlineTags(b.text));
      });
    }
    const kw = words(k);
    const hits = labels.filter((l) => containsAll(l, kw)).slice(0, NAV_SEARCH_LIMIT);
    const tags = [...new Set(hits)]
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
      .map((t) =>
        kw.length === 0 ? escapeHtml(t) : markWords(escapeHtml(t), kw, "<mark>", "</mark>"),
      );
    return { tags, k };
  });
}

function markWords(html: string, kw: string[], open: string, close: string): string {
  if (kw.length === 0) return html;
  const re = new RegExp(
    kw.map((w) => escapeHtml(w).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"),
    "gi",
  );
  // only in text between tags
  return html.replace(
    /(^|>)([^<]*)/g,
    (_m, lead: string, text: string) => lead + text.replace(re, (hit) => open + hit + close),
  );
}

// ---------------------------------------------------------------- listDocTree

interface TreeNode {
  id: string;
  children?: TreeNode[];
}

function listDocTree(ctx: HandlerContext): unknown {
  const { kernel } = ctx;
  const ws = kernel.ws;
  const notebook = reqStr(ctx, "notebook");
  const path = reqStr(ctx, "path");
  if (!isValidNodeId(notebook)) throw kernelError(-1, "invalid ID argument");
  if (path.includes("..")) throw kernelError(-1, "path must not contain '..'");
  const folder = path.replace(/\.sy$/, "").replace(/\/+$/, "");
  const noSuchDir = (): never => {
    throw kernelError(
      -1,
      `open ${workspaceAbs(kernel, `/data/${notebook}${folder}`)}: no such file or directory`,
    );
  };
  if (!ws.notebooks.has(notebook)) noSuchDir();
  let parentId: string | null = null;
  if (folder !== "") {
    const doc = ws.docByPath(notebook, `${folder}.sy`);
    if (!doc) noSuchDir();
    parentId = doc!.id;
    if (ws.childDocs(notebook, parentId).length === 0) noSuchDir(); // a leaf has no folder
  }
  const build = (parent: string | null): TreeNode[] =>
    ws
      .childDocs(notebook, parent)
      .map((d) => d.id)
      .sort()
      .map((id) => {
        const kids = build(id);
        return kids.length > 0 ? { id, children: kids } : { id };
      });
  const tree = build(parentId);
  return { tree: tree.length > 0 ? tree : null };
}

// ---------------------------------------------------------------- backlinks and mentions
// After `model/backlink.go`: refs to the def (its subtree with containChildren), one per
// referencing block; a ref paragraph inside a list item / blockquote / super block is replaced by
// its container (a list item only when the paragraph is its first block or holds nothing but refs).

interface RefHit {
  doc: DocEntry;
  block: Block;
  parent: Block | null;
}

/** The IDs a ref may point at: the def, plus its subtree when containChildren. */
function defTargets(ws: Workspace, id: string, containChildren: boolean): Set<string> | null {
  const loc = ws.locate(id);
  if (!loc) return null;
  const out = new Set<string>([id]);
  if (containChildren) walk(loc.block, (b) => out.add(b.id));
  return out;
}

/** Blocks (p/h) holding a ref to one of `targets` (the def's own doc included), in ID order of docs. */
function refBlocks(ws: Workspace, targets: Set<string>): RefHit[] {
  const out: RefHit[] = [];
  for (const doc of openDocs(ws)) {
    walk(doc.root, (b, parent) => {
      if (b.type !== "p" && b.type !== "h") return;
      if (inlineRefs(b.text).some((s) => s.refId !== undefined && targets.has(s.refId))) {
        out.push({ doc, block: b, parent });
      }
    });
  }
  return out;
}

/** True when the inline text holds something besides block refs. */
const hasTextBesidesRefs = (b: Block): boolean =>
  parseInline(b.text).some((s) => !s.types.includes("block-ref") && s.text.trim() !== "");

/** `matchBacklinkKeyword`: any keyword in content, doc title, name, alias, memo or tags. */
function matchKeywords(ws: Workspace, hit: RefHit, node: Block, keywords: string[]): boolean {
  if (keywords.length === 0) return true;
  const fields = [
    plainContent(node),
    hit.doc.root.attrs.title ?? "",
    node.attrs.name ?? "",
    node.attrs.alias ?? "",
    node.attrs.memo ?? "",
    node.type === "p" || node.type === "h" ? inlineTags(node.text).join(" ") : "",
  ].map((f) => f.toLowerCase());
  void ws;
  return keywords.some((k) => fields.some((f) => f.includes(k.toLowerCase())));
}

interface LinkRefs {
  /** The blocks shown: ref blocks, or their container. */
  nodes: RefHit[];
  /** linkRefsCount. */
  count: number;
  /** IDs (blocks and their docs) a mention may not be. */
  exclude: Set<string>;
  /** Container ID → the ref block inside it. */
  origin: Map<string, string>;
  /** The plain ref blocks (their anchors feed the mention terms). */
  direct: RefHit[];
}

/** `buildLinkRefs`. */
function buildLinkRefs(ws: Workspace, refs: RefHit[], keywords: string[]): LinkRefs {
  const exclude = new Set<string>();
  for (const r of refs) {
    exclude.add(r.doc.id);
    exclude.add(r.block.id);
  }
  let count = refs.length;
  const byParent = new Map<string, RefHit>();
  let paragraphRefs = 0;
  for (const r of refs) {
    if (r.block.type === "p" && r.parent) {
      paragraphRefs++;
      byParent.set(r.parent.id, r); // the last ref paragraph of a parent wins, as the kernel's map
    }
  }
  count -= paragraphRefs - byParent.size;
  const nodes: RefHit[] = [];
  const processed = new Set<string>();
  const origin = new Map<string, string>();
  for (const [parentId, r] of byParent) {
    const parent = r.parent!;
    if (!["i", "b", "s", "callout"].includes(parent.type)) continue;
    let useParent = true;
    if (parent.type === "i" && parent.children[0] !== r.block && hasTextBesidesRefs(r.block)) {
      useParent = false;
    }
    if (useParent) processed.add(parentId);
    origin.set(parentId, r.block.id);
    const hit: RefHit = { doc: r.doc, block: parent, parent: ws.locate(parentId)?.parent ?? null };
    if (!matchKeywords(ws, hit, parent, keywords)) {
      count--;
      continue;
    }
    if (useParent) nodes.push(hit);
  }
  const direct: RefHit[] = [];
  for (const r of refs) {
    if (r.block.type === "p" && r.parent && processed.has(r.parent.id)) continue;
    if (!matchKeywords(ws, r, r.block, keywords)) {
      count--;
      continue;
    }
    nodes.push(r);
    direct.push(r);
  }
  return { nodes, count, exclude, origin, direct };
}

function pathEntry(ws: Workspace, doc: DocEntry, count: number) {
  return {
    id: doc.id,
    box: doc.box,
    name: doc.root.attrs.title ?? "",
    hPath: boxName(ws, doc.box) + ws.hpath(doc.id),
    type: "backlink",
    nodeType: "NodeDocument",
    subType: "",
    depth: 0,
    count,
    folded: false,
    updated: doc.root.attrs.updated ?? "",
    created: doc.id.slice(0, 14),
  };
}

type PathEntry = ReturnType<typeof pathEntry>;

function sortPaths(paths: PathEntry[], mode: number): PathEntry[] {
  const cmp: Record<number, (a: PathEntry, b: PathEntry) => number> = {
    0: (a, b) => a.name.localeCompare(b.name),
    1: (a, b) => b.name.localeCompare(a.name),
    2: (a, b) => a.updated.localeCompare(b.updated),
    3: (a, b) => b.updated.localeCompare(a.updated),
    4: (a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }),
    5: (a, b) => b.name.localeCompare(a.name, undefined, { numeric: true }),
    9: (a, b) => a.created.localeCompare(b.created),
    10: (a, b) => b.created.localeCompare(a.created),
  };
  return [...paths].sort(cmp[mode] ?? ((a, b) => b.id.localeCompare(a.id)));
}

/** A sort argument: a numeric string (a JSON number panics in the kernel → 0/null). */
function sortArg(ctx: HandlerContext, name: string, dflt: number): number {
  const v = ctx.body[name];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== "string") throw panicReply();
  const n = Number.parseInt(v, 10);
  return Number.isNaN(n) ? 0 : n;
}

const boolArg = (ctx: HandlerContext, name: string, dflt: boolean): boolean =>
  typeof ctx.body[name] === "boolean" ? (ctx.body[name] as boolean) : dflt;

/** Keyword list of a filter string: trimmed, split on single spaces, deduplicated. */
const splitKeywords = (s: string): string[] => {
  const t = s.trim();
  return t === "" ? [] : [...new Set(t.split(" "))];
};

/** Terms a mention search looks for: doc title and block names (doc def) or the def's name, and ref anchors. */
function mentionTerms(
  ws: Workspace,
  defId: string,
  links: LinkRefs,
  targets: Set<string>,
): string[] {
  const loc = ws.locate(defId)!;
  const terms = new Set<string>();
  if (loc.block.type === "d") {
    walk(loc.block, (b) => {
      if (b.attrs.name) terms.add(b.attrs.name);
    });
    if (loc.block.attrs.title) terms.add(loc.block.attrs.title);
  } else if (loc.block.attrs.name) terms.add(loc.block.attrs.name);
  for (const r of links.direct) {
    for (const s of inlineRefs(r.block.text)) {
      if (s.refId && targets.has(s.refId) && s.text !== s.refId) terms.add(s.text);
    }
  }
  return [...terms].map((t) => t.trim()).filter((t) => t !== "");
}

/** Text of a block as the mention check reads it: text and link text, not ref anchors. */
function mentionText(b: Block): string {
  if (b.type !== "p" && b.type !== "h") return "";
  return parseInline(b.text)
    .filter((s) => !s.types.includes("block-ref"))
    .map((s) => s.text)
    .join("")
    .trim();
}

/** `searchBackmention`: blocks of other docs naming the def, newest ID first; the terms that hit. */
function searchMentions(
  ws: Workspace,
  defId: string,
  terms: string[],
  mk: string,
  exclude: Set<string>,
): { hits: RefHit[]; hitTerms: string[] } {
  if (terms.length === 0) return { hits: [], hitTerms: [] };
  const defRoot = ws.locate(defId)!.doc.id;
  const lowTerms = terms.map((t) => t.toLowerCase());
  const mkLow = mk.trim().toLowerCase();
  const candidates: RefHit[] = [];
  for (const doc of openDocs(ws)) {
    if (doc.id === defRoot) continue;
    walk(doc.root, (b, parent) => {
      if (b.type !== "d" && b.type !== "h" && b.type !== "p") return;
      const a = b.attrs;
      const fts = [plainContent(b), a.name ?? "", a.alias ?? "", a.memo ?? ""]
        .join("\n")
        .toLowerCase();
      if (!lowTerms.some((t) => fts.includes(t))) return;
      if (mkLow !== "" && !fts.includes(mkLow)) return;
      candidates.push({ doc, block: b, parent });
    });
  }
  candidates.sort((x, y) => (x.block.id < y.block.id ? 1 : -1));
  const hits: RefHit[] = [];
  const hitTerms = new Set<string>();
  for (const c of candidates.slice(0, NAV_SEARCH_LIMIT)) {
    const text = mentionText(c.block);
    const low = text.toLowerCase();
    let hit = false;
    terms.forEach((t, i) => {
      const at = low.indexOf(lowTerms[i]!);
      if (at >= 0) {
        hit = true;
        hitTerms.add(text.slice(at, at + t.length));
      }
    });
    if (!hit) {
      const a = c.block.attrs;
      const meta = [a.name ?? "", a.alias ?? "", a.memo ?? ""].join("\n");
      hit = terms.some((t) => meta.includes(t));
    }
    if (hit && !exclude.has(c.block.id)) hits.push(c);
  }
  return { hits, hitTerms: [...hitTerms] };
}

function groupByDoc(ws: Workspace, hits: RefHit[]): PathEntry[] {
  const counts = new Map<string, { doc: DocEntry; n: number }>();
  for (const h of hits) {
    const c = counts.get(h.doc.id) ?? { doc: h.doc, n: 0 };
    c.n++;
    counts.set(h.doc.id, c);
  }
  return [...counts.values()].map((c) => pathEntry(ws, c.doc, c.n));
}

function getBacklink2(ctx: HandlerContext): unknown {
  const id = reqStr(ctx, "id");
  const k = reqStr(ctx, "k");
  const mk = reqStr(ctx, "mk");
  const sort = sortArg(ctx, "sort", 3);
  const mSort = sortArg(ctx, "mSort", 3);
  const ws = ctx.kernel.ws;
  const targets = defTargets(ws, id, boolArg(ctx, "containChildren", true));
  if (!targets) {
    return { backlinks: [], linkRefsCount: 0, backmentions: [], mentionsCount: 0, k, mk, box: "" };
  }
  const links = buildLinkRefs(ws, refBlocks(ws, targets), splitKeywords(k));
  const terms = mentionTerms(ws, id, links, targets);
  const mentions = searchMentions(ws, id, terms, mk, links.exclude).hits;
  return {
    backlinks: sortPaths(groupByDoc(ws, links.nodes), sort),
    linkRefsCount: links.count,
    backmentions: sortPaths(groupByDoc(ws, mentions), mSort),
    mentionsCount: mentions.length,
    k,
    mk,
    box: ws.locate(id)!.doc.box,
  };
}

/**
 * `buildBlockBreadcrumb`: the doc, then the ancestors and the headings each sits under, down to the
 * block itself (name ""). Lists, super blocks, blockquotes and callouts are skipped unless they are
 * the block; a paragraph that is a list item's only block is skipped even then; headings inside a
 * list item are not listed; a block's `name` attribute wins over its text.
 */
function breadcrumb(ws: Workspace, id: string, exclude: string[] = []) {
  const loc = ws.locate(id);
  if (!loc) return [];
  const doc = loc.doc;
  const entry = (b: Block, name: string) => ({
    id: b.id,
    name,
    type: LUTE_NODE_NAMES[b.type],
    subType: b.subtype,
    children: null,
  });
  const firstLeaf = (b: Block): Block => (b.children.length > 0 ? firstLeaf(b.children[0]!) : b);
  const nameOf = (b: Block): string => {
    if (b.attrs.name) return escapeHtml(b.attrs.name);
    const source = ["i", "l", "s", "b", "callout"].includes(b.type) ? firstLeaf(b) : b;
    const text =
      source.type === "p" || source.type === "h"
        ? parseInline(source.text)
            .filter((s: InlineSegment) => !s.types.some((t) => exclude.includes(t)))
            .map((s) => s.text)
            .join("")
        : plainContent(source);
    return escapeHtml([...text].slice(0, BREADCRUMB_NAME_MAX_CHARS).join(""));
  };
  // the block asked for is the last entry, named "": for a document, the only one
  if (loc.block.type === "d") return [entry(doc.root, "")];
  const out = [entry(doc.root, boxName(ws, doc.box) + ws.hpath(doc.id))];
  // the chain of nodes from the doc's child down to the block
  const chain: Block[] = [];
  const find = (node: Block): boolean => {
    if (node === loc.block) return true;
    for (const c of node.children) {
      chain.push(c);
      if (find(c)) return true;
      chain.pop();
    }
    return false;
  };
  find(doc.root);
  let container = doc.root;
  let insideItem = false;
  for (const node of chain) {
    // headings in this container that `node` sits under (a super block counts by its last heading)
    const stack: Block[] = [];
    for (const sib of container.children) {
      if (sib === node) break;
      const s =
        sib.type === "s" ? ([...sib.children].reverse().find((c) => c.type === "h") ?? sib) : sib;
      if (s.type === "h") {
        while (stack.length > 0 && headingLevel(stack[stack.length - 1]!) >= headingLevel(s))
          stack.pop();
        stack.push(s);
      }
    }
    const level = node.type === "h" ? headingLevel(node) : 7;
    if (!insideItem) {
      for (const h of stack) if (headingLevel(h) < level) out.push(entry(h, nameOf(h)));
    }
    const onlyBlockOfItem =
      node.type === "p" && container.type === "i" && container.children.length === 1;
    const skipped = ["l", "s", "b", "callout"].includes(node.type) && node !== loc.block;
    if (!skipped && !onlyBlockOfItem) out.push(entry(node, node === loc.block ? "" : nameOf(node)));
    if (node.type === "i") insideItem = true;
    container = node;
  }
  return out;
}

/** `buildBacklink`: the DOM, breadcrumb and expand state of one shown block. */
function backlinkItem(
  ws: Workspace,
  node: Block,
  origin: Map<string, string>,
  marks: string[],
  highlight: boolean,
) {
  const loc = ws.locate(node.id)!;
  let expand = true;
  let dom: string;
  if (node.type === "i") {
    if (node.children.length > 1) {
      const ref = node.children.find((c) => c.id === origin.get(node.id));
      if (ref && hasTextBesidesRefs(ref)) expand = false;
    }
    dom = renderDom(node, undefined, loc.parent?.subtype ?? node.subtype);
  } else if (node.type === "h") {
    if (hasTextBesidesRefs(node)) expand = false;
    const under = loc.parent ? ws.headingChildren(node, loc.parent) : [];
    dom = [node, ...under].map((b) => renderDom(b)).join("");
  } else dom = renderDom(node);
  if (highlight && marks.length > 0) {
    dom = markWords(dom, marks, '<span data-type="search-mark">', "</span>");
  }
  const crumbs = breadcrumb(ws, node.id);
  const underHeading = node.type !== "h" && crumbs.some((c) => c.type === "NodeHeading");
  let blockPaths = (loc.parent?.type ?? "d") !== "d" || underHeading ? crumbs : [];
  if (blockPaths.length === 2) blockPaths = []; // "only one level under the root: not shown"
  return { dom, blockPaths, expand };
}

/** Blocks in document order. */
function docOrder(doc: DocEntry): Map<string, number> {
  const order = new Map<string, number>();
  walk(doc.root, (b) => order.set(b.id, order.size));
  return order;
}

function getBacklinkDoc(ctx: HandlerContext, mentions: boolean): unknown {
  const defID = reqStr(ctx, "defID");
  const refTreeID = reqStr(ctx, "refTreeID");
  const keyword = reqStr(ctx, "keyword");
  const ws = ctx.kernel.ws;
  let keywords = splitKeywords(keyword);
  const key = mentions ? "backmentions" : "backlinks";
  const targets = defTargets(ws, defID, boolArg(ctx, "containChildren", true));
  const highlight = boolArg(ctx, "highlight", true);
  if (!targets) return { [key]: [], keywords };
  const tree = ws.docOf(refTreeID);
  let shown: Block[];
  let origin: Map<string, string>;
  let marks: string[];
  if (mentions) {
    const links = buildLinkRefs(ws, refBlocks(ws, targets), keywords);
    const terms = mentionTerms(ws, defID, links, targets);
    const found = searchMentions(ws, defID, terms, keyword, links.exclude);
    shown = found.hits.filter((h) => h.doc.id === refTreeID).map((h) => h.block);
    origin = links.origin;
    marks = found.hitTerms;
    keywords = [...new Set([...keywords, ...found.hitTerms])];
  } else {
    const inTree = refBlocks(ws, targets).filter((r) => r.doc.id === refTreeID);
    const links = buildLinkRefs(ws, inTree, keywords);
    shown = links.nodes.map((n) => n.block);
    origin = links.origin;
    marks = keywords;
  }
  if (!tree) return { [key]: [], keywords };
  const order = docOrder(tree);
  const items = shown
    .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0))
    .map((b) => backlinkItem(ws, b, origin, marks, highlight));
  return { [key]: items, keywords };
}

// ---------------------------------------------------------------- outline

/** A heading's outline name: its inline DOM (marks kept), spaces in its text as `&nbsp;`. */
function outlineName(h: Block): string {
  return inlineDom(h.text, (text) => escapeHtml(text).replace(/ /g, "&nbsp;"));
}

interface OutlineNode {
  h: Block;
  kids: OutlineNode[];
}

async function getDocOutline(ctx: HandlerContext): Promise<unknown> {
  const id = reqId(ctx);
  await ctx.kernel.flush();
  const ws = ctx.kernel.ws;
  const loc = ws.locate(id);
  if (!loc) return [];
  const doc = loc.doc;
  const heads: Block[] = [];
  const visit = (b: Block): void => {
    for (const c of b.children) {
      if (c.type === "b" || (c.type as string) === "callout") continue;
      if (c.type === "h") heads.push(c);
      visit(c);
    }
  };
  visit(doc.root);
  if (heads.length === 0) return null;
  const roots: OutlineNode[] = [];
  const stack: OutlineNode[] = [];
  for (const h of heads) {
    const node: OutlineNode = { h, kids: [] };
    while (stack.length > 0 && headingLevel(stack[stack.length - 1]!.h) >= headingLevel(h))
      stack.pop();
    if (stack.length === 0) roots.push(node);
    else stack[stack.length - 1]!.kids.push(node);
    stack.push(node);
  }
  const path = ws.docPath(doc.id);
  const block = (n: OutlineNode, depth: number): Record<string, unknown> => ({
    ...zeroBlockJson(n.h.id),
    box: doc.box,
    path,
    rootID: doc.id,
    content: outlineName(n.h),
    type: "NodeHeading",
    subType: n.h.subtype,
    children: n.kids.length > 0 ? n.kids.map((k) => block(k, depth + 1)) : null,
    depth,
    count: n.kids.length,
  });
  return roots.map((n) => ({
    id: n.h.id,
    box: doc.box,
    name: outlineName(n.h),
    hPath: "",
    type: "outline",
    nodeType: "NodeHeading",
    subType: n.h.subtype,
    ...(n.kids.length > 0 ? { blocks: n.kids.map((k) => block(k, 1)) } : {}),
    depth: 0,
    count: n.kids.length,
    folded: false,
    updated: "",
    created: "",
  }));
}

function getBlockBreadcrumb(ctx: HandlerContext): unknown {
  const id = reqStr(ctx, "id");
  const ex = Array.isArray(ctx.body.excludeTypes)
    ? (ctx.body.excludeTypes as unknown[]).filter((x): x is string => typeof x === "string")
    : [];
  return breadcrumb(ctx.kernel.ws, id, ex);
}

// ---------------------------------------------------------------- recent documents

interface RecentDoc {
  rootID: string;
  icon?: string;
  title?: string;
  viewedAt?: number;
  openAt?: number;
  closedAt?: number;
}

function readRecent(kernel: Kernel): RecentDoc[] {
  if (kernel.files.kind(RECENT_DOC_FILE) !== "file") return [];
  try {
    const v = JSON.parse(kernel.files.read(RECENT_DOC_FILE).toString("utf8")) as unknown;
    return Array.isArray(v) ? (v as RecentDoc[]).filter((x) => typeof x?.rootID === "string") : [];
  } catch {
    return [];
  }
}

function writeRecent(kernel: Kernel, docs: RecentDoc[]): void {
  kernel.files.write(RECENT_DOC_FILE, Buffer.from(JSON.stringify(docs)), kernel.ids.clock.now());
}

function compact(d: RecentDoc): RecentDoc {
  const out: RecentDoc = { rootID: d.rootID };
  if (d.icon) out.icon = d.icon;
  if (d.title) out.title = d.title;
  if (d.viewedAt) out.viewedAt = d.viewedAt;
  if (d.openAt) out.openAt = d.openAt;
  if (d.closedAt) out.closedAt = d.closedAt;
  return out;
}

function getRecentDocs(ctx: HandlerContext): unknown {
  const { kernel } = ctx;
  const ws = kernel.ws;
  const sortBy = typeof ctx.body.sortBy === "string" ? ctx.body.sortBy : "viewedAt";
  if (sortBy === "updated") {
    return openDocs(ws)
      .sort((a, b) => (b.root.attrs.updated ?? "").localeCompare(a.root.attrs.updated ?? ""))
      .slice(0, RECENT_DOCS_MAX_LIST_COUNT)
      .map((d) =>
        compact({ rootID: d.id, icon: d.root.attrs.icon ?? "", title: d.root.attrs.title ?? "" }),
      );
  }
  const stored = readRecent(kernel);
  const kept: RecentDoc[] = [];
  for (const e of stored) {
    const doc = ws.docOf(e.rootID);
    if (!doc) continue;
    kept.push({ ...e, title: doc.root.attrs.title ?? "", icon: doc.root.attrs.icon ?? "" });
  }
  if (kept.length !== stored.length) writeRecent(kernel, kept);
  const field =
    (["viewedAt", "openAt", "closedAt"] as const).find((f) => f === sortBy) ?? "viewedAt";
  return kept
    .filter((e) => (e[field] ?? 0) > 0)
    .sort((a, b) => (b[field] ?? 0) - (a[field] ?? 0))
    .map(compact);
}

function touchRecent(field: "viewedAt" | "openAt" | "closedAt", batch: boolean) {
  return (ctx: HandlerContext): unknown => {
    const { kernel } = ctx;
    let ids: string[];
    if (batch) {
      const v = ctx.body.rootIDs;
      if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) throw panicReply();
      ids = v as string[];
    } else ids = [reqStr(ctx, "rootID")];
    const now = Math.floor(kernel.ids.clock.now() / 1000);
    const docs = readRecent(kernel);
    for (const id of ids) {
      const doc = kernel.ws.docOf(id);
      let e = docs.find((d) => d.rootID === id);
      if (!e) {
        if (!doc) continue;
        e = { rootID: id };
        docs.unshift(e);
      }
      e[field] = now;
      if (doc) {
        e.title = doc.root.attrs.title ?? "";
        e.icon = doc.root.attrs.icon ?? "";
      }
    }
    writeRecent(kernel, docs);
    return null;
  };
}

// ---------------------------------------------------------------- daily notes

const pad = (n: number): string => String(n).padStart(2, "0");

/** Renders the `{{now | date "<Go layout>"}}` actions of a daily-note save path. */
export function renderDailyNotePath(template: string, nowMs: number, utc: boolean): string {
  const [y, mo, da, h, mi, s] = dateParts(nowMs, utc);
  const tokens: Record<string, string> = {
    "2006": String(y),
    "01": pad(mo),
    "02": pad(da),
    "15": pad(h),
    "04": pad(mi),
    "05": pad(s),
  };
  return template.replace(/\{\{\s*now\s*\|\s*date\s+"([^"]*)"\s*\}\}/g, (_m, layout: string) =>
    layout.replace(/2006|01|02|15|04|05/g, (t) => tokens[t] ?? t),
  );
}

/** Finds or creates today's daily note; returns its doc ID. Throws the kernel's errors. */
function dailyNote(kernel: Kernel, notebook: string): string {
  const ws = kernel.ws;
  const box = ws.notebooks.get(notebook);
  if (!box || box.conf.closed) throw kernelError(1, "notebook not found");
  const save = box.conf.dailyNoteSavePath.trim();
  if (save === "" || save === "/") {
    throw kernelError(-1, "Please specify the daily note save path in the Notebook Settings");
  }
  const now = kernel.ids.clock.now();
  const hpath = `/${renderDailyNotePath(save, now, kernel.ids.utc).replace(/^\/+/, "")}`;
  const ymd = renderDailyNotePath('{{now | date "20060102"}}', now, kernel.ids.utc);
  const attr = `custom-dailynote-${ymd}`;
  const found = ws.docsByHPath(notebook, hpath)[0];
  if (found) {
    if (!found.root.attrs[attr]) ws.setAttrs(found.id, { [attr]: ymd });
    return found.id;
  }
  const doc = ws.createDocWithMd(notebook, hpath, "");
  ws.setAttrs(doc.id, { [attr]: ymd });
  return doc.id;
}

function createDailyNote(ctx: HandlerContext): unknown {
  const notebook = reqStr(ctx, "notebook");
  return { id: dailyNote(ctx.kernel, notebook) };
}

function dailyNoteBlock(where: "appendBlock" | "prependBlock") {
  return async (ctx: HandlerContext): Promise<unknown> => {
    const notebook = reqStr(ctx, "notebook");
    reqStr(ctx, "dataType");
    reqStr(ctx, "data");
    let id: string;
    try {
      id = dailyNote(ctx.kernel, notebook);
    } catch (e) {
      throw kernelError(
        -1,
        `create daily note failed: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    const route = blockRoutes[`/api/block/${where}`]!;
    return route.handler({
      ...ctx,
      body: { dataType: ctx.body.dataType, data: ctx.body.data, parentID: id },
    });
  };
}

// ---------------------------------------------------------------- UI reload

/** reloadProtyle: refresh dynamic anchor texts of refs to blocks of the doc (may rewrite other docs). */
function reloadProtyle(ctx: HandlerContext): unknown {
  const id = reqStr(ctx, "id");
  const ws = ctx.kernel.ws;
  const doc = ws.docOf(id) ?? ws.locate(id)?.doc;
  if (!doc) return null;
  const defs = new Map<string, string>();
  walk(doc.root, (b) => {
    const text = b.type === "d" ? (b.attrs.title ?? "") : plainContent(b);
    defs.set(b.id, [...text].slice(0, DYNAMIC_ANCHOR_MAX_CHARS).join(""));
  });
  const pattern = /\(\((\d{14}-[a-z0-9]{7})\s+'([^']*)'\)\)/g;
  for (const other of [...ws.docs.values()]) {
    let touched = false;
    walk(other.root, (b) => {
      if (b.type !== "p" && b.type !== "h") return;
      const next = b.text.replace(pattern, (m, ref: string) => {
        const fresh = defs.get(ref);
        return fresh === undefined ? m : `((${ref} '${fresh.replace(/'/g, "&apos;")}'))`;
      });
      if (next !== b.text) {
        b.text = next;
        touched = true;
      }
    });
    if (touched) ws.touchDoc(other.id);
  }
  return null;
}

const nothing = (): unknown => null;

/** Routes of this module. */
export const navRoutes: Record<string, Route> = {
  "/api/search/searchTag": r(searchTag),
  "/api/filetree/listDocTree": r(listDocTree),
  "/api/ref/getBacklink2": r(getBacklink2),
  "/api/ref/getBacklink": r(async (ctx) => {
    await new Promise((res) => setTimeout(res, 200 + Math.floor(Math.random() * 300)));
    return getBacklink2(ctx);
  }),
  "/api/ref/getBacklinkDoc": r((ctx) => getBacklinkDoc(ctx, false)),
  "/api/ref/getBackmentionDoc": r((ctx) => getBacklinkDoc(ctx, true)),
  "/api/outline/getDocOutline": r(getDocOutline),
  "/api/block/getBlockBreadcrumb": r(getBlockBreadcrumb),
  "/api/storage/getRecentDocs": r(getRecentDocs, "tolerant"),
  "/api/storage/updateRecentDocOpenTime": r(touchRecent("openAt", false), "json", true),
  "/api/storage/updateRecentDocViewTime": r(touchRecent("viewedAt", false), "json", true),
  "/api/storage/updateRecentDocCloseTime": r(touchRecent("closedAt", false), "json", true),
  "/api/storage/batchUpdateRecentDocCloseTime": r(touchRecent("closedAt", true), "json", true),
  "/api/filetree/createDailyNote": r(createDailyNote, "json", true),
  "/api/block/appendDailyNoteBlock": r(dailyNoteBlock("appendBlock"), "json", true),
  "/api/block/prependDailyNoteBlock": r(dailyNoteBlock("prependBlock"), "json", true),
  "/api/ui/reloadProtyle": r(reloadProtyle, "json", true),
  "/api/ui/reloadFiletree": r(nothing, "tolerant"),
  "/api/ui/reloadTag": r(nothing, "tolerant"),
  "/api/ui/reloadUI": r(nothing, "tolerant"),
  "/api/ui/reloadIcon": r(nothing, "tolerant"),
  "/api/ui/reloadTheme": r(nothing, "tolerant"),
  "/api/system/reloadUI": r(() => {
    throw kernelError(
      -1,
      "[/api/system/reloadUI] is deprecated, visit [https://github.com/siyuan-note/siyuan/issues/15727] for details",
    );
  }, "tolerant"),
};

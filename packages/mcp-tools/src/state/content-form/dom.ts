/** Protyle block DOM to the same form blocks as Markdown. */
import { finishRuns, type MutableRun } from "./inline-markdown.js";
import { cleanAttrs, decodeEntities, normalizeText } from "./text.js";
import type { FormBlock, InlineRun } from "./types.js";

interface El {
  tag: string;
  attrs: Record<string, string>;
  children: Array<El | string>;
}

const VOID = new Set(["br", "img", "hr", "input", "wbr", "meta", "link"]);

function parseHtml(html: string): El {
  const root: El = { tag: "#root", attrs: {}, children: [] };
  const stack: El[] = [root];
  const re =
    /<!--[\s\S]*?-->|<\/([a-zA-Z][\w-]*)\s*>|<([a-zA-Z][\w-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*(\/?)>|([^<]+|<)/g;
  for (const m of html.matchAll(re)) {
    const top = stack.at(-1) as El;
    if (m[1]) {
      const name = m[1].toLowerCase();
      const idx = stack.map((e) => e.tag).lastIndexOf(name);
      if (idx > 0) stack.length = idx;
    } else if (m[2]) {
      const el: El = { tag: m[2].toLowerCase(), attrs: {}, children: [] };
      for (const a of (m[3] ?? "").matchAll(
        /([^\s=>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g,
      )) {
        el.attrs[(a[1] as string).toLowerCase()] = decodeEntities(a[2] ?? a[3] ?? a[4] ?? "");
      }
      top.children.push(el);
      if (!m[4] && !VOID.has(el.tag)) stack.push(el);
    } else if (m[5] !== undefined) {
      top.children.push(decodeEntities(m[5]));
    }
  }
  return root;
}

/** DOM attributes that are rendering, not IAL. */
const DOM_RENDER_ATTRIBUTES: ReadonlySet<string> = new Set([
  "data-node-id",
  "data-node-index",
  "data-type",
  "class",
  "data-subtype",
  "data-marker",
  "data-task",
  "contenteditable",
  "spellcheck",
  "data-content",
  "draggable",
  "data-sb-layout",
]);

const DOM_MARKS: Readonly<Record<string, string>> = {
  strong: "strong",
  b: "strong",
  em: "em",
  i: "em",
  s: "s",
  del: "s",
  mark: "mark",
  code: "code",
  tag: "tag",
  u: "u",
  kbd: "kbd",
  sup: "sup",
  sub: "sub",
  a: "a",
  "block-ref": "ref",
  "inline-math": "math",
  img: "img",
};

const elems = (el: El): El[] => el.children.filter((c): c is El => typeof c !== "string");
const isBlockEl = (el: El) =>
  (el.attrs["data-type"] ?? "").startsWith("Node") || el.attrs["data-node-id"] !== undefined;
const editableOf = (el: El): El | undefined =>
  elems(el).find((c) => c.attrs["contenteditable"] === "true");
const textOf = (el: El): string =>
  el.children.map((c) => (typeof c === "string" ? c : c.tag === "br" ? "\n" : textOf(c))).join("");

function inlineOfDom(
  nodes: ReadonlyArray<El | string>,
  marks: readonly string[],
  out: MutableRun[],
) {
  for (const n of nodes) {
    if (typeof n === "string") {
      out.push({ text: n, marks: [...marks] });
      continue;
    }
    if (n.tag === "br") {
      out.push({ text: "\n", marks: [...marks] });
      continue;
    }
    if (n.attrs["contenteditable"] === "false" && n.attrs["data-type"] === undefined) continue;
    const types = (n.attrs["data-type"] ?? "").split(/\s+/).filter(Boolean);
    const tagMark = DOM_MARKS[n.tag];
    const own = types.length > 0 ? types.map((t) => DOM_MARKS[t] ?? t) : tagMark ? [tagMark] : [];
    const next = [...marks, ...own.filter((t) => t !== "text")];
    if (own.includes("ref")) {
      const sub = n.attrs["data-subtype"] === "d" ? "d" : "s";
      out.push({
        text: sub === "d" ? "" : textOf(n),
        marks: next,
        target: `${n.attrs["data-id"] ?? ""} ${sub}`,
      });
    } else if (own.includes("math")) {
      out.push({ text: n.attrs["data-content"] ?? "", marks: next });
    } else if (own.includes("img")) {
      out.push({ text: n.attrs["alt"] ?? "", marks: next, target: n.attrs["src"] ?? "" });
    } else if (own.includes("a")) {
      const href = n.attrs["data-href"] ?? n.attrs["href"] ?? "";
      const inner: MutableRun[] = [];
      inlineOfDom(n.children, next, inner);
      for (const r of inner) out.push({ ...r, target: href });
      if (inner.length === 0) out.push({ text: "", marks: next, target: href });
    } else if (own.includes("code") || own.includes("tag")) {
      out.push({ text: textOf(n), marks: next });
    } else {
      inlineOfDom(n.children, next, out);
    }
  }
}

function inlineFormOfDom(nodes: ReadonlyArray<El | string>): InlineRun[] {
  const runs: MutableRun[] = [];
  inlineOfDom(nodes, [], runs);
  // text is compared line by line, trimmed, as the Markdown side is
  const joined: MutableRun[] = runs.map((r) => ({ ...r, text: r.text.replace(/\u200b/g, "") }));
  return finishRuns(joined).map((r) =>
    r.marks.includes("code") || r.marks.includes("math")
      ? r
      : { ...r, text: r.text.replace(/[ \t]*\n[ \t]*/g, "\n") },
  );
}

function blockOfDom(el: El): FormBlock[] {
  const type = el.attrs["data-type"] ?? "";
  const attrs: Record<string, string> = {};
  for (const [k, v] of Object.entries(el.attrs)) if (!DOM_RENDER_ATTRIBUTES.has(k)) attrs[k] = v;
  const id = el.attrs["data-node-id"];
  const base = { attrs: cleanAttrs(attrs), ...(id ? { id } : {}) };
  const ed = editableOf(el);
  const kids = () => elems(el).filter(isBlockEl).flatMap(blockOfDom);
  switch (type) {
    case "NodeDocument":
      return kids();
    case "NodeParagraph":
      return [{ type: "p", ...base, inline: inlineFormOfDom(ed?.children ?? []) }];
    case "NodeHeading": {
      const level = Number((el.attrs["data-subtype"] ?? el.attrs["class"] ?? "h1").slice(1)) || 1;
      return [{ type: "h", level, ...base, inline: inlineFormOfDom(ed?.children ?? []) }];
    }
    case "NodeList": {
      const sub = el.attrs["data-subtype"];
      const list = sub === "o" || sub === "t" ? sub : "u";
      return [{ type: "list", list, ...base, children: kids() }];
    }
    case "NodeListItem": {
      const task = el.attrs["data-subtype"] === "t";
      const checked = (el.attrs["class"] ?? "").split(/\s+/).includes("protyle-task--done");
      return [{ type: "li", ...base, ...(task ? { checked } : {}), children: kids() }];
    }
    case "NodeCodeBlock": {
      const langEl = elems(elems(el)[0] ?? el).find((c) =>
        (c.attrs["class"] ?? "").includes("protyle-action__language"),
      );
      const text = (ed ? textOf(ed) : "").replace(/\s+$/, "");
      return [{ type: "code", ...base, lang: langEl ? textOf(langEl).trim() : "", text }];
    }
    case "NodeMathBlock":
      return [{ type: "math", ...base, text: normalizeText(el.attrs["data-content"] ?? "") }];
    case "NodeThematicBreak":
      return [{ type: "hr", ...base }];
    case "NodeBlockquote":
      return [{ type: "quote", ...base, children: kids() }];
    case "NodeSuperBlock":
      return [{ type: "super", ...base, children: kids() }];
    case "NodeHTMLBlock": {
      const html = elems(el)
        .flatMap(elems)
        .find((c) => c.tag === "protyle-html");
      return [{ type: "html", ...base, text: normalizeText(html?.attrs["data-content"] ?? "") }];
    }
    case "NodeBlockQueryEmbed":
      return [{ type: "embed", ...base, text: normalizeText(el.attrs["data-content"] ?? "") }];
    default:
      return [{ type, ...base, text: normalizeText(textOf(ed ?? el)) }];
  }
}

/** Parses protyle block DOM into its content form; inline HTML alone is one paragraph. */
export function formOfDom(dom: string): FormBlock[] {
  const root = parseHtml(dom);
  const blocks = elems(root).filter(isBlockEl);
  if (blocks.length === 0)
    return [{ type: "p", attrs: {}, inline: inlineFormOfDom(root.children) }];
  return blocks.flatMap(blockOfDom);
}

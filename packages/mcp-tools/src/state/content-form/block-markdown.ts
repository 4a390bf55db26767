/** Block Markdown to form blocks: paragraphs, headings, lists, quotes, fences, tables, super blocks, IALs. */
import { parseIalLine } from "../attributes.js";
import { inlineOfMarkdown } from "./inline-markdown.js";
import { cleanAttrs, normalizeText } from "./text.js";
import type { FormBlock } from "./types.js";

const FENCE = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const HR = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?/;
const LIST_ITEM = /^( {0,3})([*+-]|\d{1,9}[.)])([ \t]+|$)(.*)$/;
const SUPER_OPEN = /^ {0,3}\{\{\{(row|col)\s*$/;
const SUPER_CLOSE = /^ {0,3}\}\}\}\s*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const HTML_BLOCK =
  /^ {0,3}<(?:div|iframe|video|audio|details|table|pre|section|p|!--|script|style|center)[\s>/]/i;
const EMBED = /^ {0,3}\{\{(?!\{).*\}\}\s*$/;
const IAL_PREFIX = /^\{:((?:\s+[A-Za-z_][\w-]*="[^"]*")*)\s*\}/;

interface Node {
  type: string;
  attrs: Record<string, string>;
  hasIal: boolean;
  level?: number;
  list?: "u" | "o" | "t";
  checked?: boolean;
  text?: string;
  lang?: string;
  lines?: string[];
  children?: Node[];
}

const isBlank = (l: string) => l.trim() === "";
const indentOf = (l: string) => {
  let n = 0;
  for (const ch of l) {
    if (ch === " ") n++;
    else if (ch === "\t") n += 4;
    else break;
  }
  return n;
};
const isIalLine = (l: string) => parseIalLine(l) !== undefined;

/** True when a line ends a paragraph (CommonMark's interruption rules, plus IAL lines). */
function interruptsParagraph(line: string): boolean {
  if (isIalLine(line) || FENCE.test(line) || ATX.test(line) || HR.test(line)) return true;
  if (QUOTE.test(line) || line.trim() === "$$" || SUPER_OPEN.test(line) || SUPER_CLOSE.test(line))
    return true;
  const li = LIST_ITEM.exec(line);
  if (li && (li[1] as string).length <= 3 && (li[4] ?? "").trim() !== "") {
    const marker = li[2] as string;
    return !/\d/.test(marker) || /^1[.)]$/.test(marker);
  }
  return false;
}

function node(type: string, init: Partial<Node> = {}): Node {
  return { type, attrs: {}, hasIal: false, ...init };
}

function parseLines(lines: readonly string[]): {
  blocks: Node[];
  trailing: Record<string, string> | null;
} {
  const blocks: Node[] = [];
  let trailing: Record<string, string> | null = null;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (isBlank(line)) {
      i++;
      continue;
    }
    const ial = parseIalLine(line);
    if (ial) {
      const last = blocks.at(-1);
      let isLastLine = true;
      for (let j = i + 1; j < lines.length; j++)
        if (!isBlank(lines[j] as string)) isLastLine = false;
      if (last && !last.hasIal) {
        last.attrs = { ...last.attrs, ...ial };
        last.hasIal = true;
      } else if (isLastLine && (blocks.length > 0 || ial["type"] === "doc")) {
        // an IAL after the last block's own IAL belongs to the container (a document's IAL)
        trailing = { ...(trailing ?? {}), ...ial };
      } else {
        // the kernel writes an empty paragraph as its IAL alone
        blocks.push(node("p", { attrs: ial, hasIal: true, lines: [] }));
      }
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const indent = (fence[1] as string).length;
      const marker = fence[2] as string;
      const body: string[] = [];
      i++;
      while (i < lines.length) {
        const l = lines[i] as string;
        const t = l.trim();
        if (t.startsWith(marker) && new RegExp(`^\\${marker[0]}+$`).test(t)) {
          i++;
          break;
        }
        body.push(l.slice(Math.min(indent, indentOf(l))));
        i++;
      }
      blocks.push(node("code", { text: body.join("\n"), lang: fence[3] ?? "" }));
      continue;
    }
    if (line.trim() === "$$") {
      const body: string[] = [];
      i++;
      while (i < lines.length && (lines[i] as string).trim() !== "$$")
        body.push(lines[i++] as string);
      i++;
      blocks.push(node("math", { text: body.join("\n") }));
      continue;
    }
    if (SUPER_OPEN.test(line)) {
      const body: string[] = [];
      let depth = 1;
      i++;
      while (i < lines.length) {
        const l = lines[i] as string;
        if (SUPER_OPEN.test(l)) depth++;
        else if (SUPER_CLOSE.test(l) && --depth === 0) break;
        body.push(l);
        i++;
      }
      i++;
      const inner = parseLines(body);
      blocks.push(node("super", { children: inner.blocks, attrs: inner.trailing ?? {} }));
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      blocks.push(node("h", { level: (atx[1] as string).length, lines: [atx[2] ?? ""] }));
      i++;
      continue;
    }
    if (HR.test(line)) {
      blocks.push(node("hr"));
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length) {
        const l = lines[i] as string;
        if (QUOTE.test(l)) body.push(l.replace(QUOTE, ""));
        else if (
          !isBlank(l) &&
          !interruptsParagraph(l) &&
          !LIST_ITEM.test(l) &&
          !isBlank(body.at(-1) ?? "")
        )
          body.push(l); // lazy continuation of the quoted paragraph
        else break;
        i++;
      }
      const inner = parseLines(body);
      blocks.push(node("quote", { children: inner.blocks, attrs: inner.trailing ?? {} }));
      continue;
    }
    if (LIST_ITEM.test(line)) {
      const r = parseList(lines, i);
      blocks.push(r.list);
      i = r.next;
      continue;
    }
    if (EMBED.test(line)) {
      blocks.push(node("embed", { text: line.trim() }));
      i++;
      continue;
    }
    if (HTML_BLOCK.test(line)) {
      const body: string[] = [];
      while (i < lines.length && !isBlank(lines[i] as string) && !isIalLine(lines[i] as string))
        body.push(lines[i++] as string);
      blocks.push(node("html", { text: body.join("\n") }));
      continue;
    }
    if (line.trimStart().startsWith("|")) {
      const body: string[] = [];
      while (i < lines.length && !isBlank(lines[i] as string) && !isIalLine(lines[i] as string))
        body.push(lines[i++] as string);
      blocks.push(node("table", { text: tableText(body) }));
      continue;
    }
    const para: string[] = [line];
    i++;
    let setext: number | undefined;
    while (i < lines.length) {
      const l = lines[i] as string;
      if (isBlank(l)) break;
      const underline = SETEXT.exec(l);
      if (underline) {
        setext = (underline[1] as string).startsWith("=") ? 1 : 2;
        i++;
        break;
      }
      if (interruptsParagraph(l)) break;
      para.push(l);
      i++;
    }
    blocks.push(setext ? node("h", { level: setext, lines: para }) : node("p", { lines: para }));
  }
  return { blocks, trailing };
}

/** A table's rows as `a|b` lines: cells trimmed, the delimiter row dropped. */
function tableText(rows: readonly string[]): string {
  return rows
    .map((r) =>
      r
        .trim()
        .replace(/^\|/, "")
        .replace(/\|$/, "")
        .split("|")
        .map((c) => c.trim()),
    )
    .filter((cells) => !cells.every((c) => /^:?-+:?$/.test(c)))
    .map((cells) => cells.join("|"))
    .join("\n");
}

function parseList(lines: readonly string[], start: number): { list: Node; next: number } {
  const first = LIST_ITEM.exec(lines[start] as string) as RegExpExecArray;
  const indent = (first[1] as string).length;
  const firstMarker = first[2] as string;
  const ordered = /\d/.test(firstMarker);
  const bullet = ordered ? "" : firstMarker;
  const delimiter = ordered ? firstMarker.slice(-1) : "";
  const items: Node[] = [];
  let i = start;
  while (i < lines.length) {
    const itemStart = i;
    const m = LIST_ITEM.exec(lines[i] as string);
    if (!m || (m[1] as string).length !== indent) break;
    const marker = m[2] as string;
    if (/\d/.test(marker) !== ordered) break;
    if (!ordered && marker !== bullet) break;
    if (ordered && marker.slice(-1) !== delimiter) break;
    const gap = (m[3] as string).length;
    const offset = indent + marker.length + (gap >= 1 && gap <= 4 ? gap : 1);
    let rest = m[4] ?? "";
    const item = node("li");
    for (let k = 0; k < 2; k++) {
      const ialM = IAL_PREFIX.exec(rest);
      if (ialM) {
        item.attrs = { ...item.attrs, ...(parseIalLine(ialM[0]) ?? {}) };
        item.hasIal = true;
        rest = rest.slice(ialM[0].length).replace(/^[ \t]/, "");
      }
      const taskM = /^\[([ xX])\](?:[ \t]+|$)/.exec(rest);
      if (taskM && item.checked === undefined) {
        item.checked = taskM[1] !== " ";
        rest = rest.slice(taskM[0].length);
      }
    }
    const itemLines: string[] = rest === "" ? [] : [rest];
    i++;
    while (i < lines.length) {
      const l = lines[i] as string;
      if (isBlank(l)) {
        let j = i + 1;
        while (j < lines.length && isBlank(lines[j] as string)) j++;
        if (j < lines.length && indentOf(lines[j] as string) >= offset) {
          for (; i < j; i++) itemLines.push("");
          continue;
        }
        break;
      }
      if (indentOf(l) >= offset) {
        itemLines.push(l.slice(Math.min(offset, l.length - l.trimStart().length)));
        i++;
        continue;
      }
      const prev = itemLines.at(-1);
      const lazy = !interruptsParagraph(l) && !LIST_ITEM.test(l);
      if (prev !== undefined && !isBlank(prev) && !isIalLine(prev) && lazy) {
        itemLines.push(l.trim()); // lazy continuation of the item's paragraph
        i++;
        continue;
      }
      break;
    }
    // Lute starts a new list where items change from task to plain or back (kernel-probes
    // render.task-then-plain)
    const first = items[0];
    if (first !== undefined && (first.checked === undefined) !== (item.checked === undefined)) {
      i = itemStart;
      break;
    }
    const inner = parseLines(itemLines);
    item.children = inner.blocks;
    if (inner.trailing) item.attrs = { ...inner.trailing, ...item.attrs };
    items.push(item);
    let j = i;
    while (j < lines.length && isBlank(lines[j] as string)) j++;
    const nm = j < lines.length ? LIST_ITEM.exec(lines[j] as string) : null;
    if (j > i && nm && (nm[1] as string).length === indent) i = j;
  }
  const kind = items[0]?.checked !== undefined ? "t" : ordered ? "o" : "u";
  return { list: node("list", { list: kind, children: items }), next: i };
}

function freeze(n: Node): FormBlock {
  const id = n.attrs["id"];
  const out: {
    -readonly [K in keyof FormBlock]: FormBlock[K];
  } = { type: n.type, attrs: cleanAttrs(n.attrs) };
  if (id !== undefined) out.id = id;
  if (n.level !== undefined) out.level = n.level;
  if (n.list !== undefined) out.list = n.list;
  if (n.checked !== undefined) out.checked = n.checked;
  if (n.lang !== undefined) out.lang = n.lang.trim();
  if (n.text !== undefined)
    out.text = n.type === "code" ? n.text.replace(/\s+$/, "") : normalizeText(n.text);
  if (n.lines !== undefined) {
    const { inline, spans } = inlineOfMarkdown(n.lines.join("\n"));
    out.inline = inline;
    if (spans.length > 0) out.spans = spans;
  }
  if (n.children !== undefined) out.children = n.children.map(freeze);
  return out;
}

/**
 * Parses Markdown/Kramdown into its content form (top-level blocks). IAL lines set the attributes
 * of the block before them; an IAL after the last block's own IAL (a document's) is dropped.
 */
export function formOfMarkdown(markdown: string): FormBlock[] {
  return parseLines(markdown.replace(/\r\n?/g, "\n").split("\n")).blocks.map(freeze);
}

/**
 * A small Markdown/kramdown → block parser (the subset the demo seed and tests use), with
 * IAL lines `{: k="v"}` setting the attributes of the block before them, and an inline
 * tokenizer for the DOM renderer and plain-text content.
 */
import { isAvBlockLine, parseAvBlockLine } from "./av-block.js";
import { type Block, newBlock } from "./block.js";
import { NODE_ID_SOURCE } from "./clock.js";

const IAL_LINE = /^\s*\{:\s*((?:[^}"]|"[^"]*")*)\}\s*$/;
const IAL_PREFIX = /^\{:\s*((?:[^}"]|"[^"]*")*)\}/;
const IAL_PAIR = /([A-Za-z_][A-Za-z0-9_-]*)="([^"]*)"/g;
const FENCE = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*$/;
const HR = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?/;
const LIST_ITEM = /^( {0,3})([*+-]|\d{1,9}[.)])([ \t]+|$)(.*)$/;

/** Escapes an IAL value the way Lute stores it. */
export function escapeIalValue(v: string): string {
  return v
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/\n/g, "_esc_newline_");
}

/** Reverses escapeIalValue. */
export function unescapeIalValue(v: string): string {
  return v
    .replace(/_esc_newline_/g, "\n")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** Parses the body of an IAL (`k="v" ...`). */
export function parseIalBody(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of body.matchAll(IAL_PAIR)) out[m[1]!] = unescapeIalValue(m[2]!);
  return out;
}

/** Parses a whole IAL line, or null when the line is not one. */
export function parseIalLine(line: string): Record<string, string> | null {
  const m = IAL_LINE.exec(line);
  return m ? parseIalBody(m[1] ?? "") : null;
}

/** Result of parsing: the blocks, and an IAL that followed the last block's own IAL. */
export interface ParsedMarkdown {
  blocks: Block[];
  /** Attributes for the enclosing container (the doc IAL at the end of a document's kramdown). */
  trailingAttrs: Record<string, string> | null;
}

const isBlank = (l: string): boolean => l.trim() === "";
const indentOf = (l: string): number => {
  let n = 0;
  for (const ch of l) {
    if (ch === " ") n++;
    else if (ch === "\t") n += 4;
    else break;
  }
  return n;
};

/** How {@link parseMarkdown} reads what Lute and the sandbox's other callers read differently. */
export interface ParseOptions {
  /** Keep a paragraph line's leading whitespace, as Lute does (`/api/template/render`). */
  readonly keepParagraphIndent?: boolean;
}

/** Parses Markdown (with kramdown IALs) into blocks. IDs are not assigned here. */
export function parseMarkdown(md: string, opts: ParseOptions = {}): ParsedMarkdown {
  return parseLines(md.replace(/\r\n?/g, "\n").split("\n"), opts);
}

/** True when a line would open a block (used to end paragraphs and to escape them). */
export function startsBlock(line: string): boolean {
  return (
    IAL_LINE.test(line) ||
    FENCE.test(line) ||
    HEADING.test(line) ||
    HR.test(line) ||
    QUOTE.test(line) ||
    line.trim() === "$$" ||
    LIST_ITEM.test(line) ||
    isAvBlockLine(line)
  );
}

function parseLines(lines: string[], opts: ParseOptions = {}): ParsedMarkdown {
  const blocks: Block[] = [];
  let lastHasIal = true;
  let trailingAttrs: Record<string, string> | null = null;
  let i = 0;
  const push = (b: Block): void => {
    blocks.push(b);
    lastHasIal = false;
  };
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line)) {
      i++;
      continue;
    }
    const ial = parseIalLine(line);
    if (ial) {
      const last = blocks[blocks.length - 1];
      let isLastLine = true;
      for (let j = i + 1; j < lines.length; j++) if (!isBlank(lines[j]!)) isLastLine = false;
      if (last && !lastHasIal) {
        last.attrs = { ...last.attrs, ...ial };
        lastHasIal = true;
      } else if (isLastLine && (blocks.length > 0 || ial.type === "doc")) {
        // an IAL after the last block's own IAL belongs to the container (the doc IAL)
        trailingAttrs = { ...(trailingAttrs ?? {}), ...ial };
      } else {
        // a lone IAL is an empty paragraph (Lute writes an empty paragraph as just its IAL)
        blocks.push(newBlock("p", { attrs: ial }));
        lastHasIal = true;
      }
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const fenceStr = fence[2]!;
      const body: string[] = [];
      i++;
      while (i < lines.length) {
        const l = lines[i]!;
        const t = l.trim();
        if (t.startsWith(fenceStr[0]!.repeat(fenceStr.length)) && /^(`+|~+)$/.test(t)) {
          i++;
          break;
        }
        body.push(l);
        i++;
      }
      push(newBlock("c", { text: body.join("\n"), lang: fence[3] ?? "" }));
      continue;
    }
    if (line.trim() === "$$") {
      const body: string[] = [];
      i++;
      while (i < lines.length && lines[i]!.trim() !== "$$") body.push(lines[i++]!);
      i++;
      push(newBlock("m", { text: body.join("\n"), subtype: "" }));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      push(newBlock("h", { subtype: `h${heading[1]!.length}`, text: heading[2] ?? "" }));
      i++;
      continue;
    }
    if (HR.test(line)) {
      push(newBlock("tb"));
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!)) body.push(lines[i++]!.replace(QUOTE, ""));
      const inner = parseLines(body, opts);
      const bq = newBlock("b", { children: inner.blocks });
      if (inner.trailingAttrs) bq.attrs = { ...inner.trailingAttrs };
      push(bq);
      if (inner.trailingAttrs) lastHasIal = true;
      continue;
    }
    const avBlock = parseAvBlockLine(line);
    if (avBlock) {
      push(avBlock);
      i++;
      continue;
    }
    if (LIST_ITEM.test(line)) {
      const r = parseList(lines, i, opts);
      push(r.list);
      i = r.next;
      continue;
    }
    const cut = (l: string): string => (opts.keepParagraphIndent ? l.trimEnd() : l.trim());
    const para: string[] = [cut(line)];
    i++;
    while (i < lines.length && !isBlank(lines[i]!) && !startsBlock(lines[i]!))
      para.push(cut(lines[i++]!));
    push(newBlock("p", { text: para.join("\n") }));
  }
  return { blocks, trailingAttrs };
}

function parseList(
  lines: string[],
  start: number,
  opts: ParseOptions,
): { list: Block; next: number } {
  const first = LIST_ITEM.exec(lines[start]!)!;
  const indent = first[1]!.length;
  const firstMarker = first[2]!;
  const ordered = /\d/.test(firstMarker);
  const items: Block[] = [];
  let i = start;
  let task = false;
  while (i < lines.length) {
    const itemStart = i;
    const m = LIST_ITEM.exec(lines[i]!);
    if (!m || m[1]!.length !== indent) break;
    const marker = m[2]!;
    if (/\d/.test(marker) !== ordered) break;
    if (!ordered && marker !== firstMarker) break;
    if (ordered && marker.slice(-1) !== firstMarker.slice(-1)) break;
    const gap = m[3]!.length;
    const offset = indent + marker.length + (gap >= 1 && gap <= 4 ? gap : 1);
    const itemLines: string[] = [];
    let rest = m[4] ?? "";
    const item = newBlock("i", { marker });
    let checkedSet = false;
    for (let k = 0; k < 2; k++) {
      const ialM = IAL_PREFIX.exec(rest);
      if (ialM) {
        item.attrs = { ...item.attrs, ...parseIalBody(ialM[1] ?? "") };
        rest = rest.slice(ialM[0].length).replace(/^[ \t]/, "");
      }
      const taskM = /^\[([ xX])\](?:[ \t]+|$)/.exec(rest);
      if (taskM && !checkedSet) {
        checkedSet = true;
        item.checked = taskM[1] !== " ";
        rest = rest.slice(taskM[0].length);
        if (items.length === 0) task = true;
      }
    }
    // Lute starts a new list where items change from task to plain or back (kernel-probes
    // block.appendBlock.mixed-lists)
    if (items.length > 0 && checkedSet !== task) {
      i = itemStart;
      break;
    }
    if (rest !== "") itemLines.push(rest);
    i++;
    while (i < lines.length) {
      const l = lines[i]!;
      if (isBlank(l)) {
        let j = i + 1;
        while (j < lines.length && isBlank(lines[j]!)) j++;
        if (j < lines.length && indentOf(lines[j]!) >= offset) {
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
      break;
    }
    const inner = parseLines(itemLines, opts);
    item.children = inner.blocks.length > 0 ? inner.blocks : [newBlock("p")];
    if (inner.trailingAttrs) item.attrs = { ...inner.trailingAttrs, ...item.attrs };
    items.push(item);
    // blank lines between items of the same list
    let j = i;
    while (j < lines.length && isBlank(lines[j]!)) j++;
    const nm = j < lines.length ? LIST_ITEM.exec(lines[j]!) : null;
    if (j > i && nm && nm[1]!.length === indent && /\d/.test(nm[2]!) === ordered) i = j;
  }
  const subtype = task ? "t" : ordered ? "o" : "u";
  for (const it of items) it.subtype = subtype;
  return { list: newBlock("l", { subtype, children: items }), next: i };
}

/** One run of inline text with the marks that apply to it. */
export interface InlineSegment {
  text: string;
  /** Lute mark names: strong, em, s, mark, code, tag, u, kbd, sup, sub, a, block-ref, inline-math. */
  types: string[];
  /** block-ref target. */
  refId?: string;
  /** block-ref subtype: `s` static anchor, `d` dynamic. */
  refSubtype?: "s" | "d";
  /** link target. */
  href?: string;
}

const REF = new RegExp(
  String.raw`^\(\((${NODE_ID_SOURCE})(?:\s+(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'))?\)\)`,
);
const LINK = /^\[([^\]]*)\]\(([^)\s]*)(?:\s+"[^"]*")?\)/;
const TAG = /^#([^#\s][^#\n]*?)#/;
const HTML_MARKS = ["u", "kbd", "sup", "sub"] as const;

function skipCode(s: string, k: number): number {
  if (s[k] !== "`") return k;
  const j = s.indexOf("`", k + 1);
  return j > k ? j + 1 : k;
}

function findDoubleClose(s: string, delim: string, from: number): number {
  let k = from + 1;
  while (k < s.length) {
    const after = skipCode(s, k);
    if (after !== k) {
      k = after;
      continue;
    }
    if (s.startsWith(delim, k) && s[k - 1] !== " ") {
      while (s[k + 2] === delim[0]) k++;
      return k;
    }
    k++;
  }
  return -1;
}

function findSingleClose(s: string, ch: string, from: number): number {
  let k = from + 1;
  while (k < s.length) {
    const after = skipCode(s, k);
    if (after !== k) {
      k = after;
      continue;
    }
    if (s.startsWith(ch + ch, k)) {
      const c = findDoubleClose(s, ch + ch, k + 2);
      if (c > 0) {
        k = c + 2;
        continue;
      }
    }
    if (s[k] === ch && s[k - 1] !== " ") return k;
    k++;
  }
  return -1;
}

/** Tokenizes inline Markdown into segments. Unknown syntax stays text. */
export function parseInline(s: string, types: string[] = []): InlineSegment[] {
  const out: InlineSegment[] = [];
  let buf = "";
  const flush = (): void => {
    if (buf !== "") out.push({ text: buf, types });
    buf = "";
  };
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    const rest = s.slice(i);
    if (c === "\\" && i + 1 < s.length && /[!-/:-@[-`{-~]/.test(s[i + 1]!)) {
      buf += s[i + 1];
      i += 2;
      continue;
    }
    if (c === "`") {
      const j = s.indexOf("`", i + 1);
      if (j > i + 1) {
        flush();
        out.push({ text: s.slice(i + 1, j), types: [...types, "code"] });
        i = j + 1;
        continue;
      }
    }
    if (c === "(" && rest.startsWith("((")) {
      const m = REF.exec(rest);
      if (m) {
        flush();
        const isStatic = m[2] !== undefined;
        const raw = (isStatic ? m[2] : m[3]) ?? "";
        const text = raw.replace(/&apos;/g, "'").replace(/\\(.)/g, "$1");
        out.push({
          text: text === "" ? m[1]! : text,
          types: [...types, "block-ref"],
          refId: m[1]!,
          refSubtype: isStatic ? "s" : "d",
        });
        i += m[0].length;
        continue;
      }
    }
    let matched = false;
    for (const [delim, mark] of [
      ["**", "strong"],
      ["__", "strong"],
      ["~~", "s"],
      ["==", "mark"],
    ] as const) {
      if (rest.startsWith(delim) && s[i + 2] !== " " && s[i + 2] !== undefined) {
        const close = findDoubleClose(s, delim, i + 2);
        if (close > i + 2) {
          flush();
          out.push(...parseInline(s.slice(i + 2, close), [...types, mark]));
          i = close + 2;
          matched = true;
          break;
        }
      }
    }
    if (matched) continue;
    if ((c === "*" || c === "_") && s[i + 1] !== " " && s[i + 1] !== undefined && s[i + 1] !== c) {
      const close = findSingleClose(s, c, i);
      if (close > i + 1) {
        flush();
        out.push(...parseInline(s.slice(i + 1, close), [...types, "em"]));
        i = close + 1;
        continue;
      }
    }
    if (c === "#") {
      const m = TAG.exec(rest);
      if (m) {
        flush();
        out.push({ text: m[1]!, types: [...types, "tag"] });
        i += m[0].length;
        continue;
      }
    }
    if (c === "[") {
      const m = LINK.exec(rest);
      if (m) {
        flush();
        out.push({ text: m[1]!, types: [...types, "a"], href: m[2]! });
        i += m[0].length;
        continue;
      }
    }
    if (c === "<") {
      const tag = HTML_MARKS.find((t) => rest.startsWith(`<${t}>`));
      if (tag) {
        const close = s.indexOf(`</${tag}>`, i + tag.length + 2);
        if (close > 0) {
          flush();
          out.push(...parseInline(s.slice(i + tag.length + 2, close), [...types, tag]));
          i = close + tag.length + 3;
          continue;
        }
      }
    }
    if (c === "$" && s[i + 1] !== "$") {
      const m = /^\$([^$\n]+)\$/.exec(rest);
      if (m) {
        flush();
        out.push({ text: m[1]!, types: [...types, "inline-math"] });
        i += m[0].length;
        continue;
      }
    }
    buf += c;
    i++;
  }
  flush();
  return out;
}

/** Tags (`#x#`) found in inline Markdown. */
export function inlineTags(s: string): string[] {
  return parseInline(s)
    .filter((seg) => seg.types.includes("tag"))
    .map((seg) => seg.text);
}

/** Block references found in inline Markdown. */
export function inlineRefs(s: string): InlineSegment[] {
  return parseInline(s).filter((seg) => seg.types.includes("block-ref"));
}

/**
 * The content form: what a readback compares when it proves a content write.
 *
 * The kernel re-renders what it is given (Kramdown as SiYuan emits it: `__x__` becomes `**x**`,
 * bullets become `*`, ordered items are renumbered, task boxes become `[X]`, block-like paragraph
 * lines get a `\`, IALs are rewritten in another order with `id` and `updated` added), so a byte
 * comparison would report failures that are not. A lossy text key (marks and punctuation dropped)
 * hides real failures instead. The form sits between: both sides are parsed into blocks — type,
 * heading level, list kind, task state, attributes other than `id`/`updated`/`created` — whose
 * inline content is runs of text (escapes and entities resolved) each with its set of marks
 * (strong, em, s, mark, code, tag, u, kbd, sup, sub, link, block reference, inline math), and the
 * two forms must be equal. Every mark and block type survives; only spellings the kernel is free
 * to choose do not. Markdown and protyle DOM parse into the same form.
 */
import { parseIalLine } from "./ial.js";
import { normalizeKramdown, VOLATILE_ATTRIBUTES } from "./normalize.js";

/** One run of inline text with the marks that apply to all of it. */
export interface InlineRun {
  readonly text: string;
  /** Mark names, sorted: strong em s mark code tag u kbd sup sub a ref math img. */
  readonly marks: readonly string[];
  /** A link's href, an image's source, or a block reference `"<id> s|d"`. */
  readonly target?: string;
}

/** One block of the form. */
export interface FormBlock {
  /** `p`, `h`, `list`, `li`, `code`, `math`, `quote`, `super`, `hr`, `html`, `table`, `embed`. */
  readonly type: string;
  /** The block's ID when its IAL names one (never compared). */
  readonly id?: string;
  /** IAL attributes other than `id`, `updated`, `created`. */
  readonly attrs: Readonly<Record<string, string>>;
  /** Heading level 1–6. */
  readonly level?: number;
  /** List kind of a list: `u` bullets, `o` ordered, `t` tasks. */
  readonly list?: "u" | "o" | "t";
  /** A list item's task box: absent for a plain item. */
  readonly checked?: boolean;
  /** Raw text of code, math, HTML, table and embed blocks; info string of code in `lang`. */
  readonly text?: string;
  readonly lang?: string;
  /** Inline content of paragraphs and headings. */
  readonly inline?: readonly InlineRun[];
  /** Span IALs (`**x**{: style="…"}`), normalised. */
  readonly spans?: readonly string[];
  readonly children?: readonly FormBlock[];
}

/** Attributes never compared: kernel-assigned identity and timestamps. */
const UNCOMPARED_ATTRIBUTES: ReadonlySet<string> = new Set(["id", ...VOLATILE_ATTRIBUTES]);

// ---------------------------------------------------------------- text

const ENTITY: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
};

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-z]+);/g, (m, e: string) => {
    if (e.startsWith("#x")) return String.fromCodePoint(Number.parseInt(e.slice(2), 16));
    if (e.startsWith("#")) return String.fromCodePoint(Number.parseInt(e.slice(1), 10));
    return ENTITY[e] ?? m;
  });
}

/** Text as compared: no zero-width spaces, each line trimmed, no blank edges. */
function normalizeText(s: string): string {
  return s
    .replace(/\u200b/g, "")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((l) => l.trim())
    .join("\n")
    .trim();
}

function cleanAttrs(attrs: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(attrs).sort()) {
    if (!UNCOMPARED_ATTRIBUTES.has(k)) out[k] = attrs[k] as string;
  }
  return out;
}

// ---------------------------------------------------------------- inline Markdown

const ASCII_PUNCT = /[!-/:-@[-`{-~]/;
const ALNUM = /[\p{L}\p{N}]/u;
const REF = /^\(\((\d{14}-[a-z0-9]{7})(?:\s+(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'))?\)\)/;
const TAG = /^#([^#\s][^#\n]*?)#/;
const HTML_MARKS = ["u", "kbd", "sup", "sub"] as const;
const SPAN_IAL = /\{:((?:\s+[A-Za-z_][\w-]*="[^"]*")*)\s*\}/g;

interface MutableRun {
  text: string;
  marks: string[];
  target?: string;
}

/** Index after a backtick code span starting at `k`, or `k` when none starts there. */
function skipCode(s: string, k: number): number {
  if (s[k] !== "`") return k;
  let n = 0;
  while (s[k + n] === "`") n++;
  const close = findBacktickRun(s, k + n, n);
  return close < 0 ? k + n : close + n;
}

function findBacktickRun(s: string, from: number, n: number): number {
  let k = from;
  while (k < s.length) {
    if (s[k] !== "`") {
      k++;
      continue;
    }
    let m = 0;
    while (s[k + m] === "`") m++;
    if (m === n) return k;
    k += m;
  }
  return -1;
}

function canOpen(s: string, i: number, delim: string): boolean {
  const next = s[i + delim.length];
  if (next === undefined || /\s/.test(next)) return false;
  if (delim[0] === "_" && i > 0 && ALNUM.test(s[i - 1] as string)) return false;
  return true;
}

function canClose(s: string, k: number, delim: string): boolean {
  const prev = s[k - 1];
  if (prev === undefined || /\s/.test(prev)) return false;
  const next = s[k + delim.length];
  if (delim[0] === "_" && next !== undefined && ALNUM.test(next)) return false;
  return true;
}

/** The index of the closing delimiter of a run opened at `from`, or -1. */
function findClose(s: string, delim: string, from: number): number {
  const ch = delim[0] as string;
  let k = from;
  while (k < s.length) {
    if (s[k] === "\\") {
      k += 2;
      continue;
    }
    const after = skipCode(s, k);
    if (after !== k) {
      k = after;
      continue;
    }
    if (delim.length === 1 && s.startsWith(ch + ch, k) && canOpen(s, k, ch + ch)) {
      // a nested double run of the same character is skipped whole
      const inner = findClose(s, ch + ch, k + 2);
      if (inner > 0) {
        k = inner + 2;
        continue;
      }
    }
    if (s.startsWith(delim, k) && k > from && canClose(s, k, delim)) {
      if (delim.length === 2) while (s[k + 2] === ch) k++;
      return k;
    }
    k++;
  }
  return -1;
}

function parseInlineInto(s: string, marks: readonly string[], out: MutableRun[]): void {
  let buf = "";
  const flush = () => {
    if (buf !== "") out.push({ text: decodeEntities(buf), marks: [...marks] });
    buf = "";
  };
  const push = (run: MutableRun) => {
    flush();
    out.push(run);
  };
  let i = 0;
  while (i < s.length) {
    const c = s[i] as string;
    const rest = s.slice(i);
    if (c === "\\" && i + 1 < s.length && ASCII_PUNCT.test(s[i + 1] as string)) {
      // an escaped character is literal text; `&` too, so it is not read as an entity
      flush();
      out.push({ text: s[i + 1] as string, marks: [...marks] });
      i += 2;
      continue;
    }
    if (c === "`") {
      let n = 0;
      while (s[i + n] === "`") n++;
      const close = findBacktickRun(s, i + n, n);
      if (close > 0) {
        let code = s.slice(i + n, close).replace(/\n/g, " ");
        if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ") && code.trim() !== "")
          code = code.slice(1, -1);
        push({ text: code, marks: [...marks, "code"] });
        i = close + n;
        continue;
      }
      buf += "`".repeat(n);
      i += n;
      continue;
    }
    if (c === "(" && rest.startsWith("((")) {
      const m = REF.exec(rest);
      if (m) {
        const isStatic = m[2] !== undefined;
        // A dynamic reference's text is the anchor's, kept current by the kernel: not compared.
        const text = isStatic ? decodeEntities((m[2] as string).replace(/\\(.)/g, "$1")) : "";
        push({
          text,
          marks: [...marks, "ref"],
          target: `${m[1]} ${isStatic ? "s" : "d"}`,
        });
        i += m[0].length;
        continue;
      }
    }
    if (c === "!" || c === "[") {
      const link = parseLink(s, c === "!" ? i + 1 : i);
      if (link && (c === "[" || s[i + 1] === "[")) {
        if (c === "!") push({ text: link.text, marks: [...marks, "img"], target: link.href });
        else {
          flush();
          const inner: MutableRun[] = [];
          parseInlineInto(link.text, [...marks, "a"], inner);
          for (const r of inner) out.push({ ...r, target: link.href });
          if (inner.length === 0) out.push({ text: "", marks: [...marks, "a"], target: link.href });
        }
        i = link.end;
        continue;
      }
    }
    if (c === "<") {
      const tag = HTML_MARKS.find((t) => rest.startsWith(`<${t}>`));
      if (tag) {
        const close = s.indexOf(`</${tag}>`, i + tag.length + 2);
        if (close > 0) {
          flush();
          parseInlineInto(s.slice(i + tag.length + 2, close), [...marks, tag], out);
          i = close + tag.length + 3;
          continue;
        }
      }
      const br = /^<br\s*\/?>/i.exec(rest);
      if (br) {
        buf += "\n";
        i += br[0].length;
        continue;
      }
    }
    if (c === "$" && s[i + 1] !== "$") {
      const m = /^\$([^$\n]+)\$/.exec(rest);
      if (m) {
        push({ text: m[1] as string, marks: [...marks, "math"] });
        i += m[0].length;
        continue;
      }
    }
    if (c === "#") {
      const m = TAG.exec(rest);
      if (m) {
        push({ text: decodeEntities(m[1] as string), marks: [...marks, "tag"] });
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
      if (rest.startsWith(delim) && canOpen(s, i, delim)) {
        const close = findClose(s, delim, i + 2);
        if (close > i + 2) {
          flush();
          parseInlineInto(s.slice(i + 2, close), [...marks, mark], out);
          i = close + 2;
          matched = true;
          break;
        }
      }
    }
    if (matched) continue;
    if ((c === "*" || c === "_") && s[i + 1] !== c && canOpen(s, i, c)) {
      const close = findClose(s, c, i + 1);
      if (close > i + 1) {
        flush();
        parseInlineInto(s.slice(i + 1, close), [...marks, "em"], out);
        i = close + 1;
        continue;
      }
    }
    buf += c;
    i++;
  }
  flush();
}

/** `[text](href "title")` starting at `i` (the `[`), or `undefined`. */
function parseLink(s: string, i: number): { text: string; href: string; end: number } | undefined {
  if (s[i] !== "[") return undefined;
  let depth = 0;
  let k = i;
  for (; k < s.length; k++) {
    const ch = s[k];
    if (ch === "\\") {
      k++;
      continue;
    }
    if (ch === "[") depth++;
    else if (ch === "]" && --depth === 0) break;
  }
  if (k >= s.length || s[k + 1] !== "(") return undefined;
  const m = /^\(\s*(<[^>]*>|[^\s)]*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/.exec(s.slice(k + 1));
  if (!m) return undefined;
  const href = (m[1] as string).replace(/^<(.*)>$/, "$1");
  return { text: s.slice(i + 1, k), href, end: k + 1 + m[0].length };
}

/** Sorts marks, merges neighbours with the same marks, drops empty plain runs. */
function finishRuns(runs: readonly MutableRun[]): InlineRun[] {
  const out: MutableRun[] = [];
  for (const r of runs) {
    const text = r.text.replace(/\u200b/g, "");
    const marks = [...new Set(r.marks)].sort();
    const last = out.at(-1);
    if (
      last &&
      last.target === r.target &&
      r.target === undefined &&
      last.marks.join(" ") === marks.join(" ")
    ) {
      last.text += text;
      continue;
    }
    out.push(r.target === undefined ? { text, marks } : { text, marks, target: r.target });
  }
  const kept = out.filter((r) => r.text !== "" || r.target !== undefined || r.marks.length > 0);
  // whitespace at the edges of the content is not content
  const first = kept[0];
  if (first && first.marks.length === 0 && first.target === undefined)
    first.text = first.text.replace(/^\s+/, "");
  const lastRun = kept.at(-1);
  if (lastRun && lastRun.marks.length === 0 && lastRun.target === undefined)
    lastRun.text = lastRun.text.replace(/\s+$/, "");
  return kept.filter((r) => r.text !== "" || r.target !== undefined || r.marks.length > 0);
}

/** The inline form of a paragraph's or heading's Markdown, and its span IALs. */
function inlineOfMarkdown(md: string): { inline: InlineRun[]; spans: string[] } {
  const spans: string[] = [];
  const text = normalizeText(md).replace(SPAN_IAL, (m) => {
    spans.push(normalizeKramdown(m));
    return "";
  });
  const runs: MutableRun[] = [];
  parseInlineInto(text, [], runs);
  return { inline: finishRuns(runs), spans };
}

// ---------------------------------------------------------------- block Markdown

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

// ---------------------------------------------------------------- DOM

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

/** The content form of data as the caller sent it. */
export function formOf(data: string, dataType: "markdown" | "dom"): FormBlock[] {
  return dataType === "dom" ? formOfDom(data) : formOfMarkdown(data);
}

// ---------------------------------------------------------------- comparison

/** How two forms are compared. */
export interface CompareOptions {
  /**
   * The first top-level block is an updated block whose own attributes are checked separately
   * (the kernel adds `id`/`updated` and the update carries the block's kept attributes).
   */
  readonly ownAttrs?: "ignore" | "compare";
  /**
   * The target is a list item: the kernel keeps it in its list, so a one-item list in the
   * request is that item, and the list's kind is not the request's to choose.
   */
  readonly listItem?: boolean;
}

type Plain = Record<string, unknown>;

function plain(b: FormBlock, dropAttrs: boolean): Plain {
  const out: Plain = { type: b.type };
  if (!dropAttrs && Object.keys(b.attrs).length > 0) out["attrs"] = b.attrs;
  if (b.level !== undefined) out["level"] = b.level;
  if (b.list !== undefined) out["list"] = b.list;
  if (b.checked !== undefined) out["checked"] = b.checked;
  if (b.lang !== undefined && b.lang !== "") out["lang"] = b.lang;
  if (b.text !== undefined && b.text !== "") out["text"] = b.text;
  if (b.inline !== undefined && b.inline.length > 0) out["inline"] = b.inline;
  if (b.spans !== undefined) out["spans"] = b.spans;
  if (b.children !== undefined) {
    const children = b.children.map((c) => plain(c, false));
    out["children"] = isOnlyEmptyParagraph(children) ? [] : children;
  }
  return out;
}

/** The kernel fills an empty container with one empty paragraph; that counts as empty. */
function isOnlyEmptyParagraph(blocks: readonly Plain[]): boolean {
  return blocks.length === 1 && JSON.stringify(blocks[0]) === JSON.stringify({ type: "p" });
}

/** The blocks a request stands for when it replaces a list item. */
export function unwrapListItem(form: readonly FormBlock[]): readonly FormBlock[] {
  const only = form[0];
  if (form.length === 1 && only?.type === "list") return only.children ?? [];
  return form;
}

/**
 * A canonical string of a form: equal strings mean equal content. IDs, `updated` and `created`,
 * IAL order, bullet characters, ordered numbers, `__`/`_` spellings, escapes and entities never
 * count; block types, heading levels, list kinds, task states, marks and text always do.
 */
export function canonicalForm(form: readonly FormBlock[], options: CompareOptions = {}): string {
  let blocks = form;
  if (options.listItem) {
    blocks = unwrapListItem(form).map((b) =>
      b.type === "li" ? b : { type: "li", attrs: {}, children: [b] },
    );
  }
  const out = blocks.map((b, i) => plain(b, i === 0 && options.ownAttrs === "ignore"));
  const normalized = isOnlyEmptyParagraph(out) ? [] : out;
  return JSON.stringify(normalized);
}

/** True when two forms hold the same content under {@link canonicalForm}. */
export function sameContent(
  a: readonly FormBlock[],
  b: readonly FormBlock[],
  options: CompareOptions = {},
): boolean {
  return canonicalForm(a, options) === canonicalForm(b, options);
}

// ---------------------------------------------------------------- structure

/** Where a block sits in a parsed tree: its siblings and its index among them. */
export interface Placement {
  readonly siblings: readonly FormBlock[];
  readonly index: number;
}

/** Finds a block by ID in a form (depth first); `undefined` when no IAL names it. */
export function placementOf(form: readonly FormBlock[], id: string): Placement | undefined {
  for (const [index, b] of form.entries()) {
    if (b.id === id) return { siblings: form, index };
    const inner = b.children ? placementOf(b.children, id) : undefined;
    if (inner) return inner;
  }
  return undefined;
}

/** The children of the block with this ID (or of the root when `id` is the document's). */
export function childrenOf(
  form: readonly FormBlock[],
  id: string,
  rootId?: string,
): readonly FormBlock[] | undefined {
  if (id === rootId) return form;
  const at = placementOf(form, id);
  return at ? (at.siblings[at.index]?.children ?? []) : undefined;
}

/** Inline Markdown (Kramdown as SiYuan emits it) to runs of text with their marks. */
import { NODE_ID_PATTERN } from "@sisyphus/siyuan-api/kernel";
import { normalizeKramdown } from "../attributes.js";
import { isAlnum } from "./alnum.js";
import { decodeEntities, normalizeText } from "./text.js";
import type { InlineRun } from "./types.js";

const ASCII_PUNCT = /[!-/:-@[-`{-~]/;
/** A node ID inside a larger pattern: {@link NODE_ID_PATTERN} without its anchors. */
const NODE_ID = NODE_ID_PATTERN.source.replace(/^\^|\$$/g, "");
/** A block reference `((id "anchor"))` or `((id 'anchor'))`. */
const REF = new RegExp(
  String.raw`^\(\((${NODE_ID})(?:\s+(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'))?\)\)`,
);
const TAG = /^#([^#\s][^#\n]*?)#/;
const HTML_MARKS = ["u", "kbd", "sup", "sub"] as const;
const SPAN_IAL = /\{:((?:\s+[A-Za-z_][\w-]*="[^"]*")*)\s*\}/g;

/** A run while it is being built (marks not yet sorted or merged). */
export interface MutableRun {
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
  if (delim[0] === "_" && i > 0 && isAlnum(s[i - 1] as string)) return false;
  return true;
}

function canClose(s: string, k: number, delim: string): boolean {
  const prev = s[k - 1];
  if (prev === undefined || /\s/.test(prev)) return false;
  const next = s[k + delim.length];
  if (delim[0] === "_" && next !== undefined && isAlnum(next)) return false;
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

/** Delimiter runs of the double-character marks, in the order they are tried. */
const DOUBLE_MARKS = [
  ["**", "strong"],
  ["__", "strong"],
  ["~~", "s"],
  ["==", "mark"],
] as const;

/**
 * True for a character at which some inline construct may start (an escape, code, a reference, a
 * link or image, an HTML mark or `<br>`, math, a tag, a delimiter run); any other is plain text.
 */
function mayStartInline(c: number): boolean {
  switch (c) {
    case 0x5c: // \
    case 0x60: // `
    case 0x28: // (
    case 0x21: // !
    case 0x5b: // [
    case 0x3c: // <
    case 0x24: // $
    case 0x23: // #
    case 0x2a: // *
    case 0x5f: // _
    case 0x7e: // ~
    case 0x3d: // =
      return true;
    default:
      return false;
  }
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
    if (!mayStartInline(s.charCodeAt(i))) {
      // A run of plain text: no construct starts at any of its characters.
      let j = i + 1;
      while (j < s.length && !mayStartInline(s.charCodeAt(j))) j++;
      buf += s.slice(i, j);
      i = j;
      continue;
    }
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
    for (const [delim, mark] of DOUBLE_MARKS) {
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
export function finishRuns(runs: readonly MutableRun[]): InlineRun[] {
  const out: MutableRun[] = [];
  for (const r of runs) {
    const text = r.text.indexOf("\u200b") < 0 ? r.text : r.text.replace(/\u200b/g, "");
    const marks = r.marks.length === 0 ? [] : [...new Set(r.marks)].sort();
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
export function inlineOfMarkdown(md: string): { inline: InlineRun[]; spans: string[] } {
  const spans: string[] = [];
  const normalized = normalizeText(md);
  // A span IAL starts with `{:`: text without one has nothing to take out.
  const text =
    normalized.indexOf("{:") < 0
      ? normalized
      : normalized.replace(SPAN_IAL, (m) => {
          spans.push(normalizeKramdown(m));
          return "";
        });
  const runs: MutableRun[] = [];
  parseInlineInto(text, [], runs);
  return { inline: finishRuns(runs), spans };
}

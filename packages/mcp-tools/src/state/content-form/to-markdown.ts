/**
 * A content form written back as Markdown (Kramdown-style IAL lines for block attributes), for a
 * read that has only the kernel's protyle DOM (a history point). Whoever shows it checks that it
 * parses back to the same form ({@link canonicalForm}); when it does not, the DOM is the answer.
 */
import { renderIalLine } from "../attributes.js";
import type { FormBlock, InlineRun } from "./types.js";

const WRAP: ReadonlyArray<readonly [string, string, string]> = [
  ["strong", "**", "**"],
  ["em", "*", "*"],
  ["s", "~~", "~~"],
  ["mark", "==", "=="],
  ["u", "<u>", "</u>"],
  ["kbd", "<kbd>", "</kbd>"],
  ["sup", "<sup>", "</sup>"],
  ["sub", "<sub>", "</sub>"],
];

function run(r: InlineRun): string {
  const m = new Set(r.marks);
  let s = r.text;
  if (m.has("code")) s = `\`${s}\``;
  else if (m.has("math")) s = `$${s}$`;
  else if (m.has("tag")) s = `#${s}#`;
  if (m.has("ref") && r.target !== undefined) {
    const [id, kind] = r.target.split(" ");
    s = kind === "d" ? `((${id} '${s}'))` : `((${id} "${s}"))`;
  } else if (m.has("img")) s = `![${s}](${r.target ?? ""})`;
  else if (m.has("a")) s = `[${s}](${r.target ?? ""})`;
  for (const [mark, open, close] of WRAP) if (m.has(mark)) s = `${open}${s}${close}`;
  return s;
}

const inline = (runs: readonly InlineRun[] | undefined) => (runs ?? []).map(run).join("");

const indent = (text: string, first: string, rest: string) =>
  text
    .split("\n")
    .map((line, i) => (i === 0 ? first : line === "" ? "" : rest) + line)
    .join("\n");

function withIal(body: string, b: FormBlock): string {
  return Object.keys(b.attrs).length === 0 ? body : `${body}\n${renderIalLine(b.attrs)}`;
}

/**
 * A list item. `alt`: the list follows another list, so it takes the other bullet (`-`, or `)`
 * after the number), which CommonMark and Lute read as the start of a new list.
 */
function item(li: FormBlock, list: FormBlock["list"], n: number, alt = false): string {
  const bullet = alt ? "-" : "*";
  const marker =
    list === "o"
      ? `${n}${alt ? ")" : "."} `
      : list === "t"
        ? `${bullet} [${li.checked ? "X" : " "}] `
        : `${bullet} `;
  const body = blocks(li.children ?? []);
  // a task box is part of the item's content: its blocks continue under the bullet's text
  return indent(body, marker, " ".repeat(list === "t" ? 2 : marker.length));
}

/** A code block fenced with more backticks than any run in its text, so the text cannot close it. */
function fenced(text: string, lang: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${text}\n${fence}`;
}

function block(b: FormBlock, afterList = false): string {
  switch (b.type) {
    case "p":
      return withIal(inline(b.inline), b);
    case "h":
      return withIal(`${"#".repeat(b.level ?? 1)} ${inline(b.inline)}`, b);
    case "list":
      return withIal(
        (b.children ?? []).map((li, i) => item(li, b.list, i + 1, afterList)).join("\n"),
        b,
      );
    case "li":
      return item(b, "u", 1);
    case "code":
      return withIal(fenced(b.text ?? "", b.lang ?? ""), b);
    case "math":
      return withIal(`$$\n${b.text ?? ""}\n$$`, b);
    case "quote":
      return withIal(
        blocks(b.children ?? [])
          .split("\n")
          .map((line) => (line === "" ? ">" : `> ${line}`))
          .join("\n"),
        b,
      );
    case "super":
      return withIal(`{{{row\n${blocks(b.children ?? [])}\n}}}`, b);
    case "hr":
      return withIal("---", b);
    default:
      return withIal(b.text ?? "", b);
  }
}

function blocks(form: readonly FormBlock[]): string {
  let alt = false;
  return form
    .map((b, i) => {
      // lists in a row alternate their bullets, or they would read back as one list
      alt = b.type === "list" && form[i - 1]?.type === "list" ? !alt : false;
      return block(b, alt);
    })
    .join("\n\n");
}

/** The form as Markdown, blocks separated by a blank line. */
export function markdownOfForm(form: readonly FormBlock[]): string {
  return blocks(form);
}

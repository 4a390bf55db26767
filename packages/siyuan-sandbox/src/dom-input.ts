/**
 * `dataType: "dom"` input: converts block DOM (as renderDom writes it) back to kramdown,
 * keeping block IDs and IAL attributes. Only the block and span types the renderer emits.
 */
import { avBlockMarkdown } from "./av-block.js";

interface El {
  tag: string;
  attrs: Record<string, string>;
  children: Array<El | string>;
}

const VOID = new Set(["br", "img", "hr", "input", "wbr"]);

function decode(s: string): string {
  return s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&apos;/g, "'")
    .replace(/&nbsp;/g, "\u00a0")
    .replace(/&amp;/g, "&");
}

/** A forgiving HTML parser into a tree. */
function parseHtml(html: string): El {
  const root: El = { tag: "#root", attrs: {}, children: [] };
  const stack: El[] = [root];
  const re =
    /<!--[\s\S]*?-->|<\/([a-zA-Z][\w-]*)\s*>|<([a-zA-Z][\w-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*(\/?)>|([^<]+|<)/g;
  for (const m of html.matchAll(re)) {
    const top = stack[stack.length - 1]!;
    if (m[1]) {
      const name = m[1].toLowerCase();
      const idx = stack.map((e) => e.tag).lastIndexOf(name);
      if (idx > 0) stack.length = idx;
    } else if (m[2]) {
      const el: El = { tag: m[2].toLowerCase(), attrs: {}, children: [] };
      for (const a of (m[3] ?? "").matchAll(
        /([^\s=>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g,
      )) {
        el.attrs[a[1]!] = decode(a[2] ?? a[3] ?? a[4] ?? "");
      }
      top.children.push(el);
      if (!m[4] && !VOID.has(el.tag)) stack.push(el);
    } else if (m[5] !== undefined) {
      top.children.push(decode(m[5]));
    }
  }
  return root;
}

const SKIP_ATTRS = new Set([
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
  "data-av-id",
  "data-av-type",
]);

function ial(el: El, extra: string[] = []): string {
  const pairs: string[] = [];
  const id = el.attrs["data-node-id"];
  if (id) pairs.push(`id="${id}"`);
  for (const [k, v] of Object.entries(el.attrs)) {
    if (!SKIP_ATTRS.has(k)) pairs.push(`${k}="${v.replace(/"/g, "&quot;")}"`);
  }
  pairs.push(...extra);
  return pairs.length > 0 ? `{: ${pairs.join(" ")}}` : "";
}

const MARKS: Record<string, [string, string]> = {
  strong: ["**", "**"],
  em: ["*", "*"],
  s: ["~~", "~~"],
  mark: ["==", "=="],
  code: ["`", "`"],
  tag: ["#", "#"],
  u: ["<u>", "</u>"],
  kbd: ["<kbd>", "</kbd>"],
  sup: ["<sup>", "</sup>"],
  sub: ["<sub>", "</sub>"],
};

function inline(nodes: Array<El | string>): string {
  let out = "";
  for (const n of nodes) {
    if (typeof n === "string") {
      out += n.replace(/\u200b/g, "");
      continue;
    }
    const types = (n.attrs["data-type"] ?? "").split(/\s+/).filter(Boolean);
    const text = inline(n.children);
    if (n.tag === "br") out += "\n";
    else if (types.includes("block-ref")) {
      const quote = n.attrs["data-subtype"] === "d" ? "'" : '"';
      out += `((${n.attrs["data-id"] ?? ""} ${quote}${text}${quote}))`;
    } else if (types.includes("a")) out += `[${text}](${n.attrs["data-href"] ?? ""})`;
    else if (types.includes("inline-math")) out += `$${n.attrs["data-content"] ?? ""}$`;
    else {
      let t = text;
      for (const ty of [...types].reverse()) {
        const mk = MARKS[ty];
        if (mk) t = mk[0] + t + mk[1];
      }
      out += t;
    }
  }
  return out;
}

const elems = (el: El): El[] => el.children.filter((c): c is El => typeof c !== "string");
const editableOf = (el: El): El | undefined =>
  elems(el).find((c) => c.attrs.contenteditable === "true");
const blockKids = (el: El): El[] =>
  elems(el).filter((c) => c.attrs["data-node-id"] || c.attrs["data-type"]?.startsWith("Node"));

function block(el: El): string {
  const type = el.attrs["data-type"] ?? "";
  const ed = editableOf(el);
  switch (type) {
    case "NodeParagraph":
      return `${inline(ed?.children ?? [])}\n${ial(el)}`;
    case "NodeHeading": {
      const n = Number((el.attrs["data-subtype"] ?? "h1").slice(1)) || 1;
      return `${"#".repeat(n)} ${inline(ed?.children ?? [])}\n${ial(el)}`;
    }
    case "NodeCodeBlock": {
      const lang = elems(elems(el)[0] ?? el)[0];
      const info = lang ? inline(lang.children) : "";
      return "```" + info + "\n" + inline(ed?.children ?? []) + "\n```\n" + ial(el);
    }
    case "NodeMathBlock":
      return `$$\n${el.attrs["data-content"] ?? ""}\n$$\n${ial(el)}`;
    case "NodeAttributeView":
      return `${avBlockMarkdown(el.attrs["data-av-id"] ?? "", el.attrs["data-av-type"] ?? "")}\n${ial(el)}`;
    case "NodeThematicBreak":
      return `---\n${ial(el)}`;
    case "NodeBlockquote":
      return `${blockKids(el)
        .map(block)
        .join("\n\n")
        .split("\n")
        .map((l) => (l ? `> ${l}` : ">"))
        .join("\n")}\n${ial(el)}`;
    case "NodeList": {
      const sub = el.attrs["data-subtype"] ?? "u";
      const items = blockKids(el).map((it, i) => {
        const marker = sub === "o" ? `${i + 1}.` : "*";
        const pad = " ".repeat(marker.length + 1);
        const task =
          sub === "t" ? (it.attrs.class?.includes("protyle-task--done") ? "[X] " : "[ ] ") : "";
        const body = blockKids(it).map(block).join("\n").split("\n");
        return `${marker} ${ial(it)}${task}${body[0] ?? ""}${body
          .slice(1)
          .map((l) => `\n${l ? pad + l : ""}`)
          .join("")}`;
      });
      return `${items.join("\n")}\n${ial(el)}`;
    }
    case "NodeSuperBlock":
    case "NodeDocument":
      return blockKids(el).map(block).join("\n\n");
    default:
      return ed ? `${inline(ed.children)}\n${ial(el)}` : inline(el.children);
  }
}

/** Converts protyle block DOM to kramdown; plain inline HTML becomes one paragraph. */
export function domToMarkdown(dom: string): string {
  const root = parseHtml(dom);
  const blocks = blockKids(root);
  if (blocks.length === 0) return inline(root.children);
  return blocks.map(block).join("\n\n");
}

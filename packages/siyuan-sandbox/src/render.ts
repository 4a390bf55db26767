/** Renderers: kramdown with IAL lines (contract §3.1), block DOM (§3.2), plain text, export Markdown. */
import { avBlockMarkdown } from "./av-block.js";
import { type Block, headingLevel, LUTE_NODE_NAMES } from "./block.js";
import { NODE_ID_SOURCE } from "./clock.js";
import { escapeIalValue, type InlineSegment, parseInline, startsBlock } from "./markdown.js";

/** Escapes paragraph lines that would otherwise open a block when re-parsed. */
function escapeParagraph(text: string): string {
  return text
    .split("\n")
    .map((l) => {
      if (!startsBlock(l)) return l;
      const ordered = /^(\s*\d+)([.)])/.exec(l);
      return ordered ? `${ordered[1]}\\${l.slice(ordered[1]!.length)}` : `\\${l}`;
    })
    .join("\n");
}

/** HTML-escapes text for element content and attribute values. */
export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** Go's `html.EscapeString`, as the kernel's `util.EscapeHTML` applies it (blank text kept as is). */
export function goEscapeHtml(s: string): string {
  if (s.trim() === "") return s;
  return s
    .replace(/&/g, "&amp;")
    .replace(/'/g, "&#39;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&#34;");
}

/** The HTML entities Lute decodes in text that the sandbox decodes too (others it leaves alone). */
export const LUTE_ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  copy: "\u00a9",
  reg: "\u00ae",
};

const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]*));/g;

/**
 * HTML entities decoded as Go's `html.UnescapeString` and Lute do for the ones the sandbox knows
 * (numeric ones, {@link LUTE_ENTITIES}); `unknown` answers any other named entity.
 */
export function decodeLuteEntities(s: string, unknown: (entity: string) => string): string {
  return s.replace(ENTITY, (m, dec?: string, hex?: string, name?: string) => {
    if (dec !== undefined || hex !== undefined) {
      const cp = dec !== undefined ? Number(dec) : Number.parseInt(hex ?? "", 16);
      return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : "\ufffd";
    }
    return LUTE_ENTITIES[name ?? ""] ?? unknown(m);
  });
}

/** Lute's editor text: entities decoded, then `&`, `<`, `>` and `"` escaped, not `'`. */
export function luteEscapeText(s: string): string {
  const decoded = decodeLuteEntities(s, (m) => m);
  return decoded
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

/** The IAL text `{: id="…" k="v"}`: `id` first, then the other pairs in stored order. */
export function ialString(attrs: Record<string, string>): string {
  const pairs: string[] = [];
  if (attrs.id !== undefined) pairs.push(`id="${escapeIalValue(attrs.id)}"`);
  for (const [k, v] of Object.entries(attrs)) {
    if (k !== "id") pairs.push(`${k}="${escapeIalValue(v)}"`);
  }
  return `{: ${pairs.join(" ")}}`;
}

/** Options of the kramdown renderer. */
export interface KramdownOptions {
  /** Emit IAL lines (false gives plain Markdown, as exportMdContent). */
  withIal: boolean;
  /** Replace block references by their anchor text (export). */
  refsAsText?: boolean;
  /** `textmark` mode: inline marks as `<span data-type="…">` instead of Markdown markers. */
  textmark?: boolean;
}

/** A block reference `((id "static anchor"))` / `((id 'dynamic anchor'))` anywhere in a text. */
const REF_WITH_ANCHOR = new RegExp(
  String.raw`\(\((${NODE_ID_SOURCE})(?:\s+(?:"([^"]*)"|'([^']*)'))?\)\)`,
  "g",
);

function inlineMd(text: string, opts: KramdownOptions): string {
  if (opts.textmark) return inlineDom(text);
  if (!opts.refsAsText) return text;
  return text.replace(REF_WITH_ANCHOR, (_m, id: string, s?: string, d?: string) => s ?? d ?? id);
}

const indentLines = (s: string, prefix: string): string =>
  s
    .split("\n")
    .map((l) => (l === "" ? "" : prefix + l))
    .join("\n");

/** Kramdown (or plain Markdown) of a block subtree. */
export function renderKramdown(b: Block, opts: KramdownOptions = { withIal: true }): string {
  const ial = opts.withIal ? `\n${ialString(b.attrs)}` : "";
  switch (b.type) {
    case "p":
      // an empty paragraph is its IAL line alone (Lute writes no blank line before it)
      if (b.text === "" && opts.withIal) return ialString(b.attrs);
      return (
        (opts.textmark ? inlineMd(b.text, opts) : escapeParagraph(inlineMd(b.text, opts))) + ial
      );
    case "h":
      return `${"#".repeat(headingLevel(b))} ${inlineMd(b.text, opts)}${ial}`;
    case "c": {
      // a fence longer than any backtick run inside the code
      const longest = Math.max(0, ...(b.text.match(/`+/g) ?? []).map((r) => r.length));
      const fence = "`".repeat(Math.max(3, longest + 1));
      return `${fence}${b.lang}\n${b.text}\n${fence}${ial}`;
    }
    case "m":
      return `$$\n${b.text}\n$$${ial}`;
    case "tb":
      return `---${ial}`;
    case "html":
      return b.text + ial;
    case "av":
      return avBlockMarkdown(b.text, b.lang) + ial;
    case "b": {
      // with IALs Lute ends every child with a blank line, so the quote ends with a `>` line
      const inner = b.children.map((c) => renderKramdown(c, opts)).join("\n\n");
      return (
        (opts.withIal ? `${inner}\n` : inner)
          .split("\n")
          .map((l) => (l === "" ? ">" : `> ${l}`))
          .join("\n") + ial
      );
    }
    case "s":
      return `{{{row\n${b.children.map((c) => renderKramdown(c, opts)).join("\n\n")}\n}}}${ial}`;
    case "l":
      return (
        b.children.map((it, idx) => renderItem(b, it, listStart(b) + idx - 1, opts)).join("\n") +
        ial
      );
    case "i":
      return renderItem(null, b, 0, opts);
    case "d": {
      const body = b.children.map((c) => renderKramdown(c, opts)).join("\n\n");
      if (!opts.withIal) return body;
      return body === "" ? ialString(b.attrs) : `${body}\n\n${ialString(b.attrs)}`;
    }
  }
}

/**
 * The number of an ordered list's first item: Lute keeps the source's start (`2. y` stays 2) and
 * numbers the others on from it (kernel-probes block.appendBlock.mixed-lists).
 */
function listStart(list: Block): number {
  const n = Number.parseInt(list.children[0]?.marker ?? "", 10);
  return Number.isFinite(n) ? n : 1;
}

/**
 * One list item as SiYuan 3.7.3 writes it: `-` for bullet and task items (whatever the source
 * used), `N.` for ordered ones, and a blank line between the blocks inside the item.
 */
function renderItem(list: Block | null, item: Block, idx: number, opts: KramdownOptions): string {
  const sub = list?.subtype ?? item.subtype;
  const marker = sub === "o" ? `${idx + 1}.` : "-";
  const pad = " ".repeat(marker.length + 1);
  const task = sub === "t" ? (item.checked ? "[X] " : "[ ] ") : "";
  const head = `${marker} ${opts.withIal ? ialString(item.attrs) : ""}${task}`;
  const body = item.children
    .map((c, i) =>
      // an empty first paragraph keeps its IAL on the next line, apart from the item's
      i === 0 && c.type === "p" && c.text === "" && opts.withIal
        ? `\n${ialString(c.attrs)}`
        : renderKramdown(c, opts),
    )
    .join("\n\n");
  const [first = "", ...rest] = body.split("\n");
  return rest.length === 0 ? head + first : `${head}${first}\n${indentLines(rest.join("\n"), pad)}`;
}

const STATIC_CONTAINERS: ReadonlySet<string> = new Set(["l", "i", "b", "s"]);

/** Text of one leaf block as the kernel's `nodeStaticContent` writes it. */
function leafStaticText(b: Block): string {
  switch (b.type) {
    case "p":
    case "h":
      return parseInline(b.text)
        .map((seg) => {
          let t = seg.types.includes("tag") ? `#${seg.text}#` : seg.text;
          if (seg.types.includes("a") && seg.href) t += ` ${seg.href}`;
          return t;
        })
        .join("");
    case "c":
      return `${b.text}\n`;
    case "m":
    case "html":
      return b.text;
    default:
      return "";
  }
}

/**
 * The kernel's `nodeStaticContent` (SQL `content`, `getChildBlocks` `content`): a document's
 * title; a leaf's text (marks dropped, tags kept as `#t#`, a link followed by its URL, a code
 * block's code with its final newline); a container's leaves in order, with one space written on
 * entering a container unless the last thing written was that space (so `" item a item b"` for a
 * list, `" q1q2"` for a quote of two paragraphs).
 */
export function staticContent(b: Block): string {
  if (b.type === "d") return b.attrs.title ?? "";
  let out = "";
  let lastSpace = false;
  const visit = (n: Block): void => {
    if (STATIC_CONTAINERS.has(n.type)) {
      if (!lastSpace) {
        out += " ";
        lastSpace = true;
      }
      for (const c of n.children) visit(c);
      return;
    }
    out += leafStaticText(n);
    lastSpace = false;
  };
  visit(b);
  return out;
}

/** The first leaf block inside a container (depth first), or the block itself. */
export function firstLeafBlock(b: Block): Block {
  let n = b;
  while (STATIC_CONTAINERS.has(n.type) && n.children[0]) n = n.children[0];
  return n;
}

/** Plain text of a block (SQL `content`): inline text for leaves, joined leaf text for containers, title for docs. */
export function plainContent(b: Block): string {
  switch (b.type) {
    case "d":
      return b.attrs.title ?? "";
    case "p":
    case "h":
      return parseInline(b.text)
        .map((s) => s.text)
        .join("");
    case "c":
    case "m":
    case "html":
      return b.text;
    case "tb":
    case "av":
      return "";
    default:
      return b.children
        .map(plainContent)
        .filter((s) => s !== "")
        .join(" ");
  }
}

function segmentDom(
  seg: InlineSegment,
  escapeText: (s: string) => string = escapeHtml,
  lute = false,
): string {
  const text = escapeText(seg.text);
  if (seg.types.length === 0) return text;
  if (lute && seg.types.length === 1 && seg.types[0] === "code") {
    return `<span data-type="code">\u200b${text}</span>\u200b`;
  }
  if (seg.types.includes("block-ref")) {
    return `<span data-type="block-ref" data-subtype="${seg.refSubtype ?? "s"}" data-id="${seg.refId ?? ""}">${text}</span>`;
  }
  if (seg.types.includes("a")) {
    const other = seg.types.filter((t) => t !== "a");
    return `<span data-type="${["a", ...other].join(" ")}" data-href="${escapeHtml(seg.href ?? "")}">${text}</span>`;
  }
  if (seg.types.includes("inline-math")) {
    return `<span data-type="inline-math" data-subtype="math" data-content="${text}" contenteditable="false" class="render-node"></span>`;
  }
  return `<span data-type="${seg.types.join(" ")}">${text}</span>`;
}

/** DOM of inline Markdown (the content of a paragraph or heading); `escapeText` writes text runs. */
export function inlineDom(
  text: string,
  escapeText: (s: string) => string = escapeHtml,
  lute = false,
): string {
  const segs = parseInline(text);
  // Lute's editor tree holds a zero-width space before inline code that opens the block
  const lead = lute && segs[0]?.types.length === 1 && segs[0].types[0] === "code" ? "\u200b" : "";
  return lead + segs.map((seg) => segmentDom(seg, escapeText, lute)).join("");
}

function attrsHtml(attrs: Record<string, string>): string {
  let s = "";
  for (const [k, v] of Object.entries(attrs)) if (k !== "id") s += ` ${k}="${escapeHtml(v)}"`;
  return s;
}

const BADGES: ReadonlyArray<[string, string]> = [
  ["bookmark", "iconBookmark"],
  ["name", "iconN"],
  ["alias", "iconA"],
  ["memo", "iconM"],
];

function protyleAttr(attrs: Record<string, string>): string {
  let badges = "";
  for (const [k, icon] of BADGES) {
    const v = attrs[k];
    if (v)
      badges += `<div class="protyle-attr--${k}"><svg><use xlink:href="#${icon}"></use></svg>${escapeHtml(v)}</div>`;
  }
  return `<div class="protyle-attr" contenteditable="false">${badges}\u200b</div>`;
}

const editable = (inner: string): string =>
  `<div contenteditable="true" spellcheck="false">${inner}</div>`;

/**
 * Block DOM as Lute's protyle renderer writes it: outer attributes in the order
 * data-subtype (headings, lists), data-node-id, data-node-index (document children only),
 * data-type, class, then every IAL pair except id. `lute`: as SiYuan 3.7.3's `Tree2BlockDOM` writes
 * what the other readers here approximate (kernel-probes `template.render.kramdown`): zero-width
 * spaces around inline code, a code block's copy and menu icons.
 */
export function renderDom(b: Block, index?: number, listSubtype?: string, lute = false): string {
  const idx = index === undefined ? "" : ` data-node-index="${index}"`;
  const head = (cls: string, pre = ""): string =>
    `<div${pre} data-node-id="${b.id}"${idx} data-type="${LUTE_NODE_NAMES[b.type]}" class="${cls}"${attrsHtml(b.attrs)}>`;
  const tail = `${protyleAttr(b.attrs)}</div>`;
  switch (b.type) {
    case "d":
      return b.children.map((c, i) => renderDom(c, i + 1, undefined, lute)).join("");
    case "p":
      return (
        head("p") + editable(inlineDom(b.text, lute ? luteEscapeText : escapeHtml, lute)) + tail
      );
    case "h":
      return (
        head(b.subtype, ` data-subtype="${b.subtype}"`) +
        editable(inlineDom(b.text, lute ? luteEscapeText : escapeHtml, lute)) +
        tail
      );
    case "c":
      if (lute && LUTE_RENDER_LANGS.has(b.lang)) {
        return (
          `<div data-node-id="${b.id}"${idx} data-type="NodeCodeBlock" class="render-node"${attrsHtml(b.attrs)} data-content="${escapeHtml(b.text)}" data-subtype="${b.lang}">` +
          `<div spin="1"></div>${tail}`
        );
      }
      if (lute) return head("code-block") + luteCodeBlock(b) + tail;
      return (
        head("code-block") +
        `<div class="protyle-action"><span class="protyle-action--first protyle-action__language" contenteditable="false">${escapeHtml(b.lang)}</span></div>` +
        editable(escapeHtml(b.text)) +
        tail
      );
    case "m":
      if (lute) {
        return (
          `<div data-node-id="${b.id}"${idx} data-type="NodeMathBlock" class="render-node"${attrsHtml(b.attrs)} data-content="${escapeHtml(b.text)}" data-subtype="math">` +
          `<div spin="1"></div>${tail}`
        );
      }
      return (
        `<div data-node-id="${b.id}"${idx} data-type="NodeMathBlock" class="render-node" data-subtype="math" data-content="${escapeHtml(b.text)}"${attrsHtml(b.attrs)}>` +
        `<div spin="1"></div>${tail}`
      );
    case "tb":
      return `${head("hr")}<div></div></div>`;
    case "av":
      return `<div contenteditable="false" data-av-id="${escapeHtml(b.text)}" data-av-type="${escapeHtml(b.lang || "table")}" data-node-id="${b.id}"${idx} data-type="NodeAttributeView" class="av"${attrsHtml(b.attrs)}><div spellcheck="false"></div>${tail}`;
    case "html":
      return `${head("render-node")}<div><protyle-html data-content="${escapeHtml(b.text)}"></protyle-html></div>${tail}`;
    case "b":
      return (
        head("bq") + b.children.map((c) => renderDom(c, undefined, undefined, lute)).join("") + tail
      );
    case "s":
      return (
        head("sb") + b.children.map((c) => renderDom(c, undefined, undefined, lute)).join("") + tail
      );
    case "l":
      return (
        head("list", ` data-subtype="${b.subtype}"`) +
        b.children.map((c, i) => renderItemDom(c, b.subtype, i, lute, listStart(b))).join("") +
        tail
      );
    case "i":
      return renderItemDom(b, listSubtype ?? b.subtype, 0, lute);
  }
}

/** Code languages Lute writes as a render node (a diagram or chart), not as code. */
export const LUTE_RENDER_LANGS: ReadonlySet<string> = new Set([
  "mermaid",
  "abc",
  "echarts",
  "plantuml",
  "flowchart",
  "graphviz",
  "mindmap",
]);

/** A code block's body as Lute's protyle renderer writes it (language, copy and menu, hljs). */
function luteCodeBlock(b: Block): string {
  const icon = (pos: string, action: string, use: string): string =>
    `<span class="ariaLabel protyle-icon protyle-icon--${pos} protyle-action__${action}" data-position="4north"><svg><use xlink:href="#${use}"></use></svg></span>`;
  return (
    `<div class="protyle-action"><span class="protyle-action--first protyle-action__language" contenteditable="false">${escapeHtml(b.lang)}</span><span class="fn__flex-1"></span>` +
    icon("first", "copy", "iconCopy") +
    icon("last", "menu", "iconMore") +
    `</div><div class="hljs"><div></div><div contenteditable="true" style="flex: 1" spellcheck="false">${b.text === "" ? "" : `${escapeHtml(b.text)}\n`}</div></div>`
  );
}

function renderItemDom(item: Block, sub: string, i: number, lute = false, start = 1): string {
  const marker = sub === "o" ? `${start + i}.` : "*";
  const cls = sub === "t" && item.checked ? "li protyle-task--done" : "li";
  const action =
    sub === "o"
      ? `<div class="protyle-action protyle-action--order" contenteditable="false" draggable="true">${marker}</div>`
      : sub === "t"
        ? `<div class="protyle-action protyle-action--task" draggable="true"><svg><use xlink:href="#icon${item.checked ? "Check" : "Uncheck"}"></use></svg></div>`
        : `<div class="protyle-action" draggable="true"><svg><use xlink:href="#iconDot"></use></svg></div>`;
  const task = sub === "t" ? ` data-task="${item.checked ? "X" : " "}"` : "";
  return (
    `<div data-marker="${marker}" data-subtype="${sub}"${task} data-node-id="${item.id}" data-type="NodeListItem" class="${cls}"${attrsHtml(item.attrs)}>` +
    action +
    item.children.map((c) => renderDom(c, undefined, undefined, lute)).join("") +
    `${protyleAttr(item.attrs)}</div>`
  );
}

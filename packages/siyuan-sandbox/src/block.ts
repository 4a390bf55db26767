/** The in-memory block tree: one Block per SiYuan node (documents included). */

/** SQL `type` letters (contract §2.3) that the sandbox produces. */
export type BlockType = "d" | "h" | "l" | "i" | "c" | "m" | "b" | "s" | "p" | "tb" | "html" | "av";

/** A block node. `attrs` always holds `id` (kept equal to `id`) and usually `updated`. */
export interface Block {
  id: string;
  type: BlockType;
  /** `h1`..`h6` for headings, `u`/`o`/`t` for lists and items, "" otherwise. */
  subtype: string;
  /** IAL pairs, raw (unescaped) values, insertion-ordered. */
  attrs: Record<string, string>;
  /** Child blocks of containers (d, b, l, i, s). */
  children: Block[];
  /** Inline Markdown of p/h, code text of c, TeX of m, raw HTML of html, AttributeViewID of av. */
  text: string;
  /** Info string of a code block; AttributeViewType (`table|gallery|kanban`) of av. */
  lang: string;
  /** List-item marker as written (`*`, `-`, `1.`). */
  marker: string;
  /** Task-item state. */
  checked: boolean;
}

/** Container types: they accept children through `parentID` (contract §2.3). */
export const CONTAINER_TYPES: ReadonlySet<BlockType> = new Set(["d", "b", "l", "i", "s"]);

/** Full Lute node names by type letter. */
export const LUTE_NODE_NAMES: Readonly<Record<BlockType, string>> = {
  d: "NodeDocument",
  h: "NodeHeading",
  l: "NodeList",
  i: "NodeListItem",
  c: "NodeCodeBlock",
  m: "NodeMathBlock",
  b: "NodeBlockquote",
  s: "NodeSuperBlock",
  p: "NodeParagraph",
  tb: "NodeThematicBreak",
  html: "NodeHTMLBlock",
  av: "NodeAttributeView",
};

/** A new block with empty fields. */
export function newBlock(type: BlockType, init: Partial<Block> = {}): Block {
  return {
    id: "",
    type,
    subtype: "",
    attrs: {},
    children: [],
    text: "",
    lang: "",
    marker: "",
    checked: false,
    ...init,
  };
}

/** Deep copy of a block subtree. */
export function cloneBlock(b: Block): Block {
  return { ...b, attrs: { ...b.attrs }, children: b.children.map(cloneBlock) };
}

/** Visits `b` and its descendants, depth first, parents before children. */
export function walk(
  b: Block,
  fn: (node: Block, parent: Block | null) => void,
  parent: Block | null = null,
): void {
  fn(b, parent);
  for (const c of b.children) walk(c, fn, b);
}

/** Heading level 1..6 (0 when not a heading). */
export function headingLevel(b: Block): number {
  return b.type === "h" ? Number(b.subtype.slice(1)) || 1 : 0;
}

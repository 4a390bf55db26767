/**
 * One name per block type in every answer: the `blocks.type` letters of SiYuan's SQL index
 * (`search.sql`, `system.bootstrap`'s `sql`), also for the answers whose kernel call names a
 * block by its Lute node type (`NodeParagraph`), as SiYuan's full-text search does.
 */

/** SiYuan's abbreviation of each Lute node type that is a block (its `treenode.TypeAbbr`). */
const SQL_TYPE_OF_NODE: Readonly<Record<string, string>> = {
  NodeDocument: "d",
  NodeHeading: "h",
  NodeList: "l",
  NodeListItem: "i",
  NodeCodeBlock: "c",
  NodeMathBlock: "m",
  NodeTable: "t",
  NodeBlockquote: "b",
  NodeCallout: "callout",
  NodeSuperBlock: "s",
  NodeParagraph: "p",
  NodeHTMLBlock: "html",
  NodeBlockQueryEmbed: "query_embed",
  NodeAttributeView: "av",
  NodeKramdownBlockIAL: "ial",
  NodeIFrame: "iframe",
  NodeWidget: "widget",
  NodeThematicBreak: "tb",
  NodeVideo: "video",
  NodeAudio: "audio",
};

/** The `blocks.type` letter of a Lute node type; a name it does not know is answered as given. */
export function sqlBlockType(nodeType: unknown): string {
  const name = String(nodeType ?? "");
  return SQL_TYPE_OF_NODE[name] ?? name;
}

/**
 * `blocks` with each ID once (the first): SiYuan 3.7.3's full-text search lists a block twice
 * when its index holds it twice (kernel-probes `sql.notebook-index`).
 */
export function eachBlockOnce<B extends Record<string, unknown>>(blocks: readonly B[]): B[] {
  const seen = new Set<unknown>();
  return blocks.filter((b) => !seen.has(b["id"]) && seen.add(b["id"]) !== undefined);
}

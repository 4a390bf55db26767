/**
 * search reads of issue 34 beside sql and fulltext: `refs` (SiYuan's `((` reference search: the
 * blocks a reference typed as the keyword could point to, ranked as the editor ranks them),
 * `asset_content` (the text SiYuan indexes inside asset files) and `semantic` (SiYuan's embedding
 * search; `unsupported` while the embedding is off, since the kernel then answers nothing at all).
 * Blocks of notebooks the caller may not read are withheld; asset files are the workspace's.
 */
import { notFound, ToolError } from "../errors.js";
import { type ArgsOf, readAction, type ToolContext } from "../handler.js";
import type { SearchBlockHit } from "../kernel.js";
import { readableItems } from "./listing.js";
import { snippetOf } from "./snippet.js";

/** One block hit as answers show it: where it is and its text without the kernel's marks. */
const shownHit = (b: SearchBlockHit) => ({
  id: b.id,
  type: b.type,
  docID: b.docID,
  notebook: b.notebook,
  hpath: b.hpath,
  snippet: snippetOf(b.content),
});

/**
 * Whether SiYuan's semantic search can answer: its embedding is enabled and has an API key (the
 * kernel's `isEmbeddingEnabled`); otherwise `semanticSearchBlock` answers no blocks, whatever the
 * query, which would read as "nothing matches".
 */
export function embeddingOn(conf: Readonly<Record<string, unknown>>): boolean {
  const ai = (conf["ai"] ?? {}) as Record<string, unknown>;
  const e = (ai["embedding"] ?? {}) as Record<string, unknown>;
  return e["enabled"] === true && typeof e["apiKey"] === "string" && e["apiKey"] !== "";
}

/** search.refs: blocks a reference could point to; `id`'s block and document are left out. */
const refs = readAction({
  run: async (ctx: ToolContext, a: ArgsOf<"search", "refs">) => {
    let rootID = "";
    if (a.id !== undefined) {
      const info = await ctx.kernel.getBlockInfo(a.id);
      if (info === null) throw notFound("block", a.id);
      rootID = info.rootID;
    }
    const found = await ctx.kernel.searchRefBlock(a.keyword, a.id ?? "", rootID);
    const { kept, withheld } = readableItems(ctx.permissions, found, (b) => b.notebook);
    return {
      hits: kept.map((b) => ({ ...shownHit(b), refText: b.refText })),
      ...withheld,
    };
  },
});

/** search.asset_content: indexed asset files whose text or name holds the query, one page. */
const assetContent = readAction({
  run: async (ctx: ToolContext, a: ArgsOf<"search", "asset_content">) => {
    const found = await ctx.kernel.searchAssetContent(a.query, a.page, a.pageSize);
    const paging = {
      page: a.page,
      pageSize: a.pageSize,
      pageCount: found.pageCount,
      matched: found.matched,
    };
    // `data/assets/` is the workspace's: its default permission decides (as search.assets)
    if (ctx.permissions.default === "none" && found.hits.length > 0) {
      return {
        hits: [],
        ...paging,
        withheld: found.hits.length,
        withheldReason: "workspace assets need the default read permission",
      };
    }
    return {
      hits: found.hits.map((h) => ({
        path: h.path,
        name: h.name,
        ext: h.ext,
        size: h.size,
        updated: h.updated,
        snippet: snippetOf(h.content),
      })),
      ...paging,
    };
  },
});

/** search.semantic: blocks nearest in meaning, or `unsupported` while the embedding is off. */
const semantic = readAction({
  run: async (ctx: ToolContext, a: ArgsOf<"search", "semantic">) => {
    if (!embeddingOn(await ctx.kernel.systemConf())) {
      throw new ToolError(
        "unsupported",
        "SiYuan's semantic search is off: it needs an embedding model (SiYuan settings → AI → Embedding, enabled with an API key); search.fulltext finds words instead",
        { reason: "embedding_off" },
      );
    }
    const found = await ctx.kernel.semanticSearch(a.query, a.page, a.pageSize);
    const { kept, withheld } = readableItems(ctx.permissions, found.hits, (b) => b.notebook);
    return {
      hits: kept.map(shownHit),
      page: a.page,
      pageSize: a.pageSize,
      pageCount: found.pageCount,
      matched: found.matched,
      ...withheld,
    };
  },
});

/** The search reads of this file. */
export const searchMoreReads = { refs, asset_content: assetContent, semantic };

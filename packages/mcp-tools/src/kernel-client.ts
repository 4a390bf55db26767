/**
 * Adapts `@sisyphus/siyuan-api`'s client to the tools' kernel ports ({@link KernelReads},
 * {@link KernelWrites}): one client call per
 * port method, and the kernel's "unknown ID" answers (code -1 "tree not found" / "not found") on
 * reads turned into `null`. Writes pass the client's errors through unchanged, so the coordinator
 * can tell "not dispatched" from "outcome unknown".
 */
import { isSiyuanApiError, type SiyuanClient } from "@sisyphus/siyuan-api/kernel";
import type {
  AvFile,
  AvKey,
  AvRender,
  BlockInfo,
  DocList,
  KernelReads,
  KernelWrites,
  NewAvColumn,
  NotebookRow,
  OutlineHeading,
  RecentBlock,
  RefDoc,
  RenderedTemplate,
  RiffDeck,
  RiffDue,
  SearchBlockHit,
  UploadAnswer,
} from "./kernel.js";

/** Go's zero `time.Time` as JSON: a card never rated has it as `lastReview`. */
const GO_ZERO_TIME = "0001-01-01T00:00:00Z";
/** Go's zero `time.Time` in Unix ms, as the due list answers a card never rated. */
const GO_ZERO_TIME_MS = -62135596800000;

function deckOf(d: RiffDeck): RiffDeck {
  return { id: d.id, name: d.name, size: d.size, created: d.created, updated: d.updated };
}

function dueOf(d: Awaited<ReturnType<SiyuanClient["riff"]["getRiffDueCards"]>>): RiffDue {
  return {
    cards: d.cards.map((c) => ({
      deckId: c.deckID,
      cardId: c.cardID,
      blockId: c.blockID,
      reps: c.reps,
      lapses: c.lapses,
      state: c.state,
      lastReview: c.lastReview === GO_ZERO_TIME_MS ? null : new Date(c.lastReview).toISOString(),
      nextDues: c.nextDues,
    })),
    unreviewed: d.unreviewedCount,
    unreviewedNew: d.unreviewedNewCardCount,
    unreviewedOld: d.unreviewedOldCardCount,
  };
}

/** A block of the kernel's `model.Block` JSON as a one-line `RecentBlock` (recent updates, invalid refs). */
function blockLine(b: {
  id: string;
  box: string;
  rootID: string;
  hPath?: string | undefined;
  content: string;
  ial?: Record<string, string> | null | undefined;
}): RecentBlock {
  return {
    id: b.id,
    notebook: b.box,
    docID: b.rootID,
    hpath: b.hPath ?? "",
    content: b.content,
    updated: b.ial?.["updated"] ?? "",
  };
}

/** Runs a read; a kernel rejection with code -1 (unknown ID) becomes `null`. */
async function orNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (e) {
    if (isSiyuanApiError(e) && e.code === "kernel_rejected" && e.details.kernelCode === -1)
      return null;
    throw e;
  }
}

/**
 * A `/api/template/render` rejection as the port answers it, `null` for any other failure. 3.7.3
 * answers code -1 with "tree not found" for an unknown block, the Go error "open …: no such file
 * or directory" for a missing file, and its Language(44) "Parse template failed: …" (HTML-escaped)
 * for a template that does not parse or run (kernel-probes template.render.*).
 */
function templateRefusal(e: unknown): RenderedTemplate | null {
  if (!isSiyuanApiError(e) || e.code !== "kernel_rejected" || e.details.kernelCode !== -1)
    return null;
  const msg = e.details.kernelMessage ?? "";
  if (msg === "tree not found" || msg === "block not found") return { kind: "no_block" };
  if (msg.startsWith("open ") && msg.endsWith(": no such file or directory"))
    return { kind: "no_template" };
  const failed = /^Parse template failed: ([\s\S]*)$/.exec(msg);
  if (failed) return { kind: "template_error", message: failed[1] ?? "" };
  return null;
}

/** The kernel's answer to rendering a database that has no file with `createIfNotExist: false`. */
const AV_NOT_FOUND = "attribute view not found";

/** Runs a database read; the kernel's "attribute view not found" rejection becomes `null`. */
async function avOrNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (e) {
    if (
      isSiyuanApiError(e) &&
      e.code === "kernel_rejected" &&
      (e.details.kernelMessage ?? "").includes(AV_NOT_FOUND)
    )
      return null;
    throw e;
  }
}

function firstNewId(
  transactions: ReadonlyArray<{ doOperations: ReadonlyArray<{ id: string }> | null }>,
): string | null {
  return transactions[0]?.doOperations?.[0]?.id ?? null;
}

function row(b: {
  id: string;
  name: string;
  icon?: string | undefined;
  sort?: number | undefined;
  sortMode?: number | undefined;
  closed: boolean;
}): NotebookRow {
  return {
    id: b.id,
    name: b.name,
    icon: b.icon ?? "",
    sort: b.sort ?? 0,
    sortMode: b.sortMode ?? 15,
    closed: b.closed,
  };
}

function refDoc(p: {
  id: string;
  box: string;
  name: string;
  hPath: string;
  count: number;
}): RefDoc {
  return { id: p.id, notebook: p.box, title: p.name, path: p.hPath, count: p.count };
}

/** A sub-heading as the client returns it (the kernel's `Block`, nested through `children`). */
interface OutlineBlock {
  readonly id: string;
  readonly subType: string;
  readonly content: string;
  readonly children?: readonly OutlineBlock[] | undefined;
}

function outlineChild(b: OutlineBlock): OutlineHeading {
  return {
    id: b.id,
    subType: b.subType,
    html: b.content,
    children: (b.children ?? []).map(outlineChild),
  };
}

/** The MCP version whose stateless mode the kernel's `/mcp` serves (contract §4.11). */
export const KERNEL_MCP_STATELESS_VERSION = "2026-07-28";

/** One stateless JSON-RPC request to the kernel's `/mcp`: no session, the version in a header. */
function mcpSend(
  c: SiyuanClient,
  method: string,
  params: Record<string, unknown>,
  kind: "read" | "write",
) {
  return c.callMcp({
    message: { jsonrpc: "2.0", id: 1, method, params },
    headers: { "mcp-protocol-version": KERNEL_MCP_STATELESS_VERSION, "mcp-method": method },
    kind,
  });
}

/** A batch read's map without the entries the client mapped to `null` (the kernel's empty answer). */
function present(map: Record<string, string | null>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) if (v !== null) out[k] = v;
  return out;
}

/** The tools' kernel ports over a siyuan-api client. */
export function kernelFromClient(client: SiyuanClient): {
  reads: KernelReads;
  writes: KernelWrites;
} {
  return { reads: kernelReads(client), writes: kernelWrites(client) };
}

function kernelReads(c: SiyuanClient): KernelReads {
  return {
    mcpListTools: () => mcpSend(c, "tools/list", {}, "read"),
    getBlockKramdown: async (id) => (await c.block.getBlockKramdown({ id }))?.kramdown ?? null,
    getBlockDOM: async (id) => (await c.block.getBlockDOM({ id }))?.dom ?? null,
    getBlockKramdowns: async (ids) => present(await c.block.getBlockKramdowns({ ids: [...ids] })),
    getBlockDOMs: async (ids) => present(await c.block.getBlockDOMs({ ids: [...ids] })),
    // The smallest load: only the root ID is used.
    getDocRootID: async (id) => (await c.filetree.getDoc({ id, size: 1 }))?.rootID ?? null,
    getBlockAttrs: (id) => c.attr.getBlockAttrs({ id }),
    getChildBlocks: async (id) =>
      (await c.block.getChildBlocks({ id })).map((b) => ({
        id: b.id,
        type: b.type,
        subType: b.subType,
        content: b.content,
      })),
    getBlockInfo: (id) =>
      orNull(async (): Promise<BlockInfo> => {
        const i = await c.block.getBlockInfo({ id });
        return { box: i.box, path: i.path, rootID: i.rootID, rootTitle: i.rootTitle ?? "" };
      }),
    checkBlockExist: (id) => c.block.checkBlockExist({ id }),
    lsNotebooks: async () => (await c.notebook.lsNotebooks()).notebooks.map(row),
    getNotebookConf: (notebook) =>
      orNull(async () => ({ ...(await c.notebook.getNotebookConf({ notebook })).conf })),
    getHPathByID: (id) => orNull(() => c.filetree.getHPathByID({ id })),
    getPathByID: (id) =>
      orNull(async () => {
        const r = await c.filetree.getPathByID({ id });
        return { path: r.path, notebook: r.notebook };
      }),
    getIDsByHPath: async (notebook, path) =>
      (await c.filetree.getIDsByHPath({ notebook, path })) ?? [],
    listDocsByPath: (notebook, path, sort) =>
      orNull(async (): Promise<DocList> => {
        const r = await c.filetree.listDocsByPath({
          notebook,
          path,
          maxListCount: 0,
          ignoreMaxListHint: true,
          ...(sort === undefined ? {} : { sort }),
        });
        return {
          box: r.box,
          path: r.path,
          files: r.files.map((f) => ({
            id: f.id,
            path: f.path,
            name: f.name,
            sort: f.sort ?? 0,
            subFileCount: f.subFileCount ?? 0,
          })),
        };
      }),
    sql: (stmt) => c.query.sql({ stmt }),
    fullTextSearch: (query, page, pageSize) =>
      c.search.fullTextSearchBlock({ query, page, pageSize }),
    version: () => c.system.version(),
    flush: () => c.flush(),
    getFile: async (path) => (await c.file.getFile({ path }))?.bytes ?? null,
    readDir: async (path) =>
      (await c.file.readDir({ path }))?.map((e) => ({
        name: e.name,
        isDir: e.isDir,
        updated: e.updated ?? 0,
      })) ?? null,
    exportMdContent: (id) =>
      orNull(async () => {
        const r = await c.export.exportMdContent({ id });
        // SiYuan 3.7.3 answers an unknown ID with code 0 and empty strings (kernel-probes
        // `export.exportMdContent`); every document has a non-empty hpath
        return r.hPath === "" ? null : { hPath: r.hPath, content: r.content };
      }),
    historyTimes: async (docId, page) => {
      const r = await c.history.searchHistory({ query: docId, type: 3, page });
      return { times: r.histories, pageCount: r.pageCount, totalCount: r.totalCount };
    },
    historyItems: async (created, docId) =>
      (await c.history.getHistoryItems({ created, query: docId, type: 3 })).map((i) => ({
        title: i.title,
        path: i.path,
        op: i.op,
        notebook: i.notebook ?? "",
      })),
    historyContent: async (historyPath) => {
      const r = await c.history.getDocHistoryContent({ historyPath, highlight: false });
      // an unknown path answers code 0 with every field empty (kernel-probes history.doc-points)
      return r.rootID === "" ? null : { content: r.content, markdown: r.isLargeDoc };
    },
    currentTime: () => c.system.currentTime(),
    riffDecks: async () => (await c.riff.getRiffDecks()).map(deckOf),
    riffCards: async (deckId, page, pageSize) => {
      const r = await c.riff.getRiffCards({ id: deckId, page, pageSize });
      return {
        cards: r.blocks.map((b) => {
          const card = b.riffCard;
          const rated = card !== null && (card.reps > 0 || card.lastReview !== GO_ZERO_TIME);
          return {
            blockId: b.id,
            cardId: b.riffCardID,
            notebook: b.box,
            content: b.content,
            // a card never rated shows the time of the call as its due time (SiYuan's getRiffCard)
            due: card !== null && rated ? card.due : null,
            reps: card?.reps ?? 0,
            lapses: card?.lapses ?? 0,
            state: card?.state ?? 0,
            lastReview: card === null || card.lastReview === GO_ZERO_TIME ? null : card.lastReview,
          };
        }),
        total: r.total,
        pageCount: r.pageCount,
      };
    },
    riffDueCards: async (deckId) => dueOf(await c.riff.getRiffDueCards({ deckID: deckId })),
    riffNotebookDueCards: async (notebook) =>
      dueOf(await c.riff.getNotebookRiffDueCards({ notebook })),
    systemConf: async () => (await c.system.getConf()).conf,
    repoKeySet: async () => {
      const repo = (await c.system.getConf()).conf["repo"];
      const key =
        repo !== null && typeof repo === "object" ? (repo as { key?: unknown }).key : null;
      return typeof key === "string" && key !== "";
    },
    repoSnapshots: async (page) => {
      const r = await c.repo.getRepoSnapshots({ page });
      return {
        snapshots: r.snapshots.map((x) => ({
          id: x.id,
          memo: x.memo,
          created: x.created,
          count: x.count,
          size: x.size,
          tag: x.tag,
        })),
        pageCount: r.pageCount,
        totalCount: r.totalCount,
      };
    },
    repoDiff: (left, right) =>
      orNull(async () => {
        const d = await c.repo.diffRepoSnapshots({ left, right });
        const file = (f: { path: string; title: string; updated: number }) => ({
          path: f.path,
          title: f.title,
          updated: f.updated,
        });
        const lefts = new Map(d.updatesLeft.map((f) => [f.path, file(f)]));
        return {
          // SiYuan names them from the kernel's side: `addsLeft` are only in right
          added: d.addsLeft.map(file),
          updated: d.updatesRight.flatMap((f) => {
            const l = lefts.get(f.path);
            return l === undefined ? [] : [{ left: l, right: file(f) }];
          }),
          removed: d.removesRight.map(file),
        };
      }),
    getBacklinks: async (id) => {
      // Sort "3" (updated, newest first) is the kernel's default, sent as the string it requires.
      const r = await c.ref.getBacklink2({ id, k: "", mk: "", sort: "3", mSort: "3" });
      return {
        notebook: r.box ?? "",
        backlinks: r.backlinks.map(refDoc),
        backmentions: r.backmentions.map(refDoc),
      };
    },
    getDocOutline: async (id) =>
      (await c.outline.getDocOutline({ id })).map((h) => ({
        id: h.id,
        subType: h.subType,
        html: h.name,
        children: h.blocks.map(outlineChild),
      })),
    getBlockBreadcrumb: async (id) =>
      (await c.block.getBlockBreadcrumb({ id })).map((e) => ({
        id: e.id,
        name: e.name,
        type: e.type,
        subType: e.subType ?? "",
      })),
    getRecentDocs: async (sortBy) =>
      (await c.storage.getRecentDocs({ sortBy })).map((d) => ({
        id: d.rootID,
        title: d.title ?? "",
        ...(d.viewedAt ? { viewedAt: d.viewedAt } : {}),
        ...(d.openAt ? { openAt: d.openAt } : {}),
        ...(d.closedAt ? { closedAt: d.closedAt } : {}),
      })),
    getAttributeView: async (id) => (await c.av.getAttributeView({ id })).av as AvFile | null,
    renderAttributeView: (id, p) =>
      avOrNull(
        async () =>
          (await c.av.renderAttributeView({
            id,
            ...(p.viewID === undefined ? {} : { viewID: p.viewID }),
            page: p.page,
            pageSize: p.pageSize,
            createIfNotExist: false,
          })) as AvRender,
      ),
    getAttributeViewKeys: async (avID) =>
      (await c.av.getAttributeViewKeysByAvID({ avID })) as AvKey[],
    getBlocksWordCount: async (ids) => {
      const s = await c.block.getBlocksWordCount({ ids: [...ids] });
      return {
        runeCount: s.runeCount,
        wordCount: s.wordCount,
        linkCount: s.linkCount,
        imageCount: s.imageCount,
        refCount: s.refCount,
      };
    },
    getRecentUpdatedBlocks: async () => {
      // SiYuan 3.7.3's index may hold a row twice (kernel-probes reads.getRecentUpdatedBlocks)
      const seen = new Map<string, RecentBlock>();
      for (const b of await c.block.getRecentUpdatedBlocks()) {
        if (seen.has(b.id)) continue;
        seen.set(b.id, blockLine(b));
      }
      return [...seen.values()];
    },
    // An unknown ID: code -1 "tree not found"
    getDocAssets: (id) => orNull(() => c.asset.getDocAssets({ id })),
    getUnusedAssets: async () =>
      (await c.asset.getUnusedAssets()).map((a) => ({ path: a.item, name: a.name })),
    searchTemplate: async (keyword) =>
      (await c.search.searchTemplate({ k: keyword })).templates.map((t) => ({
        path: t.relativePath,
      })),
    renderTemplate: async (path, id) => {
      const { workspaceDir } = await c.system.getWorkspaceInfo();
      try {
        const r = await c.template.render({ id, path: `${workspaceDir}${path}` });
        return { kind: "rendered", dom: r.content };
      } catch (e) {
        const refused = templateRefusal(e);
        if (refused === null) throw e;
        return refused;
      }
    },
    listInvalidBlockRefs: async (page, pageSize) => {
      const r = await c.search.listInvalidBlockRefs({ page, pageSize });
      return {
        blocks: r.blocks.map(blockLine),
        matched: r.matchedBlockCount,
      };
    },
    searchAsset: async (keyword, exts) =>
      (await c.search.searchAsset({ k: keyword, ...(exts.length > 0 ? { exts } : {}) })).map(
        (a) => ({ path: a.path, name: a.hName.replace(/<\/?mark>/g, "") }),
      ),
    avFilterSort: async (avID, blockID) => {
      const r = await c.av.getAttributeViewFilterSort({ id: avID, blockID });
      // both `null` for a database without a file
      return r.filters === null ? null : { filters: r.filters, sorts: r.sorts ?? [] };
    },
    searchAttributeView: async (keyword) =>
      (await c.av.searchAttributeView({ keyword })).results.map((h) => ({
        avID: h.avID,
        name: h.avName,
        blockID: h.blockID,
        hpath: h.hPath,
        views: (h.children ?? []).map((v) => {
          const o = (v ?? {}) as Record<string, unknown>;
          return {
            id: String(o["viewID"] ?? ""),
            name: String(o["viewName"] ?? ""),
            type: String(o["viewLayout"] ?? ""),
          };
        }),
      })),
    avPrimaryKeyValues: async (avID, keyword, limit) => {
      // An unknown database: code -1 "view not found"
      const r = await orNull(() =>
        c.av.getAttributeViewPrimaryKeyValues({ id: avID, keyword, page: 1, pageSize: limit }),
      );
      return r === null ? null : { name: r.name, blockIDs: r.blockIDs, values: r.rows.values };
    },
    searchRefBlock: async (keyword, fromID, rootID) =>
      (await c.search.searchRefBlock({ id: fromID, rootID, k: keyword, beforeLen: 48 })).blocks.map(
        searchHit,
      ),
    searchAssetContent: async (query, page, pageSize) => {
      const r = await c.search.fullTextSearchAssetContent({ query, page, pageSize });
      return {
        hits: r.assetContents.map((a) => ({
          path: a.path,
          name: a.name,
          ext: a.ext,
          size: a.size,
          updated: a.updated,
          content: a.content,
        })),
        matched: r.matchedAssetCount,
        pageCount: r.pageCount,
      };
    },
    semanticSearch: async (query, page, pageSize) => {
      const r = await c.search.semanticSearchBlock({ query, page, pageSize });
      return {
        hits: r.blocks.map(searchHit),
        matched: r.matchedBlockCount,
        pageCount: r.pageCount,
      };
    },
  };
}

/** A block of a search answer (`model.Block`) as {@link SearchBlockHit}. */
function searchHit(b: { id: string; [k: string]: unknown }): SearchBlockHit {
  return {
    id: b.id,
    type: String(b["type"] ?? ""),
    notebook: String(b["box"] ?? ""),
    docID: String(b["rootID"] ?? ""),
    hpath: String(b["hPath"] ?? ""),
    content: String(b["content"] ?? ""),
    refText: String(b["refText"] ?? ""),
  };
}

/** The ops of {@link KernelWrites.addAttrViewColumn}: add the key, then configure it. */
function newColumnOps(col: NewAvColumn): Record<string, unknown>[] {
  const { avID, key, relation: rel, rollup: roll } = col;
  const ops: Record<string, unknown>[] = [
    {
      action: "addAttrViewCol",
      avID,
      id: key.id,
      name: key.name,
      type: key.type,
      previousID: col.previousKeyID,
    },
  ];
  if (rel !== undefined) {
    ops.push({
      action: "updateAttrViewColRelation",
      avID,
      id: rel.destAvID,
      keyID: key.id,
      isTwoWay: rel.isTwoWay,
      backRelationKeyID: rel.backKeyID,
      name: rel.backName,
      format: key.name,
    });
  }
  if (roll !== undefined) {
    ops.push({
      action: "updateAttrViewColRollup",
      avID,
      id: key.id,
      parentID: roll.relationKeyID,
      keyID: roll.targetKeyID,
      data: { calc: { operator: roll.operator } },
    });
  }
  return ops;
}

function kernelWrites(c: SiyuanClient): KernelWrites {
  return {
    insertBlock: async (dataType, data, a) =>
      firstNewId(
        await c.block.insertBlock({
          dataType: dataType as "markdown" | "dom",
          data,
          ...(a.nextID ? { nextID: a.nextID } : {}),
          ...(a.previousID ? { previousID: a.previousID } : {}),
          ...(a.parentID ? { parentID: a.parentID } : {}),
        }),
      ),
    prependBlock: async (dataType, data, parentID) =>
      firstNewId(await c.block.prependBlock({ dataType: dataType as "markdown", data, parentID })),
    appendBlock: async (dataType, data, parentID) =>
      firstNewId(await c.block.appendBlock({ dataType: dataType as "markdown", data, parentID })),
    updateBlock: async (id, dataType, data) => {
      await c.block.updateBlock({ id, dataType: dataType as "markdown", data });
    },
    batchUpdateBlock: async (blocks) => {
      await c.callRaw({ endpoint: "/api/block/batchUpdateBlock", body: { blocks } });
    },
    deleteBlock: async (id) => {
      await c.block.deleteBlock({ id });
    },
    moveBlock: (id, a) =>
      c.block.moveBlock({
        id,
        ...(a.previousID ? { previousID: a.previousID } : {}),
        ...(a.parentID ? { parentID: a.parentID } : {}),
      }),
    setBlockAttrs: (id, attrs) => c.attr.setBlockAttrs({ id, attrs }),
    setFold: (id, folded) => (folded ? c.block.foldBlock({ id }) : c.block.unfoldBlock({ id })),
    transferBlockRef: (fromID, toID, refIDs) =>
      c.block.transferBlockRef({ fromID, toID, refIDs: [...refIDs] }),
    dailyNoteBlock: async (where, notebook, dataType, data) => {
      const args = { notebook, dataType: dataType as "markdown", data };
      return firstNewId(
        await (where === "append"
          ? c.block.appendDailyNoteBlock(args)
          : c.block.prependDailyNoteBlock(args)),
      );
    },
    createNotebook: async (name) => row(await c.notebook.createNotebook({ name })),
    renameNotebook: (notebook, name) => c.notebook.renameNotebook({ notebook, name }),
    setNotebookConf: async (notebook, conf) => {
      await c.notebook.setNotebookConf({ notebook, conf });
    },
    setNotebookIcon: (notebook, icon) => c.notebook.setNotebookIcon({ notebook, icon }),
    openNotebook: (notebook) => c.notebook.openNotebook({ notebook }),
    closeNotebook: (notebook) => c.notebook.closeNotebook({ notebook }),
    removeNotebook: (notebook) => c.notebook.removeNotebook({ notebook }),
    createDocWithMd: (notebook, path, markdown) =>
      c.filetree.createDocWithMd({ notebook, path, markdown }),
    renameDocByID: (id, title) => c.filetree.renameDocByID({ id, title }),
    removeDocByID: (id) => c.filetree.removeDocByID({ id }),
    moveDocsByID: (ids, toID) => c.filetree.moveDocsByID({ fromIDs: ids, toID }),
    duplicateAttributeView: async (avID) => {
      const r = await c.av.duplicateAttributeViewBlock({ avID });
      return { avID: r.avID, blockID: r.blockID };
    },
    duplicateDoc: async (id) => {
      const r = await c.filetree.duplicateDoc({ id });
      return { id: r.id, path: r.path };
    },
    changeSort: (notebook, paths) => c.filetree.changeSort({ notebook, paths }),
    doc2Heading: async (docId, targetId, after) => ({
      path: (await c.filetree.doc2Heading({ srcID: docId, targetID: targetId, after })).srcTreePath,
    }),
    heading2Doc: (headingId, notebook, targetPath) =>
      c.filetree.heading2Doc({ srcHeadingID: headingId, targetNoteBook: notebook, targetPath }),
    performSync: () => c.sync.performSync(),
    mcpCallTool: (name, args) => mcpSend(c, "tools/call", { name, arguments: args }, "write"),
    pushMsg: async (msg, timeout) => {
      await c.notification.pushMsg({ msg, ...(timeout === undefined ? {} : { timeout }) });
    },
    createDocHistory: (id) => c.history.createDocHistory({ id }),
    rollbackDocHistory: (historyPath) => c.history.rollbackDocHistory({ historyPath }),
    createSnapshot: (memo) => c.repo.createSnapshot({ memo }),
    addRiffCards: async (deckId, blockIds) => {
      const d = await c.riff.addRiffCards({ deckID: deckId, blockIDs: blockIds });
      return d === null ? null : deckOf(d);
    },
    removeRiffCards: async (deckId, blockIds) => {
      const d = await c.riff.removeRiffCards({ deckID: deckId, blockIDs: blockIds });
      return d === null ? null : deckOf(d);
    },
    reviewRiffCard: (deckId, cardId, rating) =>
      c.riff.reviewRiffCard({ deckID: deckId, cardID: cardId, rating }),
    createDailyNote: async (notebook) => (await c.filetree.createDailyNote({ notebook })).id,
    uploadAsset: async (file, assetsDirPath): Promise<UploadAnswer> => {
      const r = await c.asset.upload({
        files: [{ filename: file.fileName, bytes: file.bytes }],
        assetsDirPath,
      });
      return { succMap: r.succMap, errFiles: r.errFiles };
    },
    putFile: (path, bytes) => c.file.putFile({ path, file: bytes }),
    removeFile: (path) => c.file.removeFile({ path }),
    docSaveAsTemplate: (id, name, overwrite) =>
      c.template.docSaveAsTemplate({ id, name, overwrite }),
    removeUnusedAsset: (path) => c.asset.removeUnusedAsset({ path }),
    removeUnusedAssets: () => c.asset.removeUnusedAssets(),
    renameAsset: (oldPath, newName) => c.asset.renameAsset({ oldPath, newName }),
    exportResources: async (paths) => (await c.export.exportResources({ paths })).path,
    createAttributeView: async (avID, blockID) => {
      await c.av.renderAttributeView({ id: avID, blockID, pageSize: 1, createIfNotExist: true });
    },
    setAttributeViewName: async (avID, name) => {
      await c.transactions.send({
        transactions: [{ doOperations: [{ action: "setAttrViewName", id: avID, data: name }] }],
        reqId: Date.now(),
      });
    },
    addAttributeViewKey: (avID, key, previousKeyID) =>
      c.av.addAttributeViewKey({
        avID,
        keyID: key.id,
        keyName: key.name,
        keyType: key.type,
        keyIcon: "",
        previousKeyID,
      }),
    removeAttributeViewKey: (avID, keyID, removeRelationDest) =>
      c.av.removeAttributeViewKey({
        avID,
        keyID,
        ...(removeRelationDest === undefined ? {} : { removeRelationDest }),
      }),
    addAttributeViewBlocks: (avID, rows) =>
      c.av.addAttributeViewBlocks({
        avID,
        srcs: rows.map((r) =>
          r.blockID === undefined
            ? { id: "", isDetached: true, content: r.content ?? "", itemID: r.itemID }
            : { id: r.blockID, isDetached: false, itemID: r.itemID },
        ),
      }),
    removeAttributeViewBlocks: (avID, itemIDs) =>
      c.av.removeAttributeViewBlocks({ avID, srcIDs: itemIDs }),
    batchSetAttributeViewBlockAttrs: (avID, values) =>
      c.av.batchSetAttributeViewBlockAttrs({ avID, values }),
    addAttrViewColumn: async (col) => {
      await c.transactions.send({
        transactions: [{ doOperations: newColumnOps(col) }],
        reqId: Date.now(),
      });
    },
  };
}

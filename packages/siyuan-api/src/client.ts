/**
 * The endpoint method table: each typed client method is one row naming its `ENDPOINTS` key, its
 * answer schema and its quirks (what becomes `null`, which codes mean "busy"). Sending, retrying,
 * envelope handling and validation are the call pipeline's (`call-pipeline.ts`); the method
 * signatures are `client-api.ts`.
 */

import { bothBudgets, type CallCounter } from "./budget.js";
import {
  createCallPipeline,
  GET_BLOCK_INFO_INDEXING_CODE,
  resolveReadRetry,
} from "./call-pipeline.js";
import type { SiyuanClient, SiyuanClientOptions } from "./client-api.js";
import { SiyuanApiError } from "./errors.js";
import type { MultipartPart } from "./multipart.js";
import * as S from "./schemas.js";
import type * as T from "./types.js";
import { encodeUtf8 } from "./utf8.js";

const DEFAULT_SLEEP = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    globalThis.setTimeout(resolve, ms);
  });

function nonEmpty<T extends object>(map: Record<string, T>): Record<string, T | null> {
  const out: Record<string, T | null> = {};
  for (const [k, v] of Object.entries(map)) out[k] = Object.keys(v).length === 0 ? null : v;
  return out;
}
function nonEmptyString(map: Record<string, string>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(map)) out[k] = v === "" ? null : v;
  return out;
}

/** getDoc's answer (code 1) for an ID whose document the kernel does not find. */
const GET_DOC_TREE_NOT_FOUND = "tree not found";

function basename(path: string): string {
  const parts = path.split("/");
  return parts[parts.length - 1] || "file";
}

/** The multipart form of `asset.upload` (`file[]` parts after the optional fields). */
function uploadParts(a: T.UploadAssetArgs): MultipartPart[] {
  const parts: MultipartPart[] = [];
  if (a.assetsDirPath !== undefined) parts.push({ name: "assetsDirPath", value: a.assetsDirPath });
  if (a.id !== undefined) parts.push({ name: "id", value: a.id });
  if (a.skipIfDuplicated !== undefined)
    parts.push({ name: "skipIfDuplicated", value: String(a.skipIfDuplicated) });
  for (const f of a.files) {
    parts.push(
      f.contentType === undefined
        ? { name: "file[]", filename: f.filename, bytes: f.bytes }
        : {
            name: "file[]",
            filename: f.filename,
            bytes: f.bytes,
            contentType: f.contentType,
          },
    );
  }
  return parts;
}

/** The multipart form of `file.putFile`. */
function putFileParts(a: T.PutFileArgs): MultipartPart[] {
  const parts: MultipartPart[] = [{ name: "path", value: a.path }];
  if (a.isDir === true) parts.push({ name: "isDir", value: "true" });
  if (a.modTimeMs !== undefined) parts.push({ name: "modTime", value: String(a.modTimeMs) });
  if (a.file !== undefined) {
    const bytes = typeof a.file === "string" ? encodeUtf8(a.file) : a.file;
    parts.push({ name: "file", filename: basename(a.path), bytes });
  }
  return parts;
}

/**
 * Creates a typed kernel client over a transport.
 *
 * Behaviour: writes (per `ENDPOINTS`) are sent exactly once; reads are retried on transient
 * failures (connection refused/reset, timeout, HTTP 502/503/504) up to `readRetry.maxAttempts` with
 * jittered exponential backoff. A call missing a field the kernel requires (`ENDPOINTS[...].required`)
 * is refused before sending (`not_dispatched`, reason `invalid_request`), because old-style kernel
 * handlers answer such calls with `code 0` as if they had succeeded. Every failure is a
 * {@link SiyuanApiError}: `not_dispatched`,
 * `outcome_unknown`, `kernel_rejected`, `decode`, `unauthorized` or `budget_exceeded`.
 */
export function createSiyuanClient(options: SiyuanClientOptions): SiyuanClient {
  return buildClient(options, undefined);
}

function buildClient(options: SiyuanClientOptions, shared: CallCounter | undefined): SiyuanClient {
  const { transport } = options;
  const { counter, call, callNullable, callVoid, callMultipart, callDownload, callPath, callMcp } =
    createCallPipeline({
      transport,
      retry: resolveReadRetry(options.readRetry),
      budget: options.budget,
      random: options.random ?? Math.random,
      sleep: options.sleep ?? DEFAULT_SLEEP,
      ...(shared === undefined ? {} : { counter: shared }),
    });

  const client: SiyuanClient = {
    notebook: {
      lsNotebooks: () => call("notebook.lsNotebooks", {}, S.lsNotebooksSchema),
      openNotebook: (a) => callVoid("notebook.openNotebook", a),
      closeNotebook: (a) => callVoid("notebook.closeNotebook", a),
      createNotebook: async (a) =>
        (await call("notebook.createNotebook", a, S.createNotebookSchema)).notebook,
      removeNotebook: (a) => callVoid("notebook.removeNotebook", a),
      renameNotebook: (a) => callVoid("notebook.renameNotebook", a),
      getNotebookConf: (a) => call("notebook.getNotebookConf", a, S.notebookConfSchema),
      setNotebookConf: (a) => call("notebook.setNotebookConf", a, S.boxConfSchema),
      setNotebookIcon: (a) => callVoid("notebook.setNotebookIcon", a),
      changeSortNotebook: (a) => callVoid("notebook.changeSortNotebook", a),
    },
    filetree: {
      createDocWithMd: (a) => call("filetree.createDocWithMd", a, S.nodeIdSchema),
      renameDoc: (a) => callVoid("filetree.renameDoc", a),
      renameDocByID: (a) => callVoid("filetree.renameDocByID", a),
      removeDoc: (a) => callVoid("filetree.removeDoc", a),
      removeDocByID: (a) => callVoid("filetree.removeDocByID", a),
      moveDocs: (a) => callVoid("filetree.moveDocs", a),
      moveDocsByID: (a) => callVoid("filetree.moveDocsByID", a),
      getHPathByID: (a) => call("filetree.getHPathByID", a, S.stringSchema),
      getHPathByPath: (a) => call("filetree.getHPathByPath", a, S.stringSchema),
      getIDsByHPath: (a) => call("filetree.getIDsByHPath", a, S.stringArraySchema),
      getPathByID: (a) => call("filetree.getPathByID", a, S.pathByIdSchema),
      listDocsByPath: (a) => call("filetree.listDocsByPath", a, S.listDocsSchema),
      changeSort: (a) => callVoid("filetree.changeSort", a),
      getDoc: async (a) => {
        try {
          return await callNullable("filetree.getDoc", a, S.getDocSchema, [3]);
        } catch (e) {
          // SiYuan 3.7.3 answers an unknown ID with code 1 "tree not found" (code 3 only for a
          // block missing from a tree it found; kernel-probes `filetree.getDoc`)
          if (
            e instanceof SiyuanApiError &&
            e.code === "kernel_rejected" &&
            e.details.kernelCode === 1 &&
            e.details.kernelMessage === GET_DOC_TREE_NOT_FOUND
          )
            return null;
          throw e;
        }
      },
      createDailyNote: (a) => call("filetree.createDailyNote", a, S.createDailyNoteSchema),
      duplicateDoc: (a) => call("filetree.duplicateDoc", a, S.duplicateDocSchema),
      heading2Doc: (a) => callVoid("filetree.heading2Doc", a),
      doc2Heading: (a) => call("filetree.doc2Heading", a, S.doc2HeadingSchema),
    },
    block: {
      getBlockKramdown: async (a) => {
        const r = await call("block.getBlockKramdown", a, S.kramdownSchema);
        return r.kramdown === "" ? null : r;
      },
      getBlockKramdowns: async (a) =>
        nonEmptyString(await call("block.getBlockKramdowns", a, S.stringMapSchema)),
      getBlockDOM: async (a) => {
        const r = await call("block.getBlockDOM", a, S.domSchema);
        return r.dom === "" ? null : r;
      },
      getBlockDOMs: async (a) =>
        nonEmptyString(await call("block.getBlockDOMs", a, S.stringMapSchema)),
      getChildBlocks: (a) => call("block.getChildBlocks", a, S.childBlocksSchema),
      getBlockInfo: (a) =>
        call("block.getBlockInfo", a, S.blockInfoSchema, {
          busyCodes: [GET_BLOCK_INFO_INDEXING_CODE],
        }),
      checkBlockExist: (a) => call("block.checkBlockExist", a, S.booleanSchema),
      getBlocksWordCount: async (a) =>
        (await call("block.getBlocksWordCount", a, S.blocksWordCountSchema)).stat,
      getRecentUpdatedBlocks: () =>
        call("block.getRecentUpdatedBlocks", {}, S.recentUpdatedBlocksSchema),
      getBlockBreadcrumb: (a) => call("block.getBlockBreadcrumb", a, S.breadcrumbSchema),
      insertBlock: (a) => call("block.insertBlock", a, S.transactionsSchema),
      prependBlock: (a) => call("block.prependBlock", a, S.transactionsSchema),
      appendBlock: (a) => call("block.appendBlock", a, S.transactionsSchema),
      updateBlock: (a) => call("block.updateBlock", a, S.transactionsSchema),
      deleteBlock: (a) => call("block.deleteBlock", a, S.transactionsSchema),
      moveBlock: (a) => callVoid("block.moveBlock", a),
      foldBlock: (a) => callVoid("block.foldBlock", a),
      unfoldBlock: (a) => callVoid("block.unfoldBlock", a),
      transferBlockRef: (a) => callVoid("block.transferBlockRef", a),
      appendDailyNoteBlock: (a) => call("block.appendDailyNoteBlock", a, S.transactionsSchema),
      prependDailyNoteBlock: (a) => call("block.prependDailyNoteBlock", a, S.transactionsSchema),
    },
    attr: {
      getBlockAttrs: async (a) => {
        const r = await call("attr.getBlockAttrs", a, S.attrsSchema);
        return Object.keys(r).length === 0 ? null : r;
      },
      setBlockAttrs: (a) => callVoid("attr.setBlockAttrs", a),
      batchGetBlockAttrs: async (a) =>
        nonEmpty(await call("attr.batchGetBlockAttrs", a, S.batchAttrsSchema)),
      batchSetBlockAttrs: (a) => callVoid("attr.batchSetBlockAttrs", a),
    },
    ref: {
      getBacklink2: (a) => call("ref.getBacklink2", a, S.backlink2Schema),
    },
    outline: {
      getDocOutline: (a) => call("outline.getDocOutline", a, S.docOutlineSchema),
    },
    storage: {
      getRecentDocs: (a) => call("storage.getRecentDocs", a, S.recentDocsSchema),
    },
    query: {
      sql: (a) => call("query.sql", { stmt: a.stmt, mode: "readonly" }, S.sqlRowsSchema),
    },
    search: {
      fullTextSearchBlock: (a) => call("search.fullTextSearchBlock", a, S.fullTextSearchSchema),
      searchTemplate: (a) => call("search.searchTemplate", a, S.searchTemplateSchema),
      listInvalidBlockRefs: (a) => call("search.listInvalidBlockRefs", a, S.invalidBlockRefsSchema),
      searchAsset: (a) => call("search.searchAsset", a, S.searchAssetSchema),
      searchRefBlock: (a) => call("search.searchRefBlock", a, S.searchRefBlockSchema),
      fullTextSearchAssetContent: (a) =>
        call("search.fullTextSearchAssetContent", a, S.assetContentSearchSchema),
      semanticSearchBlock: (a) => call("search.semanticSearchBlock", a, S.fullTextSearchSchema),
    },
    sqlite: {
      flushTransaction: () => callVoid("sqlite.flushTransaction", {}),
    },
    av: {
      getAttributeView: (a) => call("av.getAttributeView", a, S.getAttributeViewSchema),
      renderAttributeView: (a) => call("av.renderAttributeView", a, S.renderAttributeViewSchema),
      getAttributeViewKeysByAvID: (a) => call("av.getAttributeViewKeysByAvID", a, S.avKeysSchema),
      addAttributeViewKey: (a) => callVoid("av.addAttributeViewKey", a),
      removeAttributeViewKey: (a) => callVoid("av.removeAttributeViewKey", a),
      addAttributeViewBlocks: (a) => callVoid("av.addAttributeViewBlocks", a),
      removeAttributeViewBlocks: (a) => callVoid("av.removeAttributeViewBlocks", a),
      setAttributeViewBlockAttr: async (a) => {
        const r = await call("av.setAttributeViewBlockAttr", a, S.avValueResultSchema);
        return { value: r.value };
      },
      batchSetAttributeViewBlockAttrs: (a) => callVoid("av.batchSetAttributeViewBlockAttrs", a),
      getAttributeViewFilterSort: (a) =>
        call("av.getAttributeViewFilterSort", a, S.avFilterSortSchema),
      searchAttributeView: (a) => call("av.searchAttributeView", a, S.avSearchSchema),
      getAttributeViewPrimaryKeyValues: (a) =>
        call("av.getAttributeViewPrimaryKeyValues", a, S.avPrimaryKeyValuesSchema),
      duplicateAttributeViewBlock: (a) =>
        call("av.duplicateAttributeViewBlock", a, S.avDuplicateSchema),
    },
    asset: {
      upload: (a) => callMultipart("asset.upload", a, uploadParts, S.uploadSchema),
      getDocAssets: (a) => call("asset.getDocAssets", a, S.docAssetsSchema),
      getUnusedAssets: () => call("asset.getUnusedAssets", {}, S.unusedAssetsSchema),
      removeUnusedAsset: async (a) =>
        (await call("asset.removeUnusedAsset", a, S.removeUnusedAssetSchema)).path,
      renameAsset: async (a) => (await call("asset.renameAsset", a, S.renameAssetSchema)).newPath,
      removeUnusedAssets: async () =>
        (await call("asset.removeUnusedAssets", {}, S.removeUnusedAssetsSchema)).paths,
    },
    file: {
      // HTTP 202 with code 404 means "file does not exist".
      getFile: (a) => callDownload("file.getFile", a, [404]),
      putFile: async (a) => {
        await callMultipart("file.putFile", a, putFileParts, S.ignoredSchema);
      },
      readDir: (a) => callNullable("file.readDir", a, S.readDirSchema, [404]),
      removeFile: (a) => callVoid("file.removeFile", a),
      renameFile: (a) => callVoid("file.renameFile", a),
    },
    template: {
      docSaveAsTemplate: async (a) =>
        (await callNullable(
          "template.docSaveAsTemplate",
          a,
          S.ignoredSchema.transform(() => true),
          [1],
        )) ?? false,
      render: (a) =>
        call("template.render", { id: a.id, path: a.path, preview: true }, S.renderTemplateSchema),
    },
    export: {
      exportMdContent: (a) => call("export.exportMdContent", a, S.exportMdSchema),
      exportResources: (a) => call("export.exportResources", a, S.exportResourcesSchema),
    },
    notification: {
      pushMsg: async (a) => (await call("notification.pushMsg", a, S.pushMsgSchema)).id,
      pushErrMsg: async (a) => (await call("notification.pushErrMsg", a, S.pushMsgSchema)).id,
    },
    riff: {
      getRiffDecks: () => call("riff.getRiffDecks", {}, S.riffDecksSchema),
      getRiffCards: (a) => call("riff.getRiffCards", a, S.riffCardsSchema),
      getRiffDueCards: async (a) => {
        const d = await call("riff.getRiffDueCards", a, S.riffDueCardsSchema);
        // an unknown deck answers a null list (kernel-probes riff.unknown)
        return { ...d, cards: d.cards ?? [] };
      },
      getNotebookRiffDueCards: async (a) => {
        const d = await call("riff.getNotebookRiffDueCards", a, S.riffDueCardsSchema);
        return { ...d, cards: d.cards ?? [] };
      },
      createRiffDeck: (a) => call("riff.createRiffDeck", a, S.riffDeckSchema),
      addRiffCards: (a) => call("riff.addRiffCards", a, S.riffDeckSchema.nullable()),
      removeRiffCards: (a) => call("riff.removeRiffCards", a, S.riffDeckSchema.nullable()),
      reviewRiffCard: (a) => callVoid("riff.reviewRiffCard", a),
    },
    history: {
      searchHistory: (a) => call("history.searchHistory", a, S.searchHistorySchema),
      getHistoryItems: async (a) =>
        (await call("history.getHistoryItems", a, S.historyItemsSchema)).items,
      getDocHistoryContent: (a) =>
        call("history.getDocHistoryContent", a, S.docHistoryContentSchema),
      createDocHistory: (a) => callVoid("history.createDocHistory", a),
      rollbackDocHistory: (a) => callVoid("history.rollbackDocHistory", a),
    },
    repo: {
      getRepoSnapshots: (a) => call("repo.getRepoSnapshots", a, S.repoSnapshotsSchema),
      createSnapshot: (a) => callVoid("repo.createSnapshot", a),
      diffRepoSnapshots: (a) => call("repo.diffRepoSnapshots", a, S.repoDiffSchema),
    },
    system: {
      version: () => call("system.version", {}, S.stringSchema),
      currentTime: () => call("system.currentTime", {}, S.numberSchema),
      bootProgress: () => call("system.bootProgress", {}, S.bootProgressSchema),
      getConf: () => call("system.getConf", {}, S.getConfSchema),
      getWorkspaceInfo: () => call("system.getWorkspaceInfo", {}, S.workspaceInfoSchema),
    },
    transactions: {
      send: (a) => call("transactions.send", a, S.ignoredSchema),
    },
    sync: {
      performSync: () => callVoid("sync.performSync", {}),
    },
    callMcp: (a) => callMcp(a.message, a.headers ?? {}, a.kind),
    flush: () => callVoid("sqlite.flushTransaction", {}),
    callRaw: async (a) => {
      if (!a.endpoint.startsWith("/")) {
        throw new SiyuanApiError("not_dispatched", `endpoint must start with "/": ${a.endpoint}`, {
          endpoint: a.endpoint,
          reason: "invalid_request",
        });
      }
      return callPath(a.endpoint, a.kind ?? "write", a.body ?? {});
    },
    withBudget: (budget) =>
      buildClient(
        {
          ...options,
          budget: options.budget === undefined ? budget : bothBudgets(options.budget, budget),
        },
        counter,
      ),
    withReadRetry: (readRetry) =>
      buildClient({ ...options, readRetry: { ...options.readRetry, ...readRetry } }, counter),
    stats: () => counter.snapshot(),
    resetStats: () => counter.reset(),
    close: () => transport.close(),
  };
  return client;
}

/**
 * The endpoint table: every typed client method, its kernel path and whether it is a read or a
 * write. The retry policy comes from this table alone: reads may be retried on transient failures,
 * writes are attempted exactly once. Unknown or side-effecting endpoints are writes.
 */

/** `read`: no change to kernel data, safe to repeat. `write`: may change data; attempted once. */
export type EndpointKind = "read" | "write";

/** One row of {@link ENDPOINTS}. */
export interface EndpointSpec {
  /** URL pathname of the kernel endpoint. */
  readonly path: string;
  readonly kind: EndpointKind;
  /**
   * Request fields the kernel requires (contract `*`). The client refuses to send a call that lacks
   * one (`not_dispatched`, reason `invalid_request`): old-style kernel handlers panic on a missing
   * field and answer `code 0, data null`, which would look like a successful write.
   */
  readonly required: readonly string[];
  /** At least one of these fields must be present (insert/move anchors). */
  readonly anyOf?: readonly string[];
}

const r = (path: string, ...required: string[]): EndpointSpec => ({ path, kind: "read", required });
const w = (path: string, ...required: string[]): EndpointSpec => ({
  path,
  kind: "write",
  required,
});
const anchored = (spec: EndpointSpec, anyOf: string[]): EndpointSpec => ({ ...spec, anyOf });

/**
 * Method key (`<group>.<method>`, as on the client object) → endpoint. Notes on non-obvious rows:
 * `query.sql` is a read because the client always sends `mode: "readonly"` (the kernel refuses write
 * statements then); `sqlite.flushTransaction` only waits for queues, so repeating it is harmless;
 * `av.renderAttributeView` is a write because it may create the database file
 * (`createIfNotExist`); `storage.getRecentDocs` is a read although the kernel rewrites its recent
 * list when it drops deleted documents (repeating it changes nothing more); `filetree.createDailyNote`
 * is a write (it creates today's note when absent); notifications are writes (a repeated toast is a visible duplicate).
 */
export const ENDPOINTS = {
  "notebook.lsNotebooks": r("/api/notebook/lsNotebooks"),
  "notebook.openNotebook": w("/api/notebook/openNotebook", "notebook"),
  "notebook.closeNotebook": w("/api/notebook/closeNotebook", "notebook"),
  "notebook.createNotebook": w("/api/notebook/createNotebook", "name"),
  "notebook.removeNotebook": w("/api/notebook/removeNotebook", "notebook"),
  "notebook.renameNotebook": w("/api/notebook/renameNotebook", "notebook", "name"),
  "notebook.getNotebookConf": r("/api/notebook/getNotebookConf", "notebook"),
  "notebook.setNotebookConf": w("/api/notebook/setNotebookConf", "notebook", "conf"),
  "notebook.setNotebookIcon": w("/api/notebook/setNotebookIcon", "notebook", "icon"),
  "notebook.changeSortNotebook": w("/api/notebook/changeSortNotebook", "notebooks"),

  "filetree.createDocWithMd": w("/api/filetree/createDocWithMd", "notebook", "path", "markdown"),
  "filetree.renameDoc": w("/api/filetree/renameDoc", "notebook", "path", "title"),
  "filetree.renameDocByID": w("/api/filetree/renameDocByID", "id", "title"),
  "filetree.removeDoc": w("/api/filetree/removeDoc", "notebook", "path"),
  "filetree.removeDocByID": w("/api/filetree/removeDocByID", "id"),
  "filetree.moveDocs": w("/api/filetree/moveDocs", "fromPaths", "toNotebook", "toPath"),
  "filetree.moveDocsByID": w("/api/filetree/moveDocsByID", "fromIDs", "toID"),
  "filetree.getHPathByID": r("/api/filetree/getHPathByID", "id"),
  "filetree.getHPathByPath": r("/api/filetree/getHPathByPath", "notebook", "path"),
  "filetree.getIDsByHPath": r("/api/filetree/getIDsByHPath", "notebook", "path"),
  "filetree.getPathByID": r("/api/filetree/getPathByID", "id"),
  "filetree.listDocsByPath": r("/api/filetree/listDocsByPath", "notebook", "path"),
  "filetree.changeSort": w("/api/filetree/changeSort", "notebook", "paths"),
  "filetree.getDoc": r("/api/filetree/getDoc", "id"),
  "filetree.duplicateDoc": w("/api/filetree/duplicateDoc", "id"),
  "filetree.doc2Heading": w("/api/filetree/doc2Heading", "srcID", "targetID", "after"),
  "filetree.heading2Doc": w(
    "/api/filetree/heading2Doc",
    "srcHeadingID",
    "targetNoteBook",
    "targetPath",
  ),
  "filetree.createDailyNote": w("/api/filetree/createDailyNote", "notebook"),

  "block.getBlockKramdown": r("/api/block/getBlockKramdown", "id"),
  "block.getBlockKramdowns": r("/api/block/getBlockKramdowns", "ids"),
  "block.getBlockDOM": r("/api/block/getBlockDOM", "id"),
  "block.getBlockDOMs": r("/api/block/getBlockDOMs", "ids"),
  "block.getChildBlocks": r("/api/block/getChildBlocks", "id"),
  "block.getBlockInfo": r("/api/block/getBlockInfo", "id"),
  "block.getBlockBreadcrumb": r("/api/block/getBlockBreadcrumb", "id"),
  "block.checkBlockExist": r("/api/block/checkBlockExist", "id"),
  "block.getBlocksWordCount": r("/api/block/getBlocksWordCount", "ids"),
  "block.getRecentUpdatedBlocks": r("/api/block/getRecentUpdatedBlocks"),
  "block.insertBlock": anchored(w("/api/block/insertBlock", "dataType", "data"), [
    "nextID",
    "previousID",
    "parentID",
  ]),
  "block.prependBlock": w("/api/block/prependBlock", "dataType", "data", "parentID"),
  "block.appendBlock": w("/api/block/appendBlock", "dataType", "data", "parentID"),
  "block.updateBlock": w("/api/block/updateBlock", "dataType", "data", "id"),
  "block.deleteBlock": w("/api/block/deleteBlock", "id"),
  "block.moveBlock": anchored(w("/api/block/moveBlock", "id"), ["previousID", "parentID"]),
  "block.foldBlock": w("/api/block/foldBlock", "id"),
  "block.unfoldBlock": w("/api/block/unfoldBlock", "id"),
  "block.transferBlockRef": w("/api/block/transferBlockRef", "fromID", "toID"),
  "block.appendDailyNoteBlock": w(
    "/api/block/appendDailyNoteBlock",
    "notebook",
    "dataType",
    "data",
  ),
  "block.prependDailyNoteBlock": w(
    "/api/block/prependDailyNoteBlock",
    "notebook",
    "dataType",
    "data",
  ),

  "attr.getBlockAttrs": r("/api/attr/getBlockAttrs", "id"),
  "attr.setBlockAttrs": w("/api/attr/setBlockAttrs", "id", "attrs"),
  "attr.batchGetBlockAttrs": r("/api/attr/batchGetBlockAttrs", "ids"),
  "attr.batchSetBlockAttrs": w("/api/attr/batchSetBlockAttrs", "blockAttrs"),

  "ref.getBacklink2": r("/api/ref/getBacklink2", "id", "k", "mk"),
  "outline.getDocOutline": r("/api/outline/getDocOutline", "id"),
  "storage.getRecentDocs": r("/api/storage/getRecentDocs"),

  "query.sql": r("/api/query/sql", "stmt"),
  "search.fullTextSearchBlock": r("/api/search/fullTextSearchBlock", "query"),
  "search.searchTemplate": r("/api/search/searchTemplate", "k"),
  "search.listInvalidBlockRefs": r("/api/search/listInvalidBlockRefs"),
  "search.searchAsset": r("/api/search/searchAsset", "k"),
  "search.searchRefBlock": r("/api/search/searchRefBlock", "id", "rootID", "k", "beforeLen"),
  "search.fullTextSearchAssetContent": r("/api/search/fullTextSearchAssetContent", "query"),
  "search.semanticSearchBlock": r("/api/search/semanticSearchBlock", "query"),
  "sqlite.flushTransaction": r("/api/sqlite/flushTransaction"),

  "av.getAttributeView": r("/api/av/getAttributeView", "id"),
  "av.renderAttributeView": w("/api/av/renderAttributeView", "id"),
  "av.getAttributeViewKeysByAvID": r("/api/av/getAttributeViewKeysByAvID", "avID"),
  "av.addAttributeViewKey": w(
    "/api/av/addAttributeViewKey",
    "avID",
    "keyID",
    "keyName",
    "keyType",
    "keyIcon",
    "previousKeyID",
  ),
  "av.removeAttributeViewKey": w("/api/av/removeAttributeViewKey", "avID", "keyID"),
  "av.addAttributeViewBlocks": w("/api/av/addAttributeViewBlocks", "avID", "srcs"),
  "av.removeAttributeViewBlocks": w("/api/av/removeAttributeViewBlocks", "avID", "srcIDs"),
  "av.setAttributeViewBlockAttr": w(
    "/api/av/setAttributeViewBlockAttr",
    "avID",
    "keyID",
    "itemID",
    "value",
  ),
  "av.batchSetAttributeViewBlockAttrs": w(
    "/api/av/batchSetAttributeViewBlockAttrs",
    "avID",
    "values",
  ),
  "av.getAttributeViewFilterSort": r("/api/av/getAttributeViewFilterSort", "id", "blockID"),
  "av.searchAttributeView": r("/api/av/searchAttributeView", "keyword"),
  "av.getAttributeViewPrimaryKeyValues": r("/api/av/getAttributeViewPrimaryKeyValues", "id"),
  "av.duplicateAttributeViewBlock": w("/api/av/duplicateAttributeViewBlock", "avID"),

  "asset.upload": w("/api/asset/upload", "files"),
  "asset.getDocAssets": r("/api/asset/getDocAssets", "id"),
  // A read, although beyond 512 unused assets the kernel also shows the user a toast saying so.
  "asset.getUnusedAssets": r("/api/asset/getUnusedAssets"),
  // Both remove without checking a link: the caller decides what is unused (kernel-probes asset.removeUnused).
  "asset.removeUnusedAsset": w("/api/asset/removeUnusedAsset", "path"),
  "asset.removeUnusedAssets": w("/api/asset/removeUnusedAssets"),
  "asset.renameAsset": w("/api/asset/renameAsset", "oldPath", "newName"),

  "file.getFile": r("/api/file/getFile", "path"),
  "file.putFile": w("/api/file/putFile", "path"),
  "file.readDir": r("/api/file/readDir", "path"),
  "file.removeFile": w("/api/file/removeFile", "path"),
  "file.renameFile": w("/api/file/renameFile", "path", "newPath"),

  "export.exportMdContent": r("/api/export/exportMdContent", "id"),
  // 3.7.3 panics on a missing `overwrite` (`.(bool)`); an unknown ID answers code 0 and writes nothing.
  "template.docSaveAsTemplate": w("/api/template/docSaveAsTemplate", "id", "name", "overwrite"),
  // A read because the client always sends `preview: true`: without it a database block in the
  // template is copied and saved as a new database.
  "template.render": r("/api/template/render", "id", "path"),

  // Document history (`history/`): searchHistory lists times, getHistoryItems one time's items.
  "history.searchHistory": r("/api/history/searchHistory"),
  "history.getHistoryItems": r("/api/history/getHistoryItems", "created"),
  "history.getDocHistoryContent": r("/api/history/getDocHistoryContent", "historyPath"),
  // Copies the document's file into this second's `history/<time>-update/` folder.
  "history.createDocHistory": w("/api/history/createDocHistory", "id"),
  "history.rollbackDocHistory": w("/api/history/rollbackDocHistory", "historyPath"),
  // Data repo snapshots (`repo/`), only for history.snapshot_*: every one answers code -1 while
  // `conf.repo.key` is unset. createSnapshot answers data null also when it made no snapshot
  // (the data equal the latest one); the listing shows which.
  "repo.getRepoSnapshots": r("/api/repo/getRepoSnapshots", "page"),
  "repo.createSnapshot": w("/api/repo/createSnapshot", "memo"),
  "repo.diffRepoSnapshots": r("/api/repo/diffRepoSnapshots", "left", "right"),
  // Flashcards (`riff/`): decks, their cards (one per block and deck), due cards, ratings.
  "riff.getRiffDecks": r("/api/riff/getRiffDecks"),
  "riff.getRiffCards": r("/api/riff/getRiffCards", "id", "page"),
  // Without `reviewedCards` it also starts a new review round (forgets the last round's ratings).
  "riff.getRiffDueCards": r("/api/riff/getRiffDueCards", "deckID"),
  "riff.getNotebookRiffDueCards": r("/api/riff/getNotebookRiffDueCards", "notebook"),
  "riff.createRiffDeck": w("/api/riff/createRiffDeck", "name"),
  // Writes the deck into each block's custom-riff-decks attribute, then adds the missing cards.
  "riff.addRiffCards": w("/api/riff/addRiffCards", "deckID", "blockIDs"),
  "riff.removeRiffCards": w("/api/riff/removeRiffCards", "deckID", "blockIDs"),
  "riff.reviewRiffCard": w("/api/riff/reviewRiffCard", "deckID", "cardID", "rating"),
  // Writes a zip under temp/export/ (served at GET /export/…): attempted once.
  "export.exportResources": w("/api/export/exportResources", "paths"),

  "notification.pushMsg": w("/api/notification/pushMsg", "msg"),
  "notification.pushErrMsg": w("/api/notification/pushErrMsg", "msg"),

  // Starts a cloud sync by hand; the kernel answers nothing about its outcome (toasts only).
  "sync.performSync": w("/api/sync/performSync"),

  "system.version": r("/api/system/version"),
  "system.currentTime": r("/api/system/currentTime"),
  "system.bootProgress": r("/api/system/bootProgress"),
  // The whole configuration, secrets included (the API token, sync keys): callers pick fields.
  "system.getConf": r("/api/system/getConf"),
  "system.getWorkspaceInfo": r("/api/system/getWorkspaceInfo"),

  "transactions.send": w("/api/transactions", "transactions"),
} as const satisfies Record<string, EndpointSpec>;

/** A key of {@link ENDPOINTS}, e.g. `"block.updateBlock"`. */
export type EndpointKey = keyof typeof ENDPOINTS;

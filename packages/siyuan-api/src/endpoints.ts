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
}

const r = (path: string): EndpointSpec => ({ path, kind: "read" });
const w = (path: string): EndpointSpec => ({ path, kind: "write" });

/**
 * Method key (`<group>.<method>`, as on the client object) → endpoint. Notes on non-obvious rows:
 * `query.sql` is a read because the client always sends `mode: "readonly"` (the kernel refuses write
 * statements then); `sqlite.flushTransaction` only waits for queues, so repeating it is harmless;
 * `av.renderAttributeView` is a write because it may create the database file
 * (`createIfNotExist`); notifications are writes (a repeated toast is a visible duplicate).
 */
export const ENDPOINTS = {
  "notebook.lsNotebooks": r("/api/notebook/lsNotebooks"),
  "notebook.openNotebook": w("/api/notebook/openNotebook"),
  "notebook.closeNotebook": w("/api/notebook/closeNotebook"),
  "notebook.createNotebook": w("/api/notebook/createNotebook"),
  "notebook.removeNotebook": w("/api/notebook/removeNotebook"),
  "notebook.renameNotebook": w("/api/notebook/renameNotebook"),
  "notebook.getNotebookConf": r("/api/notebook/getNotebookConf"),
  "notebook.setNotebookConf": w("/api/notebook/setNotebookConf"),
  "notebook.changeSortNotebook": w("/api/notebook/changeSortNotebook"),

  "filetree.createDocWithMd": w("/api/filetree/createDocWithMd"),
  "filetree.renameDoc": w("/api/filetree/renameDoc"),
  "filetree.renameDocByID": w("/api/filetree/renameDocByID"),
  "filetree.removeDoc": w("/api/filetree/removeDoc"),
  "filetree.removeDocByID": w("/api/filetree/removeDocByID"),
  "filetree.moveDocs": w("/api/filetree/moveDocs"),
  "filetree.moveDocsByID": w("/api/filetree/moveDocsByID"),
  "filetree.getHPathByID": r("/api/filetree/getHPathByID"),
  "filetree.getHPathByPath": r("/api/filetree/getHPathByPath"),
  "filetree.getIDsByHPath": r("/api/filetree/getIDsByHPath"),
  "filetree.getPathByID": r("/api/filetree/getPathByID"),
  "filetree.listDocsByPath": r("/api/filetree/listDocsByPath"),
  "filetree.changeSort": w("/api/filetree/changeSort"),
  "filetree.getDoc": r("/api/filetree/getDoc"),

  "block.getBlockKramdown": r("/api/block/getBlockKramdown"),
  "block.getBlockKramdowns": r("/api/block/getBlockKramdowns"),
  "block.getBlockDOM": r("/api/block/getBlockDOM"),
  "block.getBlockDOMs": r("/api/block/getBlockDOMs"),
  "block.getChildBlocks": r("/api/block/getChildBlocks"),
  "block.getBlockInfo": r("/api/block/getBlockInfo"),
  "block.checkBlockExist": r("/api/block/checkBlockExist"),
  "block.insertBlock": w("/api/block/insertBlock"),
  "block.prependBlock": w("/api/block/prependBlock"),
  "block.appendBlock": w("/api/block/appendBlock"),
  "block.updateBlock": w("/api/block/updateBlock"),
  "block.deleteBlock": w("/api/block/deleteBlock"),
  "block.moveBlock": w("/api/block/moveBlock"),
  "block.foldBlock": w("/api/block/foldBlock"),
  "block.unfoldBlock": w("/api/block/unfoldBlock"),

  "attr.getBlockAttrs": r("/api/attr/getBlockAttrs"),
  "attr.setBlockAttrs": w("/api/attr/setBlockAttrs"),
  "attr.batchGetBlockAttrs": r("/api/attr/batchGetBlockAttrs"),
  "attr.batchSetBlockAttrs": w("/api/attr/batchSetBlockAttrs"),

  "query.sql": r("/api/query/sql"),
  "search.fullTextSearchBlock": r("/api/search/fullTextSearchBlock"),
  "sqlite.flushTransaction": r("/api/sqlite/flushTransaction"),

  "av.getAttributeView": r("/api/av/getAttributeView"),
  "av.renderAttributeView": w("/api/av/renderAttributeView"),
  "av.getAttributeViewKeysByAvID": r("/api/av/getAttributeViewKeysByAvID"),
  "av.addAttributeViewKey": w("/api/av/addAttributeViewKey"),
  "av.removeAttributeViewKey": w("/api/av/removeAttributeViewKey"),
  "av.addAttributeViewBlocks": w("/api/av/addAttributeViewBlocks"),
  "av.removeAttributeViewBlocks": w("/api/av/removeAttributeViewBlocks"),
  "av.setAttributeViewBlockAttr": w("/api/av/setAttributeViewBlockAttr"),
  "av.batchSetAttributeViewBlockAttrs": w("/api/av/batchSetAttributeViewBlockAttrs"),

  "asset.upload": w("/api/asset/upload"),

  "file.getFile": r("/api/file/getFile"),
  "file.putFile": w("/api/file/putFile"),
  "file.readDir": r("/api/file/readDir"),
  "file.removeFile": w("/api/file/removeFile"),
  "file.renameFile": w("/api/file/renameFile"),

  "export.exportMdContent": r("/api/export/exportMdContent"),

  "notification.pushMsg": w("/api/notification/pushMsg"),
  "notification.pushErrMsg": w("/api/notification/pushErrMsg"),

  "system.version": r("/api/system/version"),
  "system.currentTime": r("/api/system/currentTime"),
  "system.bootProgress": r("/api/system/bootProgress"),

  "transactions.send": w("/api/transactions"),
} as const satisfies Record<string, EndpointSpec>;

/** A key of {@link ENDPOINTS}, e.g. `"block.updateBlock"`. */
export type EndpointKey = keyof typeof ENDPOINTS;

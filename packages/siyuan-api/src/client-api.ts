/**
 * The typed client's interface: its options and its methods, grouped as the kernel groups its
 * endpoints. Each method's quirks (what becomes `null`, what the kernel cannot tell apart) are
 * stated here; `client.ts` implements them over the call pipeline.
 */
import type { z } from "zod";
import type { CallBudget, ClientStats } from "./budget.js";
import type { McpHttpAnswer, ReadRetryPolicy } from "./call-pipeline.js";
import type { EndpointKind } from "./endpoints.js";
import type * as S from "./schemas.js";
import type { BlockInfo, Box, BoxConf, ChildBlock, DirEntry, Transaction } from "./schemas.js";
import type { Transport } from "./transport/transport.js";
import type * as T from "./types.js";

/** Options of `createSiyuanClient`. */
export interface SiyuanClientOptions {
  readonly transport: Transport;
  /** Overrides of the read retry policy; writes are never retried whatever this says. */
  readonly readRetry?: Partial<ReadRetryPolicy>;
  /** Optional call/byte budget. */
  readonly budget?: CallBudget;
  /** Random source in [0, 1) for backoff jitter and multipart boundaries; default `Math.random`. */
  readonly random?: () => number;
  /** Sleep used between read retries; default `setTimeout`. Tests inject an instant one. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** A raw call for endpoints the client does not type. Unclassified calls are writes. */
export interface RawCallArgs {
  /** URL pathname, e.g. `/api/filetree/setDocSortMode`. */
  readonly endpoint: string;
  readonly body?: unknown;
  /** Default `write` (attempted once). */
  readonly kind?: EndpointKind;
}

/** A message for the kernel's `/mcp`. */
export interface McpSendArgs {
  /** The JSON-RPC message (serialised as the body). */
  readonly message: unknown;
  /** Extra headers, lower-case, e.g. `mcp-protocol-version`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** `read` may be retried on transient failures; `write` (e.g. `tools/call`) is sent once. */
  readonly kind: EndpointKind;
}

/** Notebook methods (`/api/notebook/*`). */
export interface NotebookApi {
  lsNotebooks(): Promise<T.LsNotebooksResult>;
  openNotebook(args: T.NotebookArg): Promise<void>;
  closeNotebook(args: T.NotebookArg): Promise<void>;
  createNotebook(args: T.CreateNotebookArgs): Promise<Box>;
  removeNotebook(args: T.NotebookArg): Promise<void>;
  renameNotebook(args: T.RenameNotebookArgs): Promise<void>;
  getNotebookConf(args: T.NotebookArg): Promise<T.NotebookConfResult>;
  setNotebookConf(args: T.SetNotebookConfArgs): Promise<BoxConf>;
  /** Sets the notebook's icon (an emoji's code points in hex, or a custom emoji's file name). */
  setNotebookIcon(args: T.SetNotebookIconArgs): Promise<void>;
  changeSortNotebook(args: T.ChangeSortNotebookArgs): Promise<void>;
}

/** Document tree methods (`/api/filetree/*`). */
export interface FiletreeApi {
  /** Returns the new document ID. Not idempotent: the same path twice makes two documents. */
  createDocWithMd(args: T.CreateDocWithMdArgs): Promise<string>;
  renameDoc(args: T.RenameDocArgs): Promise<void>;
  renameDocByID(args: T.RenameDocByIdArgs): Promise<void>;
  removeDoc(args: T.NotebookPathArgs): Promise<void>;
  removeDocByID(args: T.IdArg): Promise<void>;
  moveDocs(args: T.MoveDocsArgs): Promise<void>;
  moveDocsByID(args: T.MoveDocsByIdArgs): Promise<void>;
  /** hpath of the document containing the block; unknown ID → `kernel_rejected`. */
  getHPathByID(args: T.IdArg): Promise<string>;
  getHPathByPath(args: T.NotebookPathArgs): Promise<string>;
  /** Document IDs with that hpath; `[]` when none (several when titles repeat). */
  getIDsByHPath(args: T.NotebookPathArgs): Promise<string[]>;
  getPathByID(args: T.IdArg): Promise<T.PathByIdResult>;
  /** Child documents; `files: []` for a leaf **and** for an unknown document path. Unknown notebook → `kernel_rejected`. */
  listDocsByPath(args: T.ListDocsByPathArgs): Promise<T.ListDocsResult>;
  changeSort(args: T.ChangeSortArgs): Promise<void>;
  /** `null` when the block is not found (kernel code 3, or code 1 "tree not found" for an unknown ID). */
  getDoc(args: T.GetDocArgs): Promise<T.GetDocResult | null>;
  /**
   * Copies the document holding the block (a block ID copies its whole document) beside it, with
   * new block IDs and the title suffixed ` (Duplicated <time of the new ID>)`; answers the copy.
   * Unknown ID → `kernel_rejected` ("tree not found"). Not idempotent: each call makes a copy.
   */
  duplicateDoc(args: T.IdArg): Promise<T.DuplicateDocResult>;
  /**
   * Turns a heading and the blocks under it into a document with the heading's ID, under
   * `targetPath` (`/` or a document's storage path) of `targetNoteBook`; answers null data.
   */
  heading2Doc(args: T.Heading2DocArgs): Promise<void>;
  /**
   * Turns a document into a heading (its blocks under it) before or after `targetID`, removing
   * the document's file; answers its notebook and path, both "" when nothing was done.
   */
  doc2Heading(args: T.Doc2HeadingArgs): Promise<T.Doc2HeadingResult>;
  /**
   * Today's daily note of the notebook (kernel local time): **found by its hpath → returned as is,
   * absent → created** (with missing parents). Unknown or closed notebook → `kernel_rejected` code 1.
   */
  createDailyNote(args: T.CreateDailyNoteArgs): Promise<{ id: string }>;
}

/** Block methods (`/api/block/*`). Write methods return the kernel's transactions. */
export interface BlockApi {
  /** `null` for an unknown ID (the kernel answers code 0 with an empty kramdown). */
  getBlockKramdown(args: T.GetBlockKramdownArgs): Promise<T.KramdownResult | null>;
  /** Map ID → kramdown; unknown IDs map to `null` (or are absent). */
  getBlockKramdowns(args: T.GetBlockKramdownsArgs): Promise<Record<string, string | null>>;
  /** `null` for an unknown ID (code 0 with an empty dom). */
  getBlockDOM(args: T.IdArg): Promise<T.DomResult | null>;
  /** Map ID → DOM; unknown IDs map to `null` (or are absent). */
  getBlockDOMs(args: T.IdsArg): Promise<Record<string, string | null>>;
  /** Children; **`[]` for both a leaf and an unknown ID** (the kernel does not tell them apart). */
  getChildBlocks(args: T.IdArg): Promise<ChildBlock[]>;
  /** Unknown ID → `kernel_rejected` (code -1). Code 3 (indexing) is retried like a transient read failure, then `kernel_rejected`. */
  getBlockInfo(args: T.IdArg): Promise<BlockInfo>;
  checkBlockExist(args: T.IdArg): Promise<boolean>;
  /**
   * Runes, words, links, images and references summed over the blocks (a document's whole tree;
   * database cells not counted). Unknown IDs add nothing but `blockCount` is the number of IDs sent.
   */
  getBlocksWordCount(args: T.IdsWordCountArgs): Promise<T.BlockStatResult>;
  /** The 16 paragraphs updated last (SQL index, `type = 'p'`, longer than one character). */
  getRecentUpdatedBlocks(): Promise<T.RecentUpdatedBlocksResult>;
  /** The doc, the ancestors and headings above the block, then the block (`name: ""`); `[]` for an unknown ID. */
  getBlockBreadcrumb(args: T.GetBlockBreadcrumbArgs): Promise<T.BreadcrumbResult>;
  insertBlock(args: T.InsertBlockArgs): Promise<Transaction[]>;
  prependBlock(args: T.ParentBlockArgs): Promise<Transaction[]>;
  appendBlock(args: T.ParentBlockArgs): Promise<Transaction[]>;
  /** Replaces content **and IAL** (attributes not in `data` are lost). */
  updateBlock(args: T.UpdateBlockArgs): Promise<Transaction[]>;
  /** Queued, not flushed; an unknown ID still answers code 0. */
  deleteBlock(args: T.IdArg): Promise<Transaction[]>;
  moveBlock(args: T.MoveBlockArgs): Promise<void>;
  foldBlock(args: T.IdArg): Promise<void>;
  unfoldBlock(args: T.IdArg): Promise<void>;
  /**
   * Re-points every block reference to `fromID` (inside `refIDs` only, when given) at `toID`:
   * dynamic anchors take `toID`'s ref text, static ones stay; `updated` is kept. An unknown
   * `toID` → `kernel_rejected` ("block not found"); an unknown `fromID` or `fromID = toID`
   * answers code 0 and changes nothing. Not flushed through the transaction queue: it writes
   * the trees and then flushes the index itself.
   */
  transferBlockRef(args: T.TransferBlockRefArgs): Promise<void>;
  /**
   * Appends to today's daily note of the notebook, creating the note (with its empty paragraph)
   * when absent; answers the insert transaction (its `doOperations[0].id` is the first new block).
   * Unknown or closed notebook → `kernel_rejected` ("create daily note failed: …").
   */
  appendDailyNoteBlock(args: T.DailyNoteBlockArgs): Promise<Transaction[]>;
  /** As {@link appendDailyNoteBlock}, as the note's first block(s). */
  prependDailyNoteBlock(args: T.DailyNoteBlockArgs): Promise<Transaction[]>;
}

/** Attribute methods (`/api/attr/*`). */
export interface AttrApi {
  /** All IAL pairs; `null` for an unknown ID (the kernel answers `{}`). */
  getBlockAttrs(args: T.IdArg): Promise<Record<string, string> | null>;
  setBlockAttrs(args: T.SetBlockAttrsArgs): Promise<void>;
  /** Map ID → attrs; unknown IDs map to `null` (or are absent). */
  batchGetBlockAttrs(args: T.IdsArg): Promise<Record<string, Record<string, string> | null>>;
  batchSetBlockAttrs(args: T.BatchSetBlockAttrsArgs): Promise<void>;
}

/** The typed client. Every method throws only `SiyuanApiError`. */
export interface SiyuanClient {
  readonly notebook: NotebookApi;
  readonly filetree: FiletreeApi;
  readonly block: BlockApi;
  readonly attr: AttrApi;
  readonly ref: {
    /** Documents referencing / mentioning the block; an unknown ID → empty lists and `box: ""`. */
    getBacklink2(args: T.GetBacklink2Args): Promise<T.Backlink2Result>;
  };
  readonly outline: {
    /** Top-level headings (sub-headings nested); `[]` both for no headings and an unknown ID. */
    getDocOutline(args: T.IdArg): Promise<T.DocOutlineResult>;
  };
  readonly storage: {
    /** Recent documents, newest first; `[]` for the UI sorts when no UI filled the list. */
    getRecentDocs(args: T.GetRecentDocsArgs): Promise<T.RecentDocsResult>;
  };
  readonly query: {
    /** Rows of one read-only statement (sent with `mode: "readonly"`). SQL errors → `kernel_rejected` code 1. */
    sql(args: T.SqlArgs): Promise<Array<Record<string, unknown>>>;
  };
  readonly search: {
    fullTextSearchBlock(args: T.FullTextSearchArgs): Promise<T.FullTextSearchResult>;
    /** Templates under `data/templates/` whose path holds every word of `k` (admin, not read-only mode). */
    searchTemplate(args: T.SearchTemplateArgs): Promise<T.SearchTemplateResult>;
    /** Blocks referencing a block that no longer exists, one page (sorted by ID), with counts. */
    listInvalidBlockRefs(args: T.ListInvalidBlockRefsArgs): Promise<T.InvalidBlockRefsResult>;
    /** Files under `data/assets/` by name or path (admin, not read-only mode); at most 64. */
    searchAsset(args: T.SearchAssetArgs): Promise<T.SearchAssetResult>;
    /** Blocks a reference could point to, by keyword (the editor's `((` search). */
    searchRefBlock(args: T.SearchRefBlockArgs): Promise<T.SearchRefBlockResult>;
    /** Text of indexed asset files (txt, md, pdf, docx…) by keyword, one page. */
    fullTextSearchAssetContent(args: T.AssetContentSearchArgs): Promise<T.AssetContentSearchResult>;
    /** Blocks nearest in meaning; empty when SiYuan's embedding is off. */
    semanticSearchBlock(args: T.SemanticSearchArgs): Promise<T.FullTextSearchResult>;
  };
  readonly sqlite: {
    /** Waits until the kernel's write queue and SQL index queue are empty. */
    flushTransaction(): Promise<void>;
  };
  readonly av: {
    /** `av` is `null` when the database file does not exist. */
    getAttributeView(args: T.IdArg): Promise<T.GetAttributeViewResult>;
    renderAttributeView(args: T.RenderAttributeViewArgs): Promise<T.RenderAttributeViewResult>;
    getAttributeViewKeysByAvID(args: T.AvIdArg): Promise<Array<z.infer<typeof S.avKeySchema>>>;
    addAttributeViewKey(args: T.AddAttributeViewKeyArgs): Promise<void>;
    removeAttributeViewKey(args: T.RemoveAttributeViewKeyArgs): Promise<void>;
    addAttributeViewBlocks(args: T.AddAttributeViewBlocksArgs): Promise<void>;
    removeAttributeViewBlocks(args: T.RemoveAttributeViewBlocksArgs): Promise<void>;
    setAttributeViewBlockAttr(args: T.SetAttributeViewBlockAttrArgs): Promise<{ value: unknown }>;
    batchSetAttributeViewBlockAttrs(args: T.BatchSetAttributeViewBlockAttrsArgs): Promise<void>;
    /** A view's filters and sorts (the block's view, else the current one). */
    getAttributeViewFilterSort(args: T.AvFilterSortArgs): Promise<T.AvFilterSortResult>;
    /** Databases by name that a block shows, at most 12. */
    searchAttributeView(args: T.AvSearchArgs): Promise<T.AvSearchResult>;
    /** One page of a database's primary-key values, last updated first. */
    getAttributeViewPrimaryKeyValues(
      args: T.AvPrimaryKeyValuesArgs,
    ): Promise<T.AvPrimaryKeyValuesResult>;
    /** Writes a copy of the database's file; inserts no block (the caller inserts `blockID`). */
    duplicateAttributeViewBlock(args: T.AvIdArg): Promise<T.AvDuplicateResult>;
  };
  readonly asset: {
    /** Multipart upload (`file[]`). */
    upload(args: T.UploadAssetArgs): Promise<T.UploadResult>;
    /** Asset links of a document (unknown ID → `kernel_rejected` code -1 "tree not found"). */
    getDocAssets(args: T.GetDocAssetsArgs): Promise<T.DocAssetsResult>;
    /**
     * Asset files and folders no document links (nor a database, nor a title image), newest first,
     * at most 512 (beyond that the kernel also shows the user a toast).
     */
    getUnusedAssets(): Promise<T.UnusedAssetsResult>;
    /**
     * Removes `data/<path>` (a file or a folder), a copy kept in history; the kernel checks no link.
     * Answers the absolute path, also when nothing was there.
     */
    removeUnusedAsset(args: T.PathArg): Promise<string>;
    /**
     * Renames an asset to `<newName>-<new ID><its extension>` and replaces its old file name in
     * every document (text too, closed notebooks too) and its old path in database files; answers
     * the new path, `""` for an unchanged or empty name, a path also when there was no file
     * (kernel-probes asset.renameAsset).
     */
    renameAsset(args: { readonly oldPath: string; readonly newName: string }): Promise<string>;
    /** Removes every asset the kernel finds unused (uncapped); answers their absolute paths. */
    removeUnusedAssets(): Promise<string[]>;
  };
  readonly file: {
    /** Raw bytes; `null` when the file does not exist (HTTP 202 + code 404). */
    getFile(args: T.PathArg): Promise<T.FileContent | null>;
    /** Multipart write; parents are created, an existing file is overwritten. */
    putFile(args: T.PutFileArgs): Promise<void>;
    /** Entries; `null` when the path does not exist (code 404). */
    readDir(args: T.PathArg): Promise<DirEntry[] | null>;
    removeFile(args: T.PathArg): Promise<void>;
    renameFile(args: T.RenameFileArgs): Promise<void>;
  };
  readonly template: {
    /**
     * Saves the block's document (a heading with its children, another block alone) as
     * `data/templates/<name>.md`: `false` when that file exists and `overwrite` is false (code 1,
     * nothing written). An unknown ID answers `true` and writes nothing (kernel-probes
     * template.docSaveAsTemplate).
     */
    docSaveAsTemplate(args: T.DocSaveAsTemplateArgs): Promise<boolean>;
    /**
     * Runs the template file (Go `text/template` between `.action{` and `}`, sprig and SiYuan's SQL
     * functions; `.title`, `.id`, `.name`, `.alias` of the block's document) and answers the
     * result as editor DOM with fresh block IDs. Always sent with `preview: true`, so nothing is
     * saved. Errors are code -1: "tree not found" (unknown block), "open …: no such file or
     * directory", "Path […] is not in workspace", "Parse template failed: …" (kernel-probes
     * template.render.*).
     */
    render(args: T.RenderTemplateArgs): Promise<T.RenderTemplateResult>;
  };
  readonly export: {
    exportMdContent(args: T.ExportMdContentArgs): Promise<T.ExportMdResult>;
    /** A zip of workspace files; `path` is `temp/export/<32 hex>-<name>.zip`, served at `GET /export/…`. */
    exportResources(args: T.ExportResourcesArgs): Promise<T.ExportResourcesResult>;
  };
  readonly history: {
    searchHistory(args: T.SearchHistoryArgs): Promise<T.SearchHistoryResult>;
    getHistoryItems(args: T.GetHistoryItemsArgs): Promise<T.HistoryItem[]>;
    /** All fields empty when no such history file exists (code 0). */
    getDocHistoryContent(args: T.DocHistoryContentArgs): Promise<T.DocHistoryContent>;
    createDocHistory(args: T.IdArg): Promise<void>;
    rollbackDocHistory(args: T.HistoryPathArg): Promise<void>;
  };
  /**
   * The data repo's snapshots (`/api/repo/*`). Every call fails (code -1, a localized "initialize
   * the data repo key first") while `conf.repo.key` is unset; the strict-write lease never calls
   * these.
   */
  readonly repo: {
    /** One page (32) of snapshots, newest first; a page past the last is empty. */
    getRepoSnapshots(args: T.RepoSnapshotsArgs): Promise<T.RepoSnapshotsPage>;
    /**
     * Snapshots the data with this memo (trimmed, invisible characters dropped; blank refused).
     * Answers nothing: when the data equal the latest snapshot no new one is made.
     */
    createSnapshot(args: T.CreateSnapshotArgs): Promise<void>;
    /** Files added, updated and removed from snapshot `left` to `right` (an unknown ID: code -1). */
    diffRepoSnapshots(args: T.RepoDiffArgs): Promise<T.RepoDiff>;
  };
  readonly riff: {
    /** Every deck but the built-in one, newest update first. */
    getRiffDecks(): Promise<T.RiffDeck[]>;
    /** A page of a deck's cards by due time; an unknown deck answers an empty page. */
    getRiffCards(args: T.GetRiffCardsArgs): Promise<T.RiffCardsPage>;
    /** The deck's due cards; starts a new review round unless `reviewedCards` is given. */
    getRiffDueCards(args: T.GetRiffDueCardsArgs): Promise<T.RiffDueCards>;
    /** The built-in deck's due cards whose blocks are in the notebook. */
    getNotebookRiffDueCards(args: T.GetNotebookRiffDueCardsArgs): Promise<T.RiffDueCards>;
    createRiffDeck(args: { readonly name: string }): Promise<T.RiffDeck>;
    /** The deck after the call; `null` for an unknown deck (after writing the blocks' attribute). */
    addRiffCards(args: T.RiffCardsArgs): Promise<T.RiffDeck | null>;
    /** The deck after the call; `null` for an unknown deck. */
    removeRiffCards(args: T.RiffCardsArgs): Promise<T.RiffDeck | null>;
    /** Rates a card (1 again, 2 hard, 3 good, 4 easy); an unknown deck or card is no error. */
    reviewRiffCard(args: T.ReviewRiffCardArgs): Promise<void>;
  };
  readonly notification: {
    /** Returns the toast's message ID. */
    pushMsg(args: T.PushMsgArgs): Promise<string>;
    pushErrMsg(args: T.PushMsgArgs): Promise<string>;
  };
  readonly system: {
    version(): Promise<string>;
    /** Kernel time in Unix milliseconds. */
    currentTime(): Promise<number>;
    bootProgress(): Promise<T.BootProgress>;
    /**
     * The kernel's configuration (`conf`) as it answers it, secrets included (`api.token`,
     * `cookieKey`, sync and AI keys): never hand it on whole.
     */
    getConf(): Promise<T.GetConfResult>;
    /** The workspace's absolute directory on the kernel's host, and the kernel's version. */
    getWorkspaceInfo(): Promise<T.WorkspaceInfo>;
  };
  readonly transactions: {
    /** Raw `/api/transactions`; the answer's data is returned unvalidated. */
    send(args: T.TransactionsArgs): Promise<unknown>;
  };
  readonly sync: {
    /**
     * Starts a cloud sync by hand (`/api/sync/performSync`). The kernel answers `data: null`
     * whatever happens: sync disabled, failed or done is only shown to the user as a toast.
     */
    performSync(): Promise<void>;
  };
  /** Same as `sqlite.flushTransaction()`: call before reading back after a write. */
  flush(): Promise<void>;
  /** Calls an endpoint without a typed wrapper; returns `data` unvalidated. */
  callRaw(args: RawCallArgs): Promise<unknown>;
  /**
   * One JSON-RPC message to the kernel's built-in `/mcp` (contract §4.11), not an `/api/` endpoint
   * (no envelope): sent once for `write`, retried like a read for `read`.
   */
  callMcp(args: McpSendArgs): Promise<McpHttpAnswer>;
  /**
   * A view of this client — same transport, retry policy and counters (`stats()` sees its calls) —
   * whose calls are also charged to `budget` (and to this client's own budget, if any). Cheap: one
   * per tool call is fine. `close()` on the view closes the shared transport.
   */
  withBudget(budget: CallBudget): SiyuanClient;
  /**
   * A view of this client — same transport, budget and counters — whose reads follow `readRetry`
   * over this client's own policy (e.g. one call's configured number of attempts). Cheap.
   */
  withReadRetry(readRetry: Partial<ReadRetryPolicy>): SiyuanClient;
  /** Counters by endpoint since creation or the last `resetStats()`. */
  stats(): ClientStats;
  resetStats(): void;
  /** Closes the transport (its own pool). */
  close(): Promise<void>;
}

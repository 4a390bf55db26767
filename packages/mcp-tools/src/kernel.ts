/**
 * The kernel operations the tools use, as one narrow port.
 *
 * Handlers depend on this port, not on the whole client, so the kernel calls an action makes are
 * visible in one place (and countable). `kernelFromClient` adapts `@sisyphus/siyuan-api`.
 * Every method makes exactly one kernel call. Reads answer `null` for an unknown ID; writes throw
 * the client's `SiyuanApiError`, whose `writeDispatched` tells the coordinator whether the write
 * may have happened.
 */

/** What the kernel's `/mcp` answered: HTTP 200 or 202 and the body (JSON-RPC, or empty). */
export interface McpHttpAnswer {
  readonly status: number;
  readonly text: string;
}

/** A notebook row of `lsNotebooks`. */
export interface NotebookRow {
  readonly id: string;
  readonly name: string;
  readonly icon: string;
  readonly sort: number;
  readonly sortMode: number;
  readonly closed: boolean;
}

/** `getBlockInfo` data. */
export interface BlockInfo {
  readonly box: string;
  readonly path: string;
  readonly rootID: string;
  readonly rootTitle: string;
}

/** One child of `getChildBlocks`. */
export interface ChildBlock {
  readonly id: string;
  readonly type: string;
  readonly subType?: string | undefined;
  /** The block's plain text (SQL `content`). */
  readonly content?: string | undefined;
}

/** One document row of `listDocsByPath`. */
export interface DocFile {
  readonly id: string;
  readonly path: string;
  readonly name: string;
  readonly sort: number;
  readonly subFileCount: number;
}

/** Data of `listDocsByPath`. */
export interface DocList {
  readonly box: string;
  readonly path: string;
  readonly files: readonly DocFile[];
}

/** Where a new block goes. */
export interface InsertAnchor {
  readonly nextID?: string | undefined;
  readonly previousID?: string | undefined;
  readonly parentID?: string | undefined;
}

/** One document of `getBacklink2`: it references (or mentions) the target `count` times. */
export interface RefDoc {
  readonly id: string;
  readonly notebook: string;
  readonly title: string;
  /** `<notebook name>/<hpath>`, as the kernel gives it. */
  readonly path: string;
  readonly count: number;
}

/** `getBacklink2` data: referencing and mentioning documents, newest update first. */
export interface RefDocs {
  /** The target's notebook; `""` when the kernel does not know the ID. */
  readonly notebook: string;
  readonly backlinks: readonly RefDoc[];
  readonly backmentions: readonly RefDoc[];
}

/** One heading of `getDocOutline`; `children` are its sub-headings. */
export interface OutlineHeading {
  readonly id: string;
  /** `h1` … `h6`. */
  readonly subType: string;
  /** The heading's text as the kernel's HTML (entities, `&nbsp;` for spaces). */
  readonly html: string;
  readonly children: readonly OutlineHeading[];
}

/** One entry of `getBlockBreadcrumb` (the last is the block itself, `name: ""`). */
export interface CrumbEntry {
  readonly id: string;
  /** HTML-escaped text. */
  readonly name: string;
  readonly type: string;
  readonly subType: string;
}

/** One item of `getRecentDocs` (times in Unix seconds, absent when zero). */
export interface RecentDoc {
  readonly id: string;
  readonly title: string;
  readonly viewedAt?: number | undefined;
  readonly openAt?: number | undefined;
  readonly closedAt?: number | undefined;
}

/** How `getRecentDocs` sorts: the UI's recent list by one of its times, or the index by `updated`. */
export type RecentSort = "viewedAt" | "openAt" | "closedAt" | "updated";

/** What `getBlocksWordCount` sums over the blocks it found (a database's cells not counted). */
export interface BlockStat {
  readonly runeCount: number;
  readonly wordCount: number;
  readonly linkCount: number;
  readonly imageCount: number;
  readonly refCount: number;
}

/** One paragraph of `getRecentUpdatedBlocks` (`updated` from its attributes, `YYYYMMDDhhmmss`). */
export interface RecentBlock {
  readonly id: string;
  readonly notebook: string;
  readonly docID: string;
  readonly hpath: string;
  /** Plain text as the index holds it, HTML-escaped by the kernel. */
  readonly content: string;
  readonly updated: string;
}

/** A page of `listInvalidBlockRefs` as the client reads it. */
export interface InvalidRefsPage {
  /** The blocks holding a reference to a block that no longer exists. */
  readonly blocks: readonly RecentBlock[];
  /** How many such blocks the kernel found in all (every notebook). */
  readonly matched: number;
}

/** One hit of `searchAsset`: `assets/…` and the file name without its ID and marks. */
export interface AssetHit {
  readonly path: string;
  readonly name: string;
}

/** One asset of `getUnusedAssets`: `assets/…` under `data/`, or `<notebook>/assets/…`. */
export interface UnusedAsset {
  readonly path: string;
  readonly name: string;
}

/** One entry of `readDir`: a name, whether it is a folder, its modification time (Unix seconds). */
export interface DirEntryRow {
  readonly name: string;
  readonly isDir: boolean;
  readonly updated: number;
}

/** One template of `searchTemplate`: its path under `data/templates/`. */
export interface TemplateHit {
  readonly path: string;
}

/**
 * What `/api/template/render` answered: the rendered editor DOM, or why it rendered nothing: no
 * such template file, no such block, or the template itself failed (the Go template error).
 */
export type RenderedTemplate =
  | { readonly kind: "rendered"; readonly dom: string }
  | { readonly kind: "no_template" }
  | { readonly kind: "no_block" }
  /** `message` as the kernel sent it: HTML-escaped. */
  | { readonly kind: "template_error"; readonly message: string };

/** A database column (`Key` of contract §4.7), as the kernel gives it; extra fields kept. */
export interface AvKey {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly [field: string]: unknown;
}

/** A database file (`AttributeView` JSON of contract §4.7), loosely: `id` and `views` known. */
export interface AvFile {
  readonly id: string;
  readonly name?: string | undefined;
  readonly keyValues?: readonly unknown[] | null | undefined;
  readonly viewID?: string | undefined;
  readonly views?: readonly unknown[] | null | undefined;
  readonly [field: string]: unknown;
}

/** `renderAttributeView` data, loosely: `view` holds a table's `columns`, `rows`, `rowCount`. */
export interface AvRender {
  readonly id: string;
  readonly name?: string | undefined;
  readonly viewType?: string | undefined;
  readonly viewID?: string | undefined;
  readonly views?: readonly unknown[] | null | undefined;
  readonly view?: unknown;
  readonly [field: string]: unknown;
}

/** Which view and page of a database to render. */
export interface AvPage {
  readonly viewID?: string | undefined;
  readonly page: number;
  readonly pageSize: number;
}

/**
 * The kernel reads of the tools: everything a probe, a readback or a read action may call.
 * `ToolContext.kernel` has only these, so a probe or readback cannot write.
 */
export interface KernelReads {
  /** `tools/list` at the kernel's own `/mcp` (stateless 2026-07-28): the HTTP answer as is. */
  mcpListTools(): Promise<McpHttpAnswer>;
  getBlockKramdown(id: string): Promise<string | null>;
  getBlockDOM(id: string): Promise<string | null>;
  /** Several blocks' Kramdown in one call, as `getBlockKramdown` gives each; unknown IDs absent. */
  getBlockKramdowns(ids: readonly string[]): Promise<Record<string, string>>;
  /** Several blocks' DOM in one call, as `getBlockDOM` gives each; unknown IDs absent. */
  getBlockDOMs(ids: readonly string[]): Promise<Record<string, string>>;
  /**
   * The ID of the document holding a block, once the kernel applied every queued write
   * (`/api/filetree/getDoc` flushes the write queue before it loads); `null` for an unknown block.
   */
  getDocRootID(id: string): Promise<string | null>;
  getBlockAttrs(id: string): Promise<Record<string, string> | null>;
  getChildBlocks(id: string): Promise<ChildBlock[]>;
  getBlockInfo(id: string): Promise<BlockInfo | null>;
  checkBlockExist(id: string): Promise<boolean>;
  lsNotebooks(): Promise<NotebookRow[]>;
  getNotebookConf(notebook: string): Promise<Record<string, unknown> | null>;
  getHPathByID(id: string): Promise<string | null>;
  getPathByID(id: string): Promise<{ path: string; notebook: string } | null>;
  getIDsByHPath(notebook: string, hpath: string): Promise<string[]>;
  listDocsByPath(notebook: string, path: string, sort?: number): Promise<DocList | null>;
  sql(stmt: string): Promise<Record<string, unknown>[]>;
  fullTextSearch(query: string, page: number, pageSize: number): Promise<unknown>;
  version(): Promise<string>;
  /** Waits until the kernel applied every queued write (`/api/sqlite/flushTransaction`). */
  flush(): Promise<void>;
  /** A workspace file's bytes (`/api/file/getFile`, path from the workspace root), `null` if absent. */
  getFile(path: string): Promise<Uint8Array | null>;
  /** A workspace folder's entries (`/api/file/readDir`), `null` when there is nothing at `path`. */
  readDir(path: string): Promise<DirEntryRow[] | null>;
  /** A document as Markdown without IALs (`/api/export/exportMdContent`), `null` for an unknown ID. */
  exportMdContent(id: string): Promise<{ hPath: string; content: string } | null>;
  /**
   * One page (32) of the times a document has history points, newest first, by its ID
   * (`/api/history/searchHistory` type 3): Unix seconds as strings. Points show a few seconds
   * after they are made (the kernel indexes its history every 3 s).
   */
  historyTimes(docId: string, page: number): Promise<HistoryTimes>;
  /** The document's history points at one of those times (`/api/history/getHistoryItems`). */
  historyItems(created: string, docId: string): Promise<HistoryPoint[]>;
  /**
   * A history point's blocks (`/api/history/getDocHistoryContent`): protyle DOM, or Markdown for
   * a point of 1 MiB or more (`markdown: true`); `null` when no such file exists.
   */
  historyContent(
    historyPath: string,
  ): Promise<{ readonly content: string; readonly markdown: boolean } | null>;
  /** The kernel's clock, Unix milliseconds (`/api/system/currentTime`). */
  currentTime(): Promise<number>;
  /** The kernel's configuration (`/api/system/getConf`), secrets included: pick fields from it. */
  systemConf(): Promise<Readonly<Record<string, unknown>>>;
  /**
   * Whether the workspace has a data repo key (`getConf`'s `conf.repo.key` not empty). Only the
   * yes/no leaves this call: the key is never kept, logged or answered.
   */
  repoKeySet(): Promise<boolean>;
  /**
   * One page (32) of the data repo's snapshots, newest first (`/api/repo/getRepoSnapshots`; only
   * history.snapshot_* call it). Fails while the workspace has no data repo key.
   */
  repoSnapshots(page: number): Promise<RepoSnapshotPage>;
  /**
   * The files added, updated and removed from snapshot `left` to `right`
   * (`/api/repo/diffRepoSnapshots`), `null` when the kernel refuses (an unknown snapshot).
   */
  repoDiff(left: string, right: string): Promise<RepoSnapshotDiff | null>;
  /** Documents referencing / mentioning the block (`/api/ref/getBacklink2`); empty when unknown. */
  getBacklinks(id: string): Promise<RefDocs>;
  /** Top-level headings of the block's document (`/api/outline/getDocOutline`); `[]` for none. */
  getDocOutline(id: string): Promise<OutlineHeading[]>;
  /** From the document down to the block (`/api/block/getBlockBreadcrumb`); `[]` when unknown. */
  getBlockBreadcrumb(id: string): Promise<CrumbEntry[]>;
  /** Recent documents, newest first (`/api/storage/getRecentDocs`). */
  getRecentDocs(sortBy: RecentSort): Promise<RecentDoc[]>;
  /** A database's file (`/api/av/getAttributeView`); `null` when it has none. */
  getAttributeView(id: string): Promise<AvFile | null>;
  /**
   * One page of a database view (`/api/av/renderAttributeView` with `createIfNotExist: false`, so
   * a read never creates a database); `null` when the database has no file.
   */
  renderAttributeView(id: string, page: AvPage): Promise<AvRender | null>;
  /** A database's columns (`/api/av/getAttributeViewKeysByAvID`); `[]` when it has no file. */
  getAttributeViewKeys(avID: string): Promise<AvKey[]>;
  /** Counts summed over blocks the kernel finds (`/api/block/getBlocksWordCount`); unknown add 0. */
  getBlocksWordCount(ids: readonly string[]): Promise<BlockStat>;
  /** The 16 paragraphs updated last, once each (`/api/block/getRecentUpdatedBlocks`). */
  getRecentUpdatedBlocks(): Promise<RecentBlock[]>;
  /** Asset links (`assets/…`) of the block's document (`/api/asset/getDocAssets`); `null` if unknown. */
  getDocAssets(id: string): Promise<string[] | null>;
  /** Asset files and folders no document links, newest first, at most 512 (`getUnusedAssets`). */
  getUnusedAssets(): Promise<UnusedAsset[]>;
  /** Templates whose path holds every word of `keyword` (`/api/search/searchTemplate`), ranked. */
  searchTemplate(keyword: string): Promise<TemplateHit[]>;
  /**
   * Renders the workspace file `path` (e.g. `/data/templates/weekly.md`) for block `id`
   * (`/api/system/getWorkspaceInfo` for the host path, then `/api/template/render` with
   * `preview: true`, which saves nothing).
   */
  renderTemplate(path: string, id: string): Promise<RenderedTemplate>;
  /** Every flashcard deck but the built-in one, newest update first (`/api/riff/getRiffDecks`). */
  riffDecks(): Promise<RiffDeck[]>;
  /** A page of a deck's cards by due time (`getRiffCards`); an unknown deck is an empty page. */
  riffCards(deckId: string, page: number, pageSize: number): Promise<RiffCardPage>;
  /**
   * The deck's cards due now, at most 20 new and 200 old (`getRiffDueCards`). It also starts a new
   * review round in the kernel: a card rated earlier is no longer put back before its next rating.
   */
  riffDueCards(deckId: string): Promise<RiffDue>;
  /** The built-in deck's cards due now whose blocks are in the notebook (`getNotebookRiffDueCards`). */
  riffNotebookDueCards(notebook: string): Promise<RiffDue>;
  /** Blocks with a reference to a missing block, sorted by ID (`listInvalidBlockRefs`), one page. */
  listInvalidBlockRefs(page: number, pageSize: number): Promise<InvalidRefsPage>;
  /** Files under `data/assets/` whose name or path holds the keyword (`searchAsset`), ranked. */
  searchAsset(keyword: string, exts: readonly string[]): Promise<AssetHit[]>;
  /**
   * A view's filters and sorts (`/api/av/getAttributeViewFilterSort`): the block's view, else the
   * current one (`blockID` `""`); `null` when the database has no file.
   */
  avFilterSort(avID: string, blockID: string): Promise<AvFilterSort | null>;
  /** Databases a block shows whose name holds every word (`/api/av/searchAttributeView`), ≤ 12. */
  searchAttributeView(keyword: string): Promise<AvSearchHit[]>;
  /**
   * Primary-key values holding `keyword`, last updated first, at most `limit`
   * (`/api/av/getAttributeViewPrimaryKeyValues`, page 1); `null` when the database has no file.
   */
  avPrimaryKeyValues(avID: string, keyword: string, limit: number): Promise<AvPrimaryKeys | null>;
  /** Blocks a reference typed as `keyword` could point to (`/api/search/searchRefBlock`), ranked. */
  searchRefBlock(keyword: string, fromID: string, rootID: string): Promise<SearchBlockHit[]>;
  /** Indexed asset files whose text holds `query` (`fullTextSearchAssetContent`), one page. */
  searchAssetContent(query: string, page: number, pageSize: number): Promise<AssetContentPage>;
  /** Blocks nearest in meaning (`/api/search/semanticSearchBlock`), one page; none when off. */
  semanticSearch(query: string, page: number, pageSize: number): Promise<SemanticPage>;
}

/** A view's filters (spec 5: one root group, its leaves in `filters`) and sorts, as stored. */
export interface AvFilterSort {
  readonly filters: readonly unknown[];
  readonly sorts: readonly unknown[];
}

/** One database of `searchAttributeView`: the first block showing it, its document path, views. */
export interface AvSearchHit {
  readonly avID: string;
  readonly name: string;
  readonly blockID: string;
  /** The block's document, the notebook's name first. */
  readonly hpath: string;
  readonly views: ReadonlyArray<{
    readonly id: string;
    readonly name: string;
    readonly type: string;
  }>;
}

/** `getAttributeViewPrimaryKeyValues`: name ("Untitled" if none), blocks showing it, values. */
export interface AvPrimaryKeys {
  readonly name: string;
  readonly blockIDs: readonly string[];
  /** Primary-key cells (`{blockID, isDetached?, block: {id?, content, updated}}`). */
  readonly values: readonly unknown[];
}

/** One block hit of a search: its text with the hits in `<mark>` (HTML-escaped). */
export interface SearchBlockHit {
  readonly id: string;
  readonly type: string;
  readonly notebook: string;
  readonly docID: string;
  readonly hpath: string;
  readonly content: string;
  /** The text a reference to it shows (a document's title). */
  readonly refText: string;
}

/** One asset file of `fullTextSearchAssetContent`; `content` marked and HTML-escaped. */
export interface AssetContentHit {
  readonly path: string;
  readonly name: string;
  readonly ext: string;
  readonly size: number;
  /** Unix seconds of the file's last change. */
  readonly updated: number;
  readonly content: string;
}

/** A page of asset text hits, with the count over every page. */
export interface AssetContentPage {
  readonly hits: readonly AssetContentHit[];
  readonly matched: number;
  readonly pageCount: number;
}

/** A page of semantic hits, with the count over every page. */
export interface SemanticPage {
  readonly hits: readonly SearchBlockHit[];
  readonly matched: number;
  readonly pageCount: number;
}

/** A flashcard deck; times are `YYYY-MM-DD hh:mm:ss`, the kernel's local time. */
export interface RiffDeck {
  readonly id: string;
  readonly name: string;
  readonly size: number;
  readonly created: string;
  readonly updated: string;
}

/** One card of a deck; `cardId` is `""` when its block no longer exists. */
export interface RiffCard {
  readonly blockId: string;
  readonly cardId: string;
  readonly notebook: string;
  readonly content: string;
  /**
   * RFC 3339; `null` for a card never rated (the kernel then shows the time of the call, so it is
   * left out of every state digest).
   */
  readonly due: string | null;
  readonly reps: number;
  readonly lapses: number;
  /** FSRS state: 0 new, 1 learning, 2 review, 3 relearning. */
  readonly state: number;
  /** RFC 3339; `null` before the first rating. */
  readonly lastReview: string | null;
}

/** A page of a deck's cards. */
export interface RiffCardPage {
  readonly cards: readonly RiffCard[];
  readonly total: number;
  readonly pageCount: number;
}

/** One due card; `nextDues` maps a rating (1–4) to the kernel's words ("10 minutes"). */
export interface RiffDueCard {
  readonly deckId: string;
  readonly cardId: string;
  readonly blockId: string;
  readonly reps: number;
  readonly lapses: number;
  readonly state: number;
  /** ISO time; `null` before the first rating. */
  readonly lastReview: string | null;
  readonly nextDues: Readonly<Record<string, string>>;
}

/** The due cards of a deck or notebook and the kernel's counts of cards left in the round. */
export interface RiffDue {
  readonly cards: readonly RiffDueCard[];
  readonly unreviewed: number;
  readonly unreviewedNew: number;
  readonly unreviewedOld: number;
}

/** A data repo snapshot; `created` Unix ms. Host identifiers (system ID, name, OS) left out. */
export interface RepoSnapshotRow {
  readonly id: string;
  readonly memo: string;
  readonly created: number;
  /** Files in the snapshot. */
  readonly count: number;
  /** Bytes of those files. */
  readonly size: number;
  readonly tag: string;
}

/** A page of snapshots, newest first. */
export interface RepoSnapshotPage {
  readonly snapshots: readonly RepoSnapshotRow[];
  readonly pageCount: number;
  readonly totalCount: number;
}

/** A file of a snapshot diff: `path` under `data/`, `title` a document's or the file's name. */
export interface RepoDiffFile {
  readonly path: string;
  readonly title: string;
  /** Unix ms. */
  readonly updated: number;
}

/** From `left` to `right`: `updated` pairs each changed file's two versions by path. */
export interface RepoSnapshotDiff {
  readonly added: readonly RepoDiffFile[];
  readonly updated: ReadonlyArray<{ readonly left: RepoDiffFile; readonly right: RepoDiffFile }>;
  readonly removed: readonly RepoDiffFile[];
}

/** A page of a document's history times. */
export interface HistoryTimes {
  readonly times: readonly string[];
  readonly pageCount: number;
  readonly totalCount: number;
}

/** One history point as the kernel lists it; `path` is the handle (`/history/…/<id>.sy`). */
export interface HistoryPoint {
  readonly title: string;
  readonly path: string;
  readonly op: string;
  readonly notebook: string;
}

/** What `/api/asset/upload` answered: original file name → stored path (`assets/…`, under `data/`). */
export interface UploadAnswer {
  readonly succMap: Readonly<Record<string, string>>;
  readonly errFiles: readonly string[] | null;
}

/**
 * The kernel writes of the tools, each attempted exactly once. Executors receive them only
 * through the write coordinator's tracker (`WriteContext.write`), so the coordinator knows
 * whether any write of an execution may have reached the kernel.
 */
export interface KernelWrites {
  insertBlock(dataType: string, data: string, anchor: InsertAnchor): Promise<string | null>;
  prependBlock(dataType: string, data: string, parentID: string): Promise<string | null>;
  appendBlock(dataType: string, data: string, parentID: string): Promise<string | null>;
  updateBlock(id: string, dataType: string, data: string): Promise<void>;
  /**
   * Updates several blocks with one transaction (`/api/block/batchUpdateBlock`, kernel 3.7.3 since
   * 3.1.25; not in the contract): the kernel checks every block and its data before it queues
   * anything, runs the updates in order, keeps none of them when one fails (`performTx` rolls
   * back), and waits for the write queue before it answers, as `updateBlock` does.
   */
  batchUpdateBlock(blocks: readonly BlockUpdate[]): Promise<void>;
  deleteBlock(id: string): Promise<void>;
  moveBlock(
    id: string,
    anchor: { previousID?: string | undefined; parentID?: string | undefined },
  ): Promise<void>;
  setBlockAttrs(id: string, attrs: Record<string, string | null>): Promise<void>;
  /**
   * Folds or unfolds a block (`foldBlock` / `unfoldBlock`): `fold="1"` set or removed; a heading
   * also marks (or unmarks) every block of its section `fold`/`heading-fold`. A document is refused.
   */
  setFold(id: string, folded: boolean): Promise<void>;
  /**
   * Re-points the block references to `fromID` inside the `refIDs` blocks at `toID`
   * (`transferBlockRef`; dynamic anchors take `toID`'s text, static anchors stay).
   */
  transferBlockRef(fromID: string, toID: string, refIDs: readonly string[]): Promise<void>;
  /**
   * Appends (or prepends) blocks to today's daily note of the notebook, which the kernel creates
   * when absent (`appendDailyNoteBlock` / `prependDailyNoteBlock`); answers the first new block's ID.
   */
  dailyNoteBlock(
    where: "append" | "prepend",
    notebook: string,
    dataType: string,
    data: string,
  ): Promise<string | null>;
  createNotebook(name: string): Promise<NotebookRow>;
  renameNotebook(notebook: string, name: string): Promise<void>;
  setNotebookConf(notebook: string, conf: Record<string, unknown>): Promise<void>;
  /**
   * `setNotebookIcon`: the notebook's conf icon (and its notebook document's). SiYuan 3.7.3 checks
   * no notebook: an unknown ID gets a folder and a conf, i.e. a new notebook.
   */
  setNotebookIcon(notebook: string, icon: string): Promise<void>;
  openNotebook(notebook: string): Promise<void>;
  closeNotebook(notebook: string): Promise<void>;
  removeNotebook(notebook: string): Promise<void>;
  createDocWithMd(notebook: string, hpath: string, markdown: string): Promise<string>;
  renameDocByID(id: string, title: string): Promise<void>;
  removeDocByID(id: string): Promise<void>;
  moveDocsByID(ids: readonly string[], toID: string): Promise<void>;
  /**
   * Copies the document holding `id` beside it (`duplicateDoc`: new block IDs, title suffixed
   * ` (Duplicated <time>)`, child documents not copied); answers the copy's ID and storage path.
   */
  duplicateDoc(id: string): Promise<{ readonly id: string; readonly path: string }>;
  changeSort(notebook: string, paths: readonly string[]): Promise<void>;
  /**
   * `heading2Doc`: the heading and the blocks under it become a document with the heading's ID,
   * under `targetPath` (`/` or a document's storage path) of `notebook`.
   */
  heading2Doc(headingId: string, notebook: string, targetPath: string): Promise<void>;
  /**
   * `doc2Heading`: the document becomes a heading (its blocks under it) before `targetId`, or
   * after it (and after a target heading's blocks); its file is removed. Answers the removed
   * document's storage path, "" when the kernel did nothing.
   */
  doc2Heading(docId: string, targetId: string, after: boolean): Promise<{ readonly path: string }>;
  pushMsg(msg: string, timeout?: number): Promise<void>;
  /** Starts a cloud sync by hand; the kernel reports no outcome (`data: null` always). */
  performSync(): Promise<void>;
  /** `tools/call` at the kernel's own `/mcp` (stateless 2026-07-28), sent once: the HTTP answer. */
  mcpCallTool(name: string, args: Record<string, unknown>): Promise<McpHttpAnswer>;
  /** Copies the document holding block `id` into this second's history folder (`createDocHistory`). */
  createDocHistory(id: string): Promise<void>;
  /** Replaces the point's document with the point (`rollbackDocHistory`); keeps no point of it. */
  rollbackDocHistory(historyPath: string): Promise<void>;
  /**
   * Snapshots the data into the data repo (`/api/repo/createSnapshot`; only history.snapshot_create
   * calls it). Answers nothing, also when the data equal the latest snapshot and none is made.
   */
  createSnapshot(memo: string): Promise<void>;
  /**
   * Adds a card per block that has none in the deck and writes the deck into each block's
   * `custom-riff-decks` attribute (`addRiffCards`): the deck after, `null` for an unknown deck.
   */
  addRiffCards(deckId: string, blockIds: readonly string[]): Promise<RiffDeck | null>;
  /** Drops the blocks' cards from the deck and the deck from their attribute (`removeRiffCards`). */
  removeRiffCards(deckId: string, blockIds: readonly string[]): Promise<RiffDeck | null>;
  /** Rates a card 1–4 (`reviewRiffCard`); the kernel answers nothing either way. */
  reviewRiffCard(deckId: string, cardId: string, rating: number): Promise<void>;
  /** Today's daily note of the notebook, created when absent (kernel `createDailyNote`): its ID. */
  createDailyNote(notebook: string): Promise<string>;
  /** Uploads one file as an asset into `assetsDirPath` (relative to `data/`). */
  uploadAsset(
    file: { readonly fileName: string; readonly bytes: Uint8Array },
    assetsDirPath: string,
  ): Promise<UploadAnswer>;
  /**
   * Writes one workspace file (`/api/file/putFile` multipart, path from the workspace root); the
   * kernel creates missing parent folders and overwrites an existing file.
   */
  putFile(path: string, bytes: Uint8Array): Promise<void>;
  /**
   * Saves document `id` as `data/templates/<name>.md` (`docSaveAsTemplate`: its Markdown with block
   * IALs, `updated` dropped, template code blocks as text, the document's IAL last). `false`: the
   * file exists and `overwrite` is false, nothing written. An unknown ID writes nothing either.
   */
  docSaveAsTemplate(id: string, name: string, overwrite: boolean): Promise<boolean>;
  /** Removes one workspace file or folder (`/api/file/removeFile`, path from the workspace root). */
  removeFile(path: string): Promise<void>;
  /**
   * Removes `data/<path>`, a copy kept in the kernel's history (`removeUnusedAsset`); the kernel
   * checks no link itself. Answers the absolute path, also when nothing was there.
   */
  removeUnusedAsset(path: string): Promise<string>;
  /**
   * Renames asset `oldPath` (`renameAsset`): the new path, `""` when nothing was renamed. The kernel
   * replaces the old file name in every document, text and closed notebooks included.
   */
  renameAsset(oldPath: string, newName: string): Promise<string>;
  /** Removes every asset the kernel finds unused, uncapped (`removeUnusedAssets`): absolute paths. */
  removeUnusedAssets(): Promise<string[]>;
  /**
   * Zips workspace files (`/api/export/exportResources`): the zip's workspace path,
   * `temp/export/<32 hex>-<name>.zip`, served at `GET /export/…`. Creates a file in the kernel.
   */
  exportResources(paths: readonly string[]): Promise<string>;
  /**
   * Creates a database's file for its block (`/api/av/renderAttributeView` with
   * `createIfNotExist: true`): the kernel's default database when the file is missing.
   */
  createAttributeView(avID: string, blockID: string): Promise<void>;
  /** Names a database (`/api/transactions` op `setAttrViewName`; applied asynchronously). */
  setAttributeViewName(avID: string, name: string): Promise<void>;
  /**
   * Writes a copy of a database's file (`/api/av/duplicateAttributeViewBlock`): the new database's
   * ID and the ID its carrier block is to have; no block is inserted.
   */
  duplicateAttributeView(
    avID: string,
  ): Promise<{ readonly avID: string; readonly blockID: string }>;
  /** Adds a column with a caller-made key ID after `previousKeyID` ("" = first). */
  addAttributeViewKey(
    avID: string,
    key: { readonly id: string; readonly name: string; readonly type: string },
    previousKeyID: string,
  ): Promise<void>;
  /** Removes a column (`removeRelationDest` also removes a two-way relation's back key). */
  removeAttributeViewKey(avID: string, keyID: string, removeRelationDest?: boolean): Promise<void>;
  /** Adds rows with caller-made item IDs: bound blocks (`blockID`) or detached rows (`content`). */
  addAttributeViewBlocks(
    avID: string,
    rows: ReadonlyArray<{
      readonly itemID: string;
      readonly blockID?: string;
      readonly content?: string;
    }>,
  ): Promise<void>;
  /** Removes rows: detached rows are deleted, bound blocks unbound (the blocks stay). */
  removeAttributeViewBlocks(avID: string, itemIDs: readonly string[]): Promise<void>;
  /** Sets cells in one call (`batchSetAttributeViewBlockAttrs`; stops at the first failure). */
  batchSetAttributeViewBlockAttrs(
    avID: string,
    values: ReadonlyArray<{
      readonly keyID: string;
      readonly itemID: string;
      readonly value: unknown;
    }>,
  ): Promise<void>;
  /**
   * Adds a column and configures it in one `/api/transactions`: op `addAttrViewCol`, then
   * `updateAttrViewColRelation` (a relation) or `updateAttrViewColRollup` (a rollup). Applied
   * asynchronously; the kernel runs the ops in order and stops at the first that fails, keeping
   * the database files earlier ops wrote, so a column may exist unconfigured.
   */
  addAttrViewColumn(col: NewAvColumn): Promise<void>;
}

/** One block of a `batchUpdateBlock`: its ID and its new data. */
export interface BlockUpdate {
  readonly id: string;
  readonly dataType: string;
  readonly data: string;
}

/** A database column to add with a caller-made key ID after `previousKeyID` ("" = first). */
export interface NewAvColumn {
  readonly avID: string;
  readonly key: { readonly id: string; readonly name: string; readonly type: string };
  readonly previousKeyID: string;
  /** A relation's destination; the back key (two-way) is named `backName`, or by the kernel. */
  readonly relation?: {
    readonly destAvID: string;
    readonly isTwoWay: boolean;
    readonly backKeyID: string;
    readonly backName: string;
  };
  /** A rollup of `targetKeyID` (in the destination) through relation column `relationKeyID`. */
  readonly rollup?: {
    readonly relationKeyID: string;
    readonly targetKeyID: string;
    readonly operator: string;
  };
}

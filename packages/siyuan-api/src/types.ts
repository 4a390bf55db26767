/**
 * Request and result types of the typed client methods. Field names are the kernel's own
 * (contract Part 1), so a method's argument is exactly the JSON body the kernel receives.
 */
import type { z } from "zod";
import type {
  assetContentSearchSchema,
  avDuplicateSchema,
  avFilterSortSchema,
  avPrimaryKeyValuesSchema,
  avSearchSchema,
  backlink2Schema,
  blockStatSchema,
  bootProgressSchema,
  breadcrumbSchema,
  docAssetsSchema,
  docHistoryContentSchema,
  docOutlineSchema,
  exportMdSchema,
  exportResourcesSchema,
  fullTextSearchSchema,
  getAttributeViewSchema,
  getConfSchema,
  getDocSchema,
  historyItemsSchema,
  invalidBlockRefsSchema,
  listDocsSchema,
  lsNotebooksSchema,
  notebookConfSchema,
  recentDocsSchema,
  recentUpdatedBlocksSchema,
  renderAttributeViewSchema,
  renderTemplateSchema,
  repoDiffSchema,
  repoSnapshotsSchema,
  riffCardsSchema,
  riffDeckSchema,
  riffDueCardsSchema,
  searchAssetSchema,
  searchHistorySchema,
  searchRefBlockSchema,
  searchTemplateSchema,
  unusedAssetsSchema,
  uploadSchema,
  workspaceInfoSchema,
} from "./schemas.js";

/** `lsNotebooks` result: every notebook, closed ones included. */
export type LsNotebooksResult = z.infer<typeof lsNotebooksSchema>;
/** `getNotebookConf` result. */
export type NotebookConfResult = z.infer<typeof notebookConfSchema>;
/** `listDocsByPath` result. */
export type ListDocsResult = z.infer<typeof listDocsSchema>;
/** `getDoc` result (block DOM of the loaded part of a document). */
export type GetDocResult = z.infer<typeof getDocSchema>;
/** `fullTextSearchBlock` result. */
export type FullTextSearchResult = z.infer<typeof fullTextSearchSchema>;
/** `bootProgress` result. */
export type BootProgress = z.infer<typeof bootProgressSchema>;
/** `exportMdContent` result: Markdown without IALs. */
export type ExportMdResult = z.infer<typeof exportMdSchema>;
/** `template/render` result: `content` is editor DOM. */
export type RenderTemplateResult = z.infer<typeof renderTemplateSchema>;
/** `system/getWorkspaceInfo` result. */
export type WorkspaceInfo = z.infer<typeof workspaceInfoSchema>;
/** `asset/upload` result: `succMap` maps the original filename to `assets/…`; `errFiles` is null when none failed. */
export type UploadResult = z.infer<typeof uploadSchema>;
/** `getAttributeView` result; `av` is null when the database file is missing. */
export type GetAttributeViewResult = z.infer<typeof getAttributeViewSchema>;
/** `renderAttributeView` result (loosely typed; `view` holds rows and columns). */
export type RenderAttributeViewResult = z.infer<typeof renderAttributeViewSchema>;

/** `getBacklink2` result: referencing and mentioning documents, one `Path` each. */
export type Backlink2Result = z.infer<typeof backlink2Schema>;
/** `getDocOutline` result: top-level headings, `[]` for none (the kernel's `null`) or an unknown ID. */
export type DocOutlineResult = z.infer<typeof docOutlineSchema>;
/** `getBlockBreadcrumb` result: the doc down to the block (`name: ""`); `[]` for an unknown ID. */
export type BreadcrumbResult = z.infer<typeof breadcrumbSchema>;
/** `getRecentDocs` result, newest first. */
export type RecentDocsResult = z.infer<typeof recentDocsSchema>;
/** `getBlocksWordCount` counts (the kernel's `stat`). */
export type BlockStatResult = z.infer<typeof blockStatSchema>;
/** `getRecentUpdatedBlocks` result: at most 16 paragraphs, latest update first (repeats possible). */
export type RecentUpdatedBlocksResult = z.infer<typeof recentUpdatedBlocksSchema>;
/** `getDocAssets` result: asset links of the document, in order, repeats kept. */
export type DocAssetsResult = z.infer<typeof docAssetsSchema>;
/** `getUnusedAssets` result: at most 512, newest first. */
export type UnusedAssetsResult = z.infer<typeof unusedAssetsSchema>;
/** `listInvalidBlockRefs` result: one page of blocks with a dead reference, and the counts. */
export type InvalidBlockRefsResult = z.infer<typeof invalidBlockRefsSchema>;
/** `listInvalidBlockRefs` request: `page` from 1, `pageSize` (the kernel's default 32). */
export interface ListInvalidBlockRefsArgs {
  readonly page: number;
  readonly pageSize: number;
}
/** `searchAsset` result: at most the search limit (64), most hits first. */
export type SearchAssetResult = z.infer<typeof searchAssetSchema>;
/** `searchAsset` request: `k` (whole and split on spaces) in the name or path; `exts` like `.png`. */
export interface SearchAssetArgs {
  readonly k: string;
  readonly exts?: readonly string[];
}
/** `getConf` result: the whole configuration, secrets included. */
export type GetConfResult = z.infer<typeof getConfSchema>;
/** `searchTemplate` result. */
export type SearchTemplateResult = z.infer<typeof searchTemplateSchema>;

/** `getBlocksWordCount` request. */
export interface IdsWordCountArgs {
  readonly ids: readonly string[];
}
/** `searchTemplate` request: `k` is split on spaces, every word must be in the template's path. */
export interface SearchTemplateArgs {
  readonly k: string;
}
/** `getDocAssets` request; `retainQueryStr` (default true) keeps `?…` after an asset path. */
export interface GetDocAssetsArgs {
  readonly id: string;
  readonly retainQueryStr?: boolean;
}

/** `getBlockKramdown` result; the method returns `null` instead for an unknown ID. */
export interface KramdownResult {
  readonly id: string;
  readonly kramdown: string;
}
/** `getBlockDOM` result; the method returns `null` instead for an unknown ID. */
export interface DomResult {
  readonly id: string;
  readonly dom: string;
}
/** `getPathByID` result: the containing document's storage path and notebook. */
export interface PathByIdResult {
  readonly path: string;
  readonly notebook: string;
}
/** `doc2Heading` request. */
export interface Doc2HeadingArgs {
  readonly srcID: string;
  readonly targetID: string;
  readonly after: boolean;
}
/** `doc2Heading` result. */
export interface Doc2HeadingResult {
  readonly srcTreeBox: string;
  readonly srcTreePath: string;
}
/** `heading2Doc` request (the kernel's spelling `targetNoteBook`). */
export interface Heading2DocArgs {
  readonly srcHeadingID: string;
  readonly targetNoteBook: string;
  readonly targetPath: string;
}
/** `duplicateDoc` result: the new document (its storage path, notebook and human path). */
export interface DuplicateDocResult {
  readonly id: string;
  readonly notebook: string;
  readonly path: string;
  readonly hPath: string;
}
/** `getFile` result: the raw bytes and the kernel's `Content-Type`. */
export interface FileContent {
  readonly bytes: Uint8Array;
  readonly contentType: string | undefined;
}

/** Block content format for insert/update. */
export type BlockDataType = "markdown" | "dom";

/** Argument of the notebook methods that take only a notebook ID. */
export interface NotebookArg {
  readonly notebook: string;
}
/** Argument of the methods that take one block/document ID. */
export interface IdArg {
  readonly id: string;
}
/** Argument of the batch read methods. */
export interface IdsArg {
  readonly ids: readonly string[];
}
/** `createNotebook` request (an empty name is accepted by the kernel). */
export interface CreateNotebookArgs {
  readonly name: string;
}
/** `renameNotebook` request. */
export interface RenameNotebookArgs {
  readonly notebook: string;
  readonly name: string;
}
/** `setNotebookIcon` request (`""` clears the icon). */
export interface SetNotebookIconArgs {
  readonly notebook: string;
  readonly icon: string;
}
/** `setNotebookConf` request. */
export interface SetNotebookConfArgs {
  readonly notebook: string;
  /** Merged onto the current conf. */
  readonly conf: Readonly<Record<string, unknown>>;
}
/** `changeSortNotebook` request: notebook IDs in the wanted order. */
export interface ChangeSortNotebookArgs {
  readonly notebooks: readonly string[];
}
/** `createDocWithMd` request. */
export interface CreateDocWithMdArgs {
  readonly notebook: string;
  /** Human path (hpath) such as `/a/b`; the last segment is the title. Not idempotent. */
  readonly path: string;
  readonly markdown: string;
  readonly parentID?: string;
  /** Preset document ID (not validated by the kernel). */
  readonly id?: string;
  readonly tags?: string;
}
/** `renameDoc` request. */
export interface RenameDocArgs {
  readonly notebook: string;
  /** Storage path `/…/<id>.sy`. */
  readonly path: string;
  readonly title: string;
}
/** `renameDocByID` request. */
export interface RenameDocByIdArgs {
  readonly id: string;
  readonly title: string;
}
/** A notebook plus a path (storage path or hpath, per method). */
export interface NotebookPathArgs {
  readonly notebook: string;
  readonly path: string;
}
/** `moveDocs` request. */
export interface MoveDocsArgs {
  readonly fromPaths: readonly string[];
  readonly toNotebook: string;
  /** `/` for the notebook root, or the target parent's storage path. */
  readonly toPath: string;
}
/** `moveDocsByID` request. */
export interface MoveDocsByIdArgs {
  readonly fromIDs: readonly string[];
  /** A parent document ID or a notebook ID. */
  readonly toID: string;
}
/** `listDocsByPath` request (`sort`: sort-mode number, contract §4.1). */
export interface ListDocsByPathArgs {
  readonly notebook: string;
  readonly path: string;
  readonly sort?: number;
  readonly maxListCount?: number;
  readonly showHidden?: boolean;
  readonly ignoreMaxListHint?: boolean;
}
/** `changeSort` request. */
export interface ChangeSortArgs {
  readonly notebook: string;
  /** Ordered storage paths of siblings. */
  readonly paths: readonly string[];
}
/** `getDoc` request (`mode` 0 this, 1 up, 2 down, 3 both, 4 end). */
export interface GetDocArgs {
  readonly id: string;
  readonly mode?: number;
  readonly size?: number;
  readonly index?: number;
  readonly startID?: string;
  readonly endID?: string;
}
/** `getBlockKramdown` request. */
export interface GetBlockKramdownArgs {
  readonly id: string;
  readonly mode?: "md" | "textmark";
}
/** `getBlockKramdowns` request. */
export interface GetBlockKramdownsArgs {
  readonly ids: readonly string[];
  readonly mode?: "md" | "textmark";
}
/** `insertBlock`: at least one anchor; priority nextID > previousID > parentID. */
export interface InsertBlockArgs {
  readonly dataType: BlockDataType;
  readonly data: string;
  readonly nextID?: string;
  readonly previousID?: string;
  readonly parentID?: string;
}
/** `prependBlock`/`appendBlock` request: `parentID` must be a container block. */
export interface ParentBlockArgs {
  readonly dataType: BlockDataType;
  readonly data: string;
  readonly parentID: string;
}
/** `appendDailyNoteBlock`/`prependDailyNoteBlock` request: the notebook whose note of today takes the block. */
export interface DailyNoteBlockArgs {
  readonly notebook: string;
  readonly dataType: BlockDataType;
  readonly data: string;
}
/** `transferBlockRef` request (`kernel/api/block.go`). */
export interface TransferBlockRefArgs {
  readonly fromID: string;
  readonly toID: string;
  /** Only the references inside these blocks; absent or empty: every block the refs index lists. */
  readonly refIDs?: readonly string[];
  /** Whether the kernel reloads every open window afterwards (default true). */
  readonly reloadUI?: boolean;
}
/** `updateBlock` request. */
export interface UpdateBlockArgs {
  readonly dataType: BlockDataType;
  readonly data: string;
  readonly id: string;
}
/** `moveBlock` request: `previousID` wins over `parentID`. */
export interface MoveBlockArgs {
  readonly id: string;
  readonly previousID?: string;
  readonly parentID?: string;
}
/** `setBlockAttrs` request. */
export interface SetBlockAttrsArgs {
  readonly id: string;
  /** `null` or `""` deletes an attribute. */
  readonly attrs: Readonly<Record<string, string | null>>;
}
/** `batchSetBlockAttrs` request. */
export interface BatchSetBlockAttrsArgs {
  readonly blockAttrs: ReadonlyArray<SetBlockAttrsArgs>;
}
/** `query.sql` request. */
export interface SqlArgs {
  /** One SELECT statement; `LIMIT 64` is added by the kernel when absent. */
  readonly stmt: string;
}
/** `fullTextSearchBlock` request (contract §4.6). */
export interface FullTextSearchArgs {
  readonly query: string;
  /** 0 keyword, 1 query syntax, 2 SQL, 3 regex. */
  readonly method?: number;
  readonly types?: Readonly<Record<string, boolean>>;
  readonly paths?: readonly string[];
  readonly groupBy?: number;
  readonly orderBy?: number;
  readonly page?: number;
  readonly pageSize?: number;
}
/** `exportResources` request: workspace-relative paths; `name` names the zip and its top folder. */
export interface ExportResourcesArgs {
  readonly paths: readonly string[];
  readonly name?: string;
}
/** `exportResources` result: the zip's workspace path (`temp/export/…`). */
export type ExportResourcesResult = z.infer<typeof exportResourcesSchema>;
/** `history/searchHistory` request: `type` 3 searches by document ID (`query`). */
export interface SearchHistoryArgs {
  readonly query?: string;
  readonly type?: number;
  readonly page?: number;
  readonly op?: string;
  readonly notebook?: string;
}
/** `history/getHistoryItems` request: `created` is one time `searchHistory` listed. */
export interface GetHistoryItemsArgs extends SearchHistoryArgs {
  readonly created: string;
}
/** `history/getDocHistoryContent` request. */
export interface DocHistoryContentArgs {
  readonly historyPath: string;
  readonly k?: string;
  readonly highlight?: boolean;
}
/** `history/rollbackDocHistory` request. */
export interface HistoryPathArg {
  readonly historyPath: string;
}
/** `repo/getRepoSnapshots` request (`page` from 1; the kernel requires it). */
export interface RepoSnapshotsArgs {
  readonly page: number;
}
/** `repo/getRepoSnapshots` result. */
export type RepoSnapshotsPage = z.infer<typeof repoSnapshotsSchema>;
/** One data repo snapshot. */
export type RepoSnapshot = RepoSnapshotsPage["snapshots"][number];
/** `repo/createSnapshot` request. */
export interface CreateSnapshotArgs {
  readonly memo: string;
}
/** `repo/diffRepoSnapshots` request: two snapshot IDs. */
export interface RepoDiffArgs {
  readonly left: string;
  readonly right: string;
}
/** `repo/diffRepoSnapshots` result. */
export type RepoDiff = z.infer<typeof repoDiffSchema>;
/** `history/searchHistory` result. */
export type SearchHistoryResult = z.infer<typeof searchHistorySchema>;
/** One `history/getHistoryItems` item. */
export type HistoryItem = z.infer<typeof historyItemsSchema>["items"][number];
/** `history/getDocHistoryContent` result. */
export type DocHistoryContent = z.infer<typeof docHistoryContentSchema>;
/** A flashcard deck (`riff/getRiffDecks`). */
export type RiffDeck = z.infer<typeof riffDeckSchema>;
/** `riff/getRiffCards` result. */
export type RiffCardsPage = z.infer<typeof riffCardsSchema>;
/** `riff/getRiffDueCards` result (the client turns a null list into []). */
export interface RiffDueCards {
  readonly cards: NonNullable<z.infer<typeof riffDueCardsSchema>["cards"]>;
  readonly unreviewedCount: number;
  readonly unreviewedNewCardCount: number;
  readonly unreviewedOldCardCount: number;
}
/** `riff/getRiffCards` request: `id` a deck ("" every deck); `pageSize` defaults to 20. */
export interface GetRiffCardsArgs {
  readonly id: string;
  readonly page: number;
  readonly pageSize?: number;
}
/** `riff/getRiffDueCards` request: `reviewedCards` continues a review round. */
export interface GetRiffDueCardsArgs {
  readonly deckID: string;
  readonly reviewedCards?: ReadonlyArray<{ readonly cardID: string }>;
}
/** `riff/getNotebookRiffDueCards` request. */
export interface GetNotebookRiffDueCardsArgs {
  readonly notebook: string;
  readonly reviewedCards?: ReadonlyArray<{ readonly cardID: string }>;
}
/** `riff/addRiffCards` and `removeRiffCards` request. */
export interface RiffCardsArgs {
  readonly deckID: string;
  readonly blockIDs: readonly string[];
}
/** `riff/reviewRiffCard` request: `rating` 1 again, 2 hard, 3 good, 4 easy. */
export interface ReviewRiffCardArgs {
  readonly deckID: string;
  readonly cardID: string;
  readonly rating: number;
}
/** `exportMdContent` request. */
export interface ExportMdContentArgs {
  readonly id: string;
  readonly refMode?: number;
  readonly embedMode?: number;
  /** YAML front matter; the kernel's default is true. */
  readonly yfm?: boolean;
}
/** `getBacklink2` request (contract §4.10). */
export interface GetBacklink2Args {
  readonly id: string;
  /** Backlink filter (space-separated words); `""` for all. */
  readonly k: string;
  /** Mention filter; `""` for all. */
  readonly mk: string;
  /** Sort codes as **numeric strings** (a JSON number makes the kernel panic); default `"3"`. */
  readonly sort?: string;
  readonly mSort?: string;
  readonly containChildren?: boolean;
}
/** `getBlockBreadcrumb` request. */
export interface GetBlockBreadcrumbArgs {
  readonly id: string;
  /** Inline types left out of the names. */
  readonly excludeTypes?: readonly string[];
}
/** `getRecentDocs` request; `updated` asks the index, the others read the UI's recent list. */
export interface GetRecentDocsArgs {
  readonly sortBy?: "viewedAt" | "openAt" | "closedAt" | "updated";
}
/** `createDailyNote` request. */
export interface CreateDailyNoteArgs {
  readonly notebook: string;
  readonly app?: string;
}
/** `pushMsg`/`pushErrMsg` request. */
export interface PushMsgArgs {
  readonly msg: string;
  /** Milliseconds; kernel default 7000. */
  readonly timeout?: number;
}
/** `template/render` request (the client adds `preview: true`). */
export interface RenderTemplateArgs {
  /** The block whose document's title, ID, name and alias the template sees. */
  readonly id: string;
  /** The template file's absolute path on the kernel's host, inside the workspace. */
  readonly path: string;
}
/** `docSaveAsTemplate` request: `name` without `.md` (the kernel adds it). */
export interface DocSaveAsTemplateArgs {
  readonly id: string;
  readonly name: string;
  readonly overwrite: boolean;
}
/** Argument of the file methods that take one workspace path. */
export interface PathArg {
  /** Workspace-relative path, e.g. `/data/storage/petal/x.json`. */
  readonly path: string;
}
/** `putFile` request (sent as multipart). */
export interface PutFileArgs {
  readonly path: string;
  /** File content; a string is sent as UTF-8. Required unless `isDir`. */
  readonly file?: Uint8Array | string;
  /** Create a directory only. */
  readonly isDir?: boolean;
  /** Modification time in milliseconds since the epoch (kernel default: now). */
  readonly modTimeMs?: number;
}
/** `renameFile` request. */
export interface RenameFileArgs {
  readonly path: string;
  readonly newPath: string;
}
/** `asset/upload` request (sent as multipart, field `file[]`). */
export interface UploadAssetArgs {
  readonly files: ReadonlyArray<{
    readonly filename: string;
    readonly bytes: Uint8Array;
    readonly contentType?: string;
  }>;
  /** Default `/assets/`, relative to `data/`. */
  readonly assetsDirPath?: string;
  readonly id?: string;
  readonly skipIfDuplicated?: boolean;
}
/** Argument of AV methods that take only a database ID. */
export interface AvIdArg {
  readonly avID: string;
}
/** `renderAttributeView` request (may create the database file). */
export interface RenderAttributeViewArgs {
  readonly id: string;
  readonly blockID?: string;
  readonly viewID?: string;
  readonly page?: number;
  readonly pageSize?: number;
  readonly query?: string;
  readonly createIfNotExist?: boolean;
}
/** `addAttributeViewKey` request (`keyID` is a new node ID made by the caller). */
export interface AddAttributeViewKeyArgs {
  readonly avID: string;
  readonly keyID: string;
  readonly keyName: string;
  readonly keyType: string;
  readonly keyIcon: string;
  readonly previousKeyID: string;
}
/** `removeAttributeViewKey` request. */
export interface RemoveAttributeViewKeyArgs {
  readonly avID: string;
  readonly keyID: string;
  readonly removeRelationDest?: boolean;
}
/** `addAttributeViewBlocks` request. */
export interface AddAttributeViewBlocksArgs {
  readonly avID: string;
  readonly srcs: ReadonlyArray<{
    readonly id: string;
    readonly isDetached: boolean;
    readonly content?: string;
    readonly itemID?: string;
  }>;
  readonly blockID?: string;
  readonly viewID?: string;
  readonly previousID?: string;
}
/** `removeAttributeViewBlocks` request. */
export interface RemoveAttributeViewBlocksArgs {
  readonly avID: string;
  readonly srcIDs: readonly string[];
}
/** `setAttributeViewBlockAttr` request. */
export interface SetAttributeViewBlockAttrArgs {
  readonly avID: string;
  readonly keyID: string;
  readonly itemID: string;
  readonly value: unknown;
}
/** `batchSetAttributeViewBlockAttrs` request. */
export interface BatchSetAttributeViewBlockAttrsArgs {
  readonly avID: string;
  readonly values: ReadonlyArray<{
    readonly keyID: string;
    readonly itemID: string;
    readonly value: unknown;
  }>;
}
/** `/api/transactions` request. */
export interface TransactionsArgs {
  readonly transactions: ReadonlyArray<{
    readonly doOperations: readonly unknown[];
    readonly undoOperations?: readonly unknown[] | null;
  }>;
  /** Millisecond timestamp identifying the request. */
  readonly reqId?: number;
  readonly app?: string;
  readonly session?: string;
}

/** `getAttributeViewFilterSort` request: the database, and the block whose view (`""`: the current). */
export interface AvFilterSortArgs {
  readonly id: string;
  readonly blockID: string;
}
/** `getAttributeViewFilterSort` result: both `null` when the database has no file. */
export type AvFilterSortResult = z.infer<typeof avFilterSortSchema>;
/** `searchAttributeView` request: every word of `keyword` in the name (any case); `""` lists all. */
export interface AvSearchArgs {
  readonly keyword: string;
  readonly excludes?: readonly string[];
}
/** `searchAttributeView` result: at most 12 databases that a block shows. */
export type AvSearchResult = z.infer<typeof avSearchSchema>;
/** `getAttributeViewPrimaryKeyValues` request: `pageSize` below 1 means 16. */
export interface AvPrimaryKeyValuesArgs {
  readonly id: string;
  readonly keyword?: string;
  readonly page?: number;
  readonly pageSize?: number;
}
/** `getAttributeViewPrimaryKeyValues` result (an unknown database: code -1 "view not found"). */
export type AvPrimaryKeyValuesResult = z.infer<typeof avPrimaryKeyValuesSchema>;
/** `searchRefBlock` request: `id` and `rootID` the referencing block and its document, excluded. */
export interface SearchRefBlockArgs {
  readonly id: string;
  readonly rootID: string;
  readonly k: string;
  readonly beforeLen: number;
}
/** `searchRefBlock` result: at most the search limit, ranked as the editor's `((` menu. */
export type SearchRefBlockResult = z.infer<typeof searchRefBlockSchema>;
/** `fullTextSearchAssetContent` request: `query` in indexed asset text; pageSize default 32. */
export interface AssetContentSearchArgs {
  readonly query: string;
  readonly page?: number;
  readonly pageSize?: number;
}
/** `fullTextSearchAssetContent` result: one page, the counts over every match. */
export type AssetContentSearchResult = z.infer<typeof assetContentSearchSchema>;
/** `semanticSearchBlock` request: the embedding of `query` against the blocks' embeddings. */
export interface SemanticSearchArgs {
  readonly query: string;
  readonly page?: number;
  readonly pageSize?: number;
}
/** `duplicateAttributeViewBlock` result: no block exists yet under `blockID` (the caller inserts it). */
export type AvDuplicateResult = z.infer<typeof avDuplicateSchema>;

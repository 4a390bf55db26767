/**
 * Zod schemas of the kernel's answers (contract Part 1, SiYuan 3.7.3). Objects are "loose": fields the
 * contract lists and callers rely on are required, the rest optional, and unknown extra fields pass
 * through (newer kernels add fields). Go `nil` slices arrive as JSON `null`; where the contract says
 * "array", `null` is read as an empty array.
 */
import { z } from "zod";

/**
 * SiYuan node ID: 14-digit timestamp, `-`, 7 lowercase letters or digits (contract §2.1). The
 * product's one definition: tool schemas and reference parsers import it (a pattern that contains
 * an ID uses `NODE_ID_PATTERN.source` without its `^`/`$`). Only the sandbox, a test kernel, keeps
 * the kernel's own copy.
 */
export const NODE_ID_PATTERN = /^\d{14}-[a-z0-9]{7}$/;

/** The kernel envelope `{code, msg, data}` (contract §1.1). */
export const envelopeSchema = z.object({
  code: z.number(),
  msg: z.string().nullish(),
  data: z.unknown(),
});

const nullableArray = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullable()
    .transform((v) => v ?? []);

/** `Box` (contract §4.1). */
export const boxSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  icon: z.string().optional(),
  sort: z.number().optional(),
  sortMode: z.number().optional(),
  closed: z.boolean(),
  subFileCount: z.number().optional(),
  newFlashcardCount: z.number().optional(),
  dueFlashcardCount: z.number().optional(),
  flashcardCount: z.number().optional(),
  encrypted: z.boolean().optional(),
  unlocked: z.boolean().optional(),
});
/** A notebook as `lsNotebooks`/`createNotebook` return it. */
export type Box = z.infer<typeof boxSchema>;

export const lsNotebooksSchema = z.looseObject({
  notebooks: nullableArray(boxSchema),
  boxDocEnabled: z.boolean().optional(),
});

/** `BoxConf` (contract §4.1, `.siyuan/conf.json`). */
export const boxConfSchema = z.looseObject({
  name: z.string().optional(),
  sort: z.number().optional(),
  icon: z.string().optional(),
  closed: z.boolean().optional(),
  refCreateSaveBox: z.string().optional(),
  refCreateSavePath: z.string().optional(),
  docCreateSaveBox: z.string().optional(),
  docCreateSavePath: z.string().optional(),
  dailyNoteSavePath: z.string().optional(),
  dailyNoteTemplatePath: z.string().optional(),
  sortMode: z.number().optional(),
  encrypted: z.boolean().optional(),
  boxCrypt: z.unknown().optional(),
});
/** A notebook's configuration. */
export type BoxConf = z.infer<typeof boxConfSchema>;

export const createNotebookSchema = z.looseObject({ notebook: boxSchema });
export const notebookConfSchema = z.looseObject({
  box: z.string(),
  name: z.string(),
  conf: boxConfSchema,
});

export const nodeIdSchema = z.string().regex(NODE_ID_PATTERN, "not a SiYuan node ID");
export const stringSchema = z.string();
export const stringArraySchema = nullableArray(z.string());
export const booleanSchema = z.boolean();
export const numberSchema = z.number();
/** For endpoints whose `data` is `null` on success; anything is accepted and ignored. */
export const ignoredSchema = z.unknown();

export const pathByIdSchema = z
  .looseObject({ path: z.string(), notebook: z.string().optional(), box: z.string().optional() })
  .refine((v) => v.notebook !== undefined || v.box !== undefined, {
    message: "notebook (or box) is required",
  })
  .transform((v) => ({ path: v.path, notebook: (v.notebook ?? v.box) as string }));

/** `doc2Heading` result: the removed document's notebook and storage path ("" when nothing moved). */
export const doc2HeadingSchema = z.looseObject({ srcTreeBox: z.string(), srcTreePath: z.string() });
/** `duplicateDoc` result (`kernel/api/filetree.go`). */
export const duplicateDocSchema = z.looseObject({
  id: z.string(),
  notebook: z.string(),
  path: z.string(),
  hPath: z.string(),
});

/** `File` of `listDocsByPath` (contract §4.3). */
export const docFileSchema = z.looseObject({
  id: z.string(),
  path: z.string(),
  name: z.string(),
  titleEmpty: z.boolean().optional(),
  icon: z.string().optional(),
  name1: z.string().optional(),
  alias: z.string().optional(),
  memo: z.string().optional(),
  bookmark: z.string().optional(),
  count: z.number().optional(),
  size: z.number().optional(),
  hSize: z.string().optional(),
  mtime: z.number().optional(),
  ctime: z.number().optional(),
  hMtime: z.string().optional(),
  hCtime: z.string().optional(),
  sort: z.number().optional(),
  subFileCount: z.number().optional(),
  newFlashcardCount: z.number().optional(),
  dueFlashcardCount: z.number().optional(),
  flashcardCount: z.number().optional(),
});
/** One document of a `listDocsByPath` listing. */
export type DocFile = z.infer<typeof docFileSchema>;
export const listDocsSchema = z.looseObject({
  box: z.string(),
  path: z.string(),
  files: nullableArray(docFileSchema),
});

/** `getDoc` data (contract §4.3); `content` is block DOM HTML. */
export const getDocSchema = z.looseObject({
  id: z.string(),
  rootID: z.string(),
  content: z.string(),
  mode: z.number().optional(),
  parentID: z.string().optional(),
  parent2ID: z.string().optional(),
  type: z.string().optional(),
  blockCount: z.number().optional(),
  eof: z.boolean().optional(),
  box: z.string().optional(),
  path: z.string().optional(),
  isSyncing: z.boolean().optional(),
});

/** A transaction operation (contract §4.4); `id`/`parentID` are filled in after the flush. */
export const operationSchema = z.looseObject({
  action: z.string(),
  id: z.string(),
  data: z.unknown().optional(),
  rootID: z.string().optional(),
  parentID: z.string().optional(),
  previousID: z.string().optional(),
  nextID: z.string().optional(),
  retData: z.unknown().optional(),
});
/** One operation of a write transaction. */
export type Operation = z.infer<typeof operationSchema>;
export const transactionSchema = z.looseObject({
  timestamp: z.number().optional(),
  doOperations: nullableArray(operationSchema),
  undoOperations: z.array(operationSchema).nullable().optional(),
});
/** A transaction as block write endpoints return it. */
export type Transaction = z.infer<typeof transactionSchema>;
export const transactionsSchema = z.array(transactionSchema).min(1);

export const kramdownSchema = z.looseObject({ id: z.string(), kramdown: z.string() });
export const domSchema = z.looseObject({ id: z.string(), dom: z.string() });
export const stringMapSchema = z.record(z.string(), z.string());
export const childBlockSchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  subType: z.string().optional(),
  content: z.string().optional(),
  markdown: z.string().optional(),
});
/** A child as `getChildBlocks` returns it. */
export type ChildBlock = z.infer<typeof childBlockSchema>;
export const childBlocksSchema = nullableArray(childBlockSchema);
export const blockInfoSchema = z.looseObject({
  box: z.string(),
  path: z.string(),
  rootID: z.string(),
  rootTitle: z.string().optional(),
  rootTitleEmpty: z.boolean().optional(),
  rootChildID: z.string().optional(),
  rootIcon: z.string().optional(),
});
/** Where a block lives (`getBlockInfo`). */
export type BlockInfo = z.infer<typeof blockInfoSchema>;

export const attrsSchema = z.record(z.string(), z.string());
export const batchAttrsSchema = z.record(z.string(), attrsSchema);

export const sqlRowsSchema = nullableArray(z.record(z.string(), z.unknown()));

/** A search hit (contract §4.6). */
export const searchBlockSchema = z.looseObject({
  id: z.string(),
  box: z.string().optional(),
  path: z.string().optional(),
  hPath: z.string().optional(),
  rootID: z.string().optional(),
  parentID: z.string().optional(),
  content: z.string().optional(),
  fcontent: z.string().optional(),
  markdown: z.string().optional(),
  type: z.string().optional(),
  subType: z.string().optional(),
  ial: z.record(z.string(), z.string()).nullable().optional(),
  created: z.string().optional(),
  updated: z.string().optional(),
});
/** One block of a full-text search result. */
export type SearchBlock = z.infer<typeof searchBlockSchema>;
export const fullTextSearchSchema = z.looseObject({
  blocks: nullableArray(searchBlockSchema),
  matchedBlockCount: z.number(),
  matchedRootCount: z.number(),
  pageCount: z.number(),
  docMode: z.boolean().optional(),
});

/** A `Path` of `getBacklink2` (contract §4.10): one referencing (or mentioning) document. */
export const backlinkPathSchema = z.looseObject({
  id: z.string(),
  box: z.string(),
  name: z.string(),
  hPath: z.string(),
  count: z.number(),
  updated: z.string().optional(),
  created: z.string().optional(),
});
export const backlink2Schema = z.looseObject({
  backlinks: nullableArray(backlinkPathSchema),
  linkRefsCount: z.number(),
  backmentions: nullableArray(backlinkPathSchema),
  mentionsCount: z.number(),
  box: z.string().optional(),
});

/** A sub-heading of `getDocOutline`: the kernel's `Block`, nested through `children`. */
export interface OutlineBlock {
  readonly id: string;
  readonly subType: string;
  readonly content: string;
  /** Absent or `[]` when the heading has no sub-headings (the kernel sends `null`). */
  readonly children?: readonly OutlineBlock[] | undefined;
  readonly [key: string]: unknown;
}
export const outlineBlockSchema: z.ZodType<OutlineBlock, unknown> = z.looseObject({
  id: z.string(),
  subType: z.string(),
  content: z.string(),
  get children() {
    return nullableArray(outlineBlockSchema).optional();
  },
});
/** A top-level heading of `getDocOutline` (a `Path` whose `blocks` are its sub-headings). */
export const outlinePathSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  subType: z.string(),
  blocks: nullableArray(outlineBlockSchema)
    .optional()
    .transform((v) => v ?? []),
});
/** `getDocOutline`: `null` (no headings) is read as `[]`. */
export const docOutlineSchema = nullableArray(outlinePathSchema);

/** One `BlockPath` of `getBlockBreadcrumb`. */
export const breadcrumbEntrySchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  subType: z.string().optional(),
});
export const breadcrumbSchema = nullableArray(breadcrumbEntrySchema);

/** One item of `getRecentDocs` (times in Unix seconds; zero fields are left out). */
export const recentDocSchema = z.looseObject({
  rootID: z.string(),
  icon: z.string().optional(),
  title: z.string().optional(),
  viewedAt: z.number().optional(),
  openAt: z.number().optional(),
  closedAt: z.number().optional(),
});
export const recentDocsSchema = nullableArray(recentDocSchema);

export const createDailyNoteSchema = z.looseObject({ id: nodeIdSchema });

export const bootProgressSchema = z.looseObject({ progress: z.number(), details: z.string() });
export const pushMsgSchema = z.looseObject({ id: z.string() });
/** `history/searchHistory`: the times (Unix seconds, as strings) with history, newest first. */
export const searchHistorySchema = z.looseObject({
  histories: z.array(z.string()),
  pageCount: z.number(),
  totalCount: z.number(),
});
/** `history/getHistoryItems`: one time's items; `path` is workspace-relative (`/history/…`). */
export const historyItemsSchema = z.looseObject({
  items: z.array(
    z.looseObject({
      title: z.string(),
      path: z.string(),
      op: z.string(),
      notebook: z.string().optional(),
    }),
  ),
});
/** `history/getDocHistoryContent`: the item's blocks as protyle DOM; all empty for no such file. */
export const docHistoryContentSchema = z.looseObject({
  id: z.string(),
  rootID: z.string(),
  content: z.string(),
  isLargeDoc: z.boolean(),
});
/** One data repo snapshot (`repo/getRepoSnapshots`); `created` in Unix ms, `id` 40 hex. */
export const repoSnapshotSchema = z.looseObject({
  id: z.string(),
  memo: z.string(),
  created: z.number(),
  count: z.number(),
  size: z.number(),
  tag: z.string(),
  hSize: z.string().optional(),
  systemID: z.string().optional(),
  systemName: z.string().optional(),
  systemOS: z.string().optional(),
  typesCount: z.array(z.looseObject({ type: z.string(), count: z.number() })).nullish(),
});
/** `repo/getRepoSnapshots`: 32 a page, newest first. */
export const repoSnapshotsSchema = z.looseObject({
  snapshots: z.array(repoSnapshotSchema),
  pageCount: z.number(),
  totalCount: z.number(),
});
/** One file of `repo/diffRepoSnapshots`; `path` is relative to `data/`, `updated` Unix ms. */
export const repoDiffFileSchema = z.looseObject({
  fileID: z.string(),
  title: z.string(),
  path: z.string(),
  hSize: z.string(),
  updated: z.number(),
});
/**
 * `repo/diffRepoSnapshots`, from `left` to `right`: `addsLeft` only in right, `removesRight` only
 * in left, `updatesLeft`/`updatesRight` the two versions of a changed file.
 */
export const repoDiffSchema = z.looseObject({
  addsLeft: nullableArray(repoDiffFileSchema),
  updatesLeft: nullableArray(repoDiffFileSchema),
  updatesRight: nullableArray(repoDiffFileSchema),
  removesRight: nullableArray(repoDiffFileSchema),
  left: z.looseObject({ id: z.string(), created: z.number() }),
  right: z.looseObject({ id: z.string(), created: z.number() }),
});
/** `riff/getRiffDecks` and the deck a card write answers; times are `2006-01-02 15:04:05`, local. */
export const riffDeckSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  size: z.number(),
  created: z.string(),
  updated: z.string(),
});
export const riffDecksSchema = z.array(riffDeckSchema);
/** A card's schedule: `due` and `lastReview` RFC 3339 (`0001-01-01T00:00:00Z` before a review). */
const riffCardSchema = z.looseObject({
  due: z.string(),
  reps: z.number(),
  lapses: z.number(),
  state: z.number(),
  lastReview: z.string(),
});
/** `riff/getRiffCards`: blocks with their card; a gone block has `riffCardID` "" and no card. */
export const riffCardsSchema = z.looseObject({
  blocks: z.array(
    z.looseObject({
      id: z.string(),
      box: z.string(),
      rootID: z.string(),
      content: z.string(),
      type: z.string(),
      riffCardID: z.string(),
      riffCard: riffCardSchema.nullable(),
    }),
  ),
  total: z.number(),
  pageCount: z.number(),
});
/** `riff/getRiffDueCards`: `lastReview` in Unix ms (Go's zero time before a review). */
export const riffDueCardsSchema = z.looseObject({
  cards: z
    .array(
      z.looseObject({
        deckID: z.string(),
        cardID: z.string(),
        blockID: z.string(),
        lapses: z.number(),
        reps: z.number(),
        state: z.number(),
        lastReview: z.number(),
        nextDues: z.record(z.string(), z.string()),
      }),
    )
    .nullable(),
  unreviewedCount: z.number(),
  unreviewedNewCardCount: z.number(),
  unreviewedOldCardCount: z.number(),
});
/** `template/render`: the rendered template as editor DOM (fresh block IDs) and its path. */
export const renderTemplateSchema = z.looseObject({ path: z.string(), content: z.string() });
/** `system/getWorkspaceInfo`: the workspace's absolute directory on the kernel's host. */
export const workspaceInfoSchema = z.looseObject({
  workspaceDir: z.string(),
  siyuanVer: z.string(),
});
export const exportMdSchema = z.looseObject({ hPath: z.string(), content: z.string() });
export const exportResourcesSchema = z.looseObject({ path: z.string() });

export const dirEntrySchema = z.looseObject({
  name: z.string(),
  isDir: z.boolean(),
  isSymlink: z.boolean().optional(),
  updated: z.number().optional(),
});
/** One entry of `readDir` (`updated` in Unix seconds). */
export type DirEntry = z.infer<typeof dirEntrySchema>;
export const readDirSchema = nullableArray(dirEntrySchema);

export const uploadSchema = z.looseObject({
  errFiles: z.array(z.string()).nullable(),
  succMap: z.record(z.string(), z.string()),
});

/** Attribute view file JSON (contract §4.7), loosely: only `id` and `views` are required. */
export const attributeViewSchema = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  spec: z.number().optional(),
  keyValues: z.array(z.unknown()).nullable().optional(),
  viewID: z.string().optional(),
  views: z.array(z.unknown()).nullable().optional(),
});
export const getAttributeViewSchema = z.looseObject({ av: attributeViewSchema.nullable() });
export const renderAttributeViewSchema = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  viewType: z.string().optional(),
  viewID: z.string().optional(),
  views: z.array(z.unknown()).nullable().optional(),
  view: z.unknown().optional(),
});
export const avKeySchema = z.looseObject({ id: z.string(), name: z.string(), type: z.string() });
export const avKeysSchema = nullableArray(avKeySchema);
export const avValueResultSchema = z.looseObject({ value: z.unknown() });
/**
 * `getAttributeViewFilterSort`: the view's filters (spec 5: one root group whose `filters` are the
 * leaves) and sorts; both `null` for a database without a file.
 */
export const avFilterSortSchema = z.looseObject({
  filters: z.array(z.unknown()).nullable(),
  sorts: z.array(z.unknown()).nullable(),
});
/** One database of `searchAttributeView`: its first block showing it, and one child per view. */
export const avSearchHitSchema = z.looseObject({
  avID: z.string(),
  avName: z.string(),
  blockID: z.string(),
  hPath: z.string(),
  children: z.array(z.unknown()).nullish(),
});
export const avSearchSchema = z.looseObject({ results: nullableArray(avSearchHitSchema) });
/** `duplicateAttributeViewBlock`: the copy's database ID and the ID its carrier block is to have. */
export const avDuplicateSchema = z.looseObject({ avID: z.string(), blockID: z.string() });
/** `getAttributeViewPrimaryKeyValues`: the name, the blocks showing it, one page of primary-key values. */
export const avPrimaryKeyValuesSchema = z.looseObject({
  name: z.string(),
  blockIDs: nullableArray(z.string()),
  // `values` is left out when there are none
  rows: z.looseObject({
    key: z.unknown(),
    values: z
      .array(z.unknown())
      .nullish()
      .transform((v) => v ?? []),
  }),
});

/** `getBlocksWordCount`'s counts, summed over the blocks the kernel found (`blockCount`: IDs sent). */
export const blockStatSchema = z.looseObject({
  runeCount: z.number(),
  wordCount: z.number(),
  linkCount: z.number(),
  imageCount: z.number(),
  refCount: z.number(),
  blockCount: z.number(),
});
export const blocksWordCountSchema = z.looseObject({ stat: blockStatSchema });

/** One block of `getRecentUpdatedBlocks` (the kernel's `Block`; `type` is the Lute node name). */
export const recentBlockSchema = z.looseObject({
  id: z.string(),
  box: z.string(),
  rootID: z.string(),
  hPath: z.string().optional(),
  content: z.string(),
  type: z.string(),
  ial: z.record(z.string(), z.string()).nullish(),
});
export const recentUpdatedBlocksSchema = nullableArray(recentBlockSchema);

/** `getDocAssets`: the asset links (`assets/…`) of a document, in document order, repeats kept. */
export const docAssetsSchema = nullableArray(z.string());

/** One template of `searchTemplate`: `path` is absolute on the kernel's host, `content` marked up. */
export const templateHitSchema = z.looseObject({
  path: z.string(),
  relativePath: z.string(),
  content: z.string(),
});
export const searchTemplateSchema = z.looseObject({
  templates: nullableArray(templateHitSchema),
  k: z.string(),
});

/**
 * `listInvalidBlockRefs`: the blocks holding a reference (`((id))` or `siyuan://blocks/id`) to a
 * block no notebook has, sorted by ID, one page; the counts are over every such block.
 */
export const invalidBlockRefsSchema = z.looseObject({
  blocks: nullableArray(recentBlockSchema),
  matchedBlockCount: z.number(),
  matchedRootCount: z.number(),
  pageCount: z.number(),
});

/** One hit of `searchAsset`: `hName` is the file name without its ID, hits in `<mark>`. */
export const assetHitSchema = z.looseObject({
  hName: z.string(),
  path: z.string(),
  updated: z.number(),
});
export const searchAssetSchema = nullableArray(assetHitSchema);

/** `searchRefBlock`: blocks a reference typed as `k` could point to (marked content, refText). */
export const searchRefBlockSchema = z.looseObject({
  blocks: nullableArray(z.looseObject({ id: z.string(), box: z.string(), rootID: z.string() })),
});

/** One hit of `fullTextSearchAssetContent`: an indexed asset file's text, hits in `<mark>`. */
export const assetContentHitSchema = z.looseObject({
  name: z.string(),
  ext: z.string(),
  path: z.string(),
  size: z.number(),
  updated: z.number(),
  content: z.string(),
});
export const assetContentSearchSchema = z.looseObject({
  assetContents: nullableArray(assetContentHitSchema),
  matchedAssetCount: z.number(),
  pageCount: z.number(),
});

/** `getConf`: `conf` is the whole configuration (secrets included); `start`, `isPublish` flags. */
export const getConfSchema = z.looseObject({
  conf: z.record(z.string(), z.unknown()),
  start: z.boolean().optional(),
  isPublish: z.boolean().optional(),
});

/** One item of `getUnusedAssets`: `item` is `assets/…` or `<notebook>/assets/…` (a folder: no `/`). */
export const unusedAssetSchema = z.looseObject({ item: z.string(), name: z.string() });
export const unusedAssetsSchema = nullableArray(unusedAssetSchema);

/** `removeUnusedAsset`: the absolute path of `data/<path>`, also when there was no file. */
export const removeUnusedAssetSchema = z.looseObject({ path: z.string() });
/** `renameAsset`: the asset's new path (`""`: nothing renamed). */
export const renameAssetSchema = z.looseObject({ newPath: z.string() });
/** `removeUnusedAssets`: the absolute path of each asset removed. */
export const removeUnusedAssetsSchema = z.looseObject({ paths: nullableArray(z.string()) });

/**
 * Request and result types of the typed client methods. Field names are the kernel's own
 * (contract Part 1), so a method's argument is exactly the JSON body the kernel receives.
 */
import type { z } from "zod";
import type {
  bootProgressSchema,
  exportMdSchema,
  fullTextSearchSchema,
  getAttributeViewSchema,
  getDocSchema,
  listDocsSchema,
  lsNotebooksSchema,
  notebookConfSchema,
  renderAttributeViewSchema,
  uploadSchema,
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
/** `asset/upload` result: `succMap` maps the original filename to `assets/…`; `errFiles` is null when none failed. */
export type UploadResult = z.infer<typeof uploadSchema>;
/** `getAttributeView` result; `av` is null when the database file is missing. */
export type GetAttributeViewResult = z.infer<typeof getAttributeViewSchema>;
/** `renderAttributeView` result (loosely typed; `view` holds rows and columns). */
export type RenderAttributeViewResult = z.infer<typeof renderAttributeViewSchema>;

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
/** `getFile` result: the raw bytes and the kernel's `Content-Type`. */
export interface FileContent {
  readonly bytes: Uint8Array;
  readonly contentType: string | undefined;
}

/** Block content format for insert/update. */
export type BlockDataType = "markdown" | "dom";

export interface NotebookArg {
  readonly notebook: string;
}
export interface IdArg {
  readonly id: string;
}
export interface IdsArg {
  readonly ids: readonly string[];
}
export interface CreateNotebookArgs {
  readonly name: string;
}
export interface RenameNotebookArgs {
  readonly notebook: string;
  readonly name: string;
}
export interface SetNotebookConfArgs {
  readonly notebook: string;
  /** Merged onto the current conf. */
  readonly conf: Readonly<Record<string, unknown>>;
}
export interface ChangeSortNotebookArgs {
  readonly notebooks: readonly string[];
}
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
export interface RenameDocArgs {
  readonly notebook: string;
  /** Storage path `/…/<id>.sy`. */
  readonly path: string;
  readonly title: string;
}
export interface RenameDocByIdArgs {
  readonly id: string;
  readonly title: string;
}
export interface NotebookPathArgs {
  readonly notebook: string;
  readonly path: string;
}
export interface MoveDocsArgs {
  readonly fromPaths: readonly string[];
  readonly toNotebook: string;
  /** `/` for the notebook root, or the target parent's storage path. */
  readonly toPath: string;
}
export interface MoveDocsByIdArgs {
  readonly fromIDs: readonly string[];
  /** A parent document ID or a notebook ID. */
  readonly toID: string;
}
export interface ListDocsByPathArgs {
  readonly notebook: string;
  readonly path: string;
  readonly sort?: number;
  readonly maxListCount?: number;
  readonly showHidden?: boolean;
  readonly ignoreMaxListHint?: boolean;
}
export interface ChangeSortArgs {
  readonly notebook: string;
  /** Ordered storage paths of siblings. */
  readonly paths: readonly string[];
}
export interface GetDocArgs {
  readonly id: string;
  readonly mode?: number;
  readonly size?: number;
  readonly index?: number;
  readonly startID?: string;
  readonly endID?: string;
}
export interface GetBlockKramdownArgs {
  readonly id: string;
  readonly mode?: "md" | "textmark";
}
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
export interface ParentBlockArgs {
  readonly dataType: BlockDataType;
  readonly data: string;
  readonly parentID: string;
}
export interface UpdateBlockArgs {
  readonly dataType: BlockDataType;
  readonly data: string;
  readonly id: string;
}
export interface MoveBlockArgs {
  readonly id: string;
  readonly previousID?: string;
  readonly parentID?: string;
}
export interface SetBlockAttrsArgs {
  readonly id: string;
  /** `null` or `""` deletes an attribute. */
  readonly attrs: Readonly<Record<string, string | null>>;
}
export interface BatchSetBlockAttrsArgs {
  readonly blockAttrs: ReadonlyArray<SetBlockAttrsArgs>;
}
export interface SqlArgs {
  /** One SELECT statement; `LIMIT 64` is added by the kernel when absent. */
  readonly stmt: string;
}
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
export interface ExportMdContentArgs {
  readonly id: string;
  readonly refMode?: number;
  readonly embedMode?: number;
  /** YAML front matter; the kernel's default is true. */
  readonly yfm?: boolean;
}
export interface PushMsgArgs {
  readonly msg: string;
  /** Milliseconds; kernel default 7000. */
  readonly timeout?: number;
}
export interface PathArg {
  /** Workspace-relative path, e.g. `/data/storage/petal/x.json`. */
  readonly path: string;
}
export interface PutFileArgs {
  readonly path: string;
  /** File content; a string is sent as UTF-8. Required unless `isDir`. */
  readonly file?: Uint8Array | string;
  /** Create a directory only. */
  readonly isDir?: boolean;
  /** Modification time in milliseconds since the epoch (kernel default: now). */
  readonly modTimeMs?: number;
}
export interface RenameFileArgs {
  readonly path: string;
  readonly newPath: string;
}
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
export interface AvIdArg {
  readonly avID: string;
}
export interface RenderAttributeViewArgs {
  readonly id: string;
  readonly blockID?: string;
  readonly viewID?: string;
  readonly page?: number;
  readonly pageSize?: number;
  readonly query?: string;
  readonly createIfNotExist?: boolean;
}
export interface AddAttributeViewKeyArgs {
  readonly avID: string;
  readonly keyID: string;
  readonly keyName: string;
  readonly keyType: string;
  readonly keyIcon: string;
  readonly previousKeyID: string;
}
export interface RemoveAttributeViewKeyArgs {
  readonly avID: string;
  readonly keyID: string;
  readonly removeRelationDest?: boolean;
}
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
export interface RemoveAttributeViewBlocksArgs {
  readonly avID: string;
  readonly srcIDs: readonly string[];
}
export interface SetAttributeViewBlockAttrArgs {
  readonly avID: string;
  readonly keyID: string;
  readonly itemID: string;
  readonly value: unknown;
}
export interface BatchSetAttributeViewBlockAttrsArgs {
  readonly avID: string;
  readonly values: ReadonlyArray<{
    readonly keyID: string;
    readonly itemID: string;
    readonly value: unknown;
  }>;
}
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

/**
 * @sisyphus/siyuan-api/kernel: the same client without the undici transport, for bundles that run
 * inside the SiYuan kernel plugin runtime (no Node APIs). Everything else matches the main entry.
 *
 * @sisyphus/siyuan-api: the typed SiYuan kernel client. One factory (`createSiyuanClient`) over a
 * transport port (`undiciTransport` for Node, `kernelFetchTransport` inside the kernel plugin
 * runtime); single-attempt writes, retried reads, and one error class whose codes separate
 * "not dispatched" from "outcome unknown" from "the kernel said no".
 */
export type { BudgetCall, CallBudget, ClientStats, FixedCallBudget } from "./budget.js";
export { bothBudgets, createCallBudget } from "./budget.js";
export type { McpHttpAnswer, ReadRetryPolicy } from "./call-pipeline.js";
export { resolveReadRetry } from "./call-pipeline.js";
export { createSiyuanClient } from "./client.js";
export type {
  AttrApi,
  BlockApi,
  FiletreeApi,
  McpSendArgs,
  NotebookApi,
  RawCallArgs,
  SiyuanClient,
  SiyuanClientOptions,
} from "./client-api.js";
export {
  DEFAULT_POOL_CONNECTIONS,
  DEFAULT_READ_BASE_DELAY_MS,
  DEFAULT_READ_MAX_ATTEMPTS,
  DEFAULT_READ_MAX_DELAY_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  KERNEL_FETCH_TIMEOUT_MS,
  MAX_READ_ATTEMPTS_LIMIT,
  POOL_KEEP_ALIVE_TIMEOUT_MS,
  RETRYABLE_HTTP_STATUSES,
} from "./constants.js";
export type { EndpointKey, EndpointKind, EndpointSpec } from "./endpoints.js";
export { ENDPOINTS } from "./endpoints.js";
export type {
  SiyuanApiErrorCode,
  SiyuanApiErrorDetails,
  TransportFailureReason,
} from "./errors.js";
export { isSiyuanApiError, SiyuanApiError } from "./errors.js";
export type { MultipartFilePart, MultipartPart, MultipartTextPart } from "./multipart.js";
export { encodeMultipart } from "./multipart.js";
export type {
  BlockInfo,
  Box,
  BoxConf,
  ChildBlock,
  DirEntry,
  DocFile,
  Operation,
  SearchBlock,
  Transaction,
} from "./schemas.js";
export { NODE_ID_PATTERN } from "./schemas.js";
export type {
  KernelFetchClient,
  KernelFetchReply,
  KernelFetchTransportOptions,
} from "./transport/kernel-fetch-transport.js";
export { kernelFetchTransport } from "./transport/kernel-fetch-transport.js";
export type {
  Transport,
  TransportBody,
  TransportRequest,
  TransportResponse,
} from "./transport/transport.js";
export type {
  AddAttributeViewBlocksArgs,
  AddAttributeViewKeyArgs,
  AvIdArg,
  BatchSetAttributeViewBlockAttrsArgs,
  BatchSetBlockAttrsArgs,
  BlockDataType,
  BootProgress,
  ChangeSortArgs,
  ChangeSortNotebookArgs,
  CreateDocWithMdArgs,
  CreateNotebookArgs,
  CreateSnapshotArgs,
  DailyNoteBlockArgs,
  Doc2HeadingArgs,
  Doc2HeadingResult,
  DocHistoryContent,
  DocHistoryContentArgs,
  DocSaveAsTemplateArgs,
  DomResult,
  DuplicateDocResult,
  ExportMdContentArgs,
  ExportMdResult,
  ExportResourcesArgs,
  ExportResourcesResult,
  FileContent,
  FullTextSearchArgs,
  FullTextSearchResult,
  GetAttributeViewResult,
  GetBlockKramdownArgs,
  GetBlockKramdownsArgs,
  GetDocArgs,
  GetDocResult,
  GetHistoryItemsArgs,
  GetNotebookRiffDueCardsArgs,
  GetRiffCardsArgs,
  GetRiffDueCardsArgs,
  Heading2DocArgs,
  HistoryItem,
  HistoryPathArg,
  IdArg,
  IdsArg,
  InsertBlockArgs,
  KramdownResult,
  ListDocsByPathArgs,
  ListDocsResult,
  LsNotebooksResult,
  MoveBlockArgs,
  MoveDocsArgs,
  MoveDocsByIdArgs,
  NotebookArg,
  NotebookConfResult,
  NotebookPathArgs,
  ParentBlockArgs,
  PathArg,
  PathByIdResult,
  PushMsgArgs,
  PutFileArgs,
  RemoveAttributeViewBlocksArgs,
  RemoveAttributeViewKeyArgs,
  RenameDocArgs,
  RenameDocByIdArgs,
  RenameFileArgs,
  RenameNotebookArgs,
  RenderAttributeViewArgs,
  RenderAttributeViewResult,
  RepoDiff,
  RepoDiffArgs,
  RepoSnapshot,
  RepoSnapshotsArgs,
  RepoSnapshotsPage,
  ReviewRiffCardArgs,
  RiffCardsArgs,
  RiffCardsPage,
  RiffDeck,
  RiffDueCards,
  SearchHistoryArgs,
  SearchHistoryResult,
  SetAttributeViewBlockAttrArgs,
  SetBlockAttrsArgs,
  SetNotebookConfArgs,
  SetNotebookIconArgs,
  SqlArgs,
  TransactionsArgs,
  TransferBlockRefArgs,
  UpdateBlockArgs,
  UploadAssetArgs,
  UploadResult,
} from "./types.js";

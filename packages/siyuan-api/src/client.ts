/**
 * The typed SiYuan kernel client: envelope handling, quirk mapping, response validation, read
 * retries and single-attempt writes, all in one place. Methods are grouped as the kernel groups them.
 */
import type { z } from "zod";
import { type CallBudget, CallCounter, type ClientStats } from "./budget.js";
import {
  DEFAULT_READ_BASE_DELAY_MS,
  DEFAULT_READ_MAX_ATTEMPTS,
  DEFAULT_READ_MAX_DELAY_MS,
  MAX_READ_ATTEMPTS_LIMIT,
  RETRYABLE_HTTP_STATUSES,
} from "./constants.js";
import { ENDPOINTS, type EndpointKey, type EndpointKind, type EndpointSpec } from "./endpoints.js";
import { isSiyuanApiError, SiyuanApiError, type SiyuanApiErrorDetails } from "./errors.js";
import { encodeMultipart, type MultipartPart, makeBoundary } from "./multipart.js";
import type { BlockInfo, Box, BoxConf, ChildBlock, DirEntry, Transaction } from "./schemas.js";
import * as S from "./schemas.js";
import type { Transport, TransportBody, TransportResponse } from "./transport/transport.js";
import type * as T from "./types.js";
import { decodeUtf8, encodeUtf8 } from "./utf8.js";

/** Retry policy for reads. Delay before retry n (1-based) = random() × min(maxDelayMs, baseDelayMs × 2^(n−1)). */
export interface ReadRetryPolicy {
  /** Total attempts including the first, 1..{@link MAX_READ_ATTEMPTS_LIMIT}. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/** Options of {@link createSiyuanClient}. */
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
  /** `null` when the block is not found (kernel code 3). */
  getDoc(args: T.GetDocArgs): Promise<T.GetDocResult | null>;
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

/** The typed client. Every method throws only {@link SiyuanApiError}. */
export interface SiyuanClient {
  readonly notebook: NotebookApi;
  readonly filetree: FiletreeApi;
  readonly block: BlockApi;
  readonly attr: AttrApi;
  readonly query: {
    /** Rows of one read-only statement (sent with `mode: "readonly"`). SQL errors → `kernel_rejected` code 1. */
    sql(args: T.SqlArgs): Promise<Array<Record<string, unknown>>>;
  };
  readonly search: {
    fullTextSearchBlock(args: T.FullTextSearchArgs): Promise<T.FullTextSearchResult>;
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
  };
  readonly asset: {
    /** Multipart upload (`file[]`). */
    upload(args: T.UploadAssetArgs): Promise<T.UploadResult>;
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
  readonly export: {
    exportMdContent(args: T.ExportMdContentArgs): Promise<T.ExportMdResult>;
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
  };
  readonly transactions: {
    /** Raw `/api/transactions`; the answer's data is returned unvalidated. */
    send(args: T.TransactionsArgs): Promise<unknown>;
  };
  /** Same as `sqlite.flushTransaction()`: call before reading back after a write. */
  flush(): Promise<void>;
  /** Calls an endpoint without a typed wrapper; returns `data` unvalidated. */
  callRaw(args: RawCallArgs): Promise<unknown>;
  /** Counters by endpoint since creation or the last `resetStats()`. */
  stats(): ClientStats;
  resetStats(): void;
  /** Closes the transport (its own pool). */
  close(): Promise<void>;
}

/** `getBlockInfo` answers this code while the kernel is indexing (contract §4.4). */
const GET_BLOCK_INFO_INDEXING_CODE = 3;

/** Marker for "the kernel said not found" (a `nullOnCodes` code). */
const NOT_FOUND: unique symbol = Symbol("not_found");

interface CallShape {
  /** `text` (JSON envelope) or `bytes` (raw download). */
  readonly responseType?: "text" | "bytes";
  /** Kernel codes that mean "not found" and become `null`. */
  readonly nullOnCodes?: readonly number[];
  /** Kernel codes that mean "busy, ask again" (reads only; retried like a transient failure). */
  readonly busyCodes?: readonly number[];
}

const DEFAULT_SLEEP = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    globalThis.setTimeout(resolve, ms);
  });

/** Resolves the retry policy, clamping to sane bounds. */
export function resolveReadRetry(p: Partial<ReadRetryPolicy> = {}): ReadRetryPolicy {
  const maxAttempts = Math.min(
    MAX_READ_ATTEMPTS_LIMIT,
    Math.max(1, Math.floor(p.maxAttempts ?? DEFAULT_READ_MAX_ATTEMPTS)),
  );
  return {
    maxAttempts,
    baseDelayMs: Math.max(0, p.baseDelayMs ?? DEFAULT_READ_BASE_DELAY_MS),
    maxDelayMs: Math.max(0, p.maxDelayMs ?? DEFAULT_READ_MAX_DELAY_MS),
  };
}

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
/** The envelope code of a text answer when it is one of `codes`. */
function busyCode(res: TransportResponse, codes: readonly number[]): number | undefined {
  if (res.type !== "text") return undefined;
  try {
    const code = (JSON.parse(res.text) as { code?: unknown }).code;
    return typeof code === "number" && codes.includes(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

function basename(path: string): string {
  const parts = path.split("/");
  return parts[parts.length - 1] || "file";
}

/**
 * Creates a typed kernel client over a transport.
 *
 * Behaviour: writes (per {@link ENDPOINTS}) are sent exactly once; reads are retried on transient
 * failures (connection refused/reset, timeout, HTTP 502/503/504) up to `readRetry.maxAttempts` with
 * jittered exponential backoff. A call missing a field the kernel requires (`ENDPOINTS[...].required`)
 * is refused before sending (`not_dispatched`, reason `invalid_request`), because old-style kernel
 * handlers answer such calls with `code 0` as if they had succeeded. Every failure is a
 * {@link SiyuanApiError}: `not_dispatched`,
 * `outcome_unknown`, `kernel_rejected`, `decode`, `unauthorized` or `budget_exceeded`.
 */
export function createSiyuanClient(options: SiyuanClientOptions): SiyuanClient {
  const { transport, budget } = options;
  const retry = resolveReadRetry(options.readRetry);
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? DEFAULT_SLEEP;
  const counter = new CallCounter();

  function enrich(err: SiyuanApiError, extra: Partial<SiyuanApiErrorDetails>): SiyuanApiError {
    return new SiyuanApiError(
      err.code,
      err.message,
      { ...err.details, ...extra },
      { cause: err.cause, writeDispatched: err.writeDispatched },
    );
  }

  function statusFailure(
    endpoint: string,
    kind: EndpointKind,
    res: TransportResponse,
  ): SiyuanApiError | undefined {
    const status = res.status;
    if (status === 200 || status === 202) return undefined;
    if (status === 401 || status === 403) {
      let kernelMessage: string | undefined;
      if (res.type === "text" && res.text !== "") {
        try {
          const parsed = JSON.parse(res.text) as { msg?: unknown };
          if (typeof parsed.msg === "string") kernelMessage = parsed.msg;
        } catch {
          // empty or non-JSON 403 body: no message
        }
      }
      return new SiyuanApiError(
        "unauthorized",
        `${endpoint}: HTTP ${status}${kernelMessage === undefined ? "" : ` ${kernelMessage}`}`,
        kernelMessage === undefined
          ? { endpoint, kind, httpStatus: status }
          : { endpoint, kind, httpStatus: status, kernelMessage },
      );
    }
    if (status >= 500) {
      return new SiyuanApiError("outcome_unknown", `${endpoint}: HTTP ${status}`, {
        endpoint,
        kind,
        httpStatus: status,
        reason: "http_status",
        transient: RETRYABLE_HTTP_STATUSES.includes(status),
      });
    }
    return new SiyuanApiError("kernel_rejected", `${endpoint}: HTTP ${status}`, {
      endpoint,
      kind,
      httpStatus: status,
    });
  }

  /** Sends with the retry policy; returns a response whose status is 200 or 202. */
  async function exchange(
    endpoint: string,
    kind: EndpointKind,
    body: TransportBody,
    responseType: "text" | "bytes",
    busyCodes?: readonly number[],
  ): Promise<{ res: TransportResponse; attempts: number }> {
    if (budget !== undefined && !budget.reserveCall({ endpoint, kind })) {
      throw new SiyuanApiError("budget_exceeded", `${endpoint}: call budget exhausted`, {
        endpoint,
        kind,
        attempts: 0,
        budget: "calls",
      });
    }
    counter.call(endpoint);
    const maxAttempts = kind === "read" ? retry.maxAttempts : 1;
    for (let attempt = 1; ; attempt++) {
      counter.attempt(endpoint);
      let failure: SiyuanApiError;
      try {
        const res = await transport.send({ endpoint, body, responseType });
        const bad = statusFailure(endpoint, kind, res);
        if (bad === undefined) {
          const busy = busyCodes === undefined ? undefined : busyCode(res, busyCodes);
          // A "busy" kernel code (e.g. 3 = indexing) on a read is retried; the last answer is returned as is.
          if (busy === undefined || kind === "write" || attempt >= maxAttempts) {
            return { res, attempts: attempt };
          }
          failure = new SiyuanApiError(
            "kernel_rejected",
            `${endpoint}: kernel busy (code ${busy})`,
            {
              endpoint,
              kind,
              attempts: attempt,
              kernelCode: busy,
              transient: true,
            },
          );
        } else {
          failure = enrich(bad, { attempts: attempt });
        }
      } catch (err) {
        failure = isSiyuanApiError(err)
          ? enrich(err, { endpoint, kind, attempts: attempt })
          : new SiyuanApiError(
              "outcome_unknown",
              `${endpoint}: transport failed: ${err instanceof Error ? err.message : String(err)}`,
              { endpoint, kind, attempts: attempt, reason: "unknown", transient: false },
              { cause: err },
            );
      }
      if (kind === "write" || attempt >= maxAttempts || failure.details.transient !== true) {
        throw failure;
      }
      const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
      await sleep(Math.floor(random() * ceiling));
    }
  }

  function decodeFailure(
    endpoint: string,
    kind: EndpointKind,
    attempts: number,
    what: string,
    error: z.ZodError | undefined,
    httpStatus: number,
  ): SiyuanApiError {
    const issues = (error?.issues ?? []).slice(0, 10).map((i) => ({
      path: i.path.map(String).join("."),
      message: i.message,
    }));
    const first = issues[0];
    return new SiyuanApiError(
      "decode",
      `${endpoint}: ${what}${first === undefined ? "" : ` (${first.path || "<root>"}: ${first.message})`}`,
      { endpoint, kind, attempts, httpStatus, issues },
      error === undefined ? undefined : { cause: error },
    );
  }

  /** Parses the envelope; returns `data`, or `NOT_FOUND` for a `nullOnCodes` code. */
  function openEnvelope(
    endpoint: string,
    kind: EndpointKind,
    attempts: number,
    res: TransportResponse,
    nullOnCodes: readonly number[] | undefined,
  ): unknown {
    const text = res.type === "text" ? res.text : decodeUtf8(res.bytes);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new SiyuanApiError(
        "outcome_unknown",
        `${endpoint}: unreadable answer (not JSON, HTTP ${res.status})`,
        {
          endpoint,
          kind,
          attempts,
          httpStatus: res.status,
          reason: "unreadable_body",
          transient: false,
        },
        { cause: err },
      );
    }
    const env = S.envelopeSchema.safeParse(json);
    if (!env.success) {
      throw decodeFailure(
        endpoint,
        kind,
        attempts,
        "answer is not a kernel envelope",
        env.error,
        res.status,
      );
    }
    const { code, msg, data } = env.data;
    if (code !== 0) {
      if (nullOnCodes?.includes(code)) return NOT_FOUND;
      throw new SiyuanApiError(
        "kernel_rejected",
        `${endpoint}: kernel code ${code}: ${msg ?? ""}`,
        {
          endpoint,
          kind,
          attempts,
          httpStatus: res.status,
          kernelCode: code,
          kernelMessage: msg ?? "",
          kernelData: data,
        },
      );
    }
    return data;
  }

  function recordBytes(
    endpoint: string,
    kind: EndpointKind,
    attempts: number,
    bytes: number,
  ): void {
    counter.received(bytes);
    if (budget !== undefined && !budget.recordBytes({ endpoint, kind, bytes }) && kind === "read") {
      throw new SiyuanApiError(
        "budget_exceeded",
        `${endpoint}: byte budget exhausted`,
        {
          endpoint,
          kind,
          attempts,
          budget: "bytes",
        },
        { writeDispatched: true },
      );
    }
  }

  async function invokeBody<O>(
    key: EndpointKey | { path: string; kind: EndpointKind },
    body: TransportBody,
    schema: z.ZodType<O>,
    shape: CallShape = {},
  ): Promise<O | typeof NOT_FOUND> {
    const spec = typeof key === "string" ? ENDPOINTS[key] : key;
    const endpoint = spec.path;
    const kind = spec.kind;
    const { res, attempts } = await exchange(
      endpoint,
      kind,
      body,
      shape.responseType ?? "text",
      shape.busyCodes,
    );
    recordBytes(endpoint, kind, attempts, res.byteLength);
    const data = openEnvelope(endpoint, kind, attempts, res, shape.nullOnCodes);
    if (data === NOT_FOUND) return NOT_FOUND;
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      throw decodeFailure(
        endpoint,
        kind,
        attempts,
        "unexpected data shape",
        parsed.error,
        res.status,
      );
    }
    return parsed.data;
  }

  /** Refuses, before anything is sent, a call that lacks a field the kernel requires. */
  function checkArgs(key: EndpointKey, args: unknown): void {
    const spec: EndpointSpec = ENDPOINTS[key];
    const a = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
    const present = (f: string): boolean => a[f] !== undefined && a[f] !== null;
    const missing = spec.required.find((f) => !present(f));
    let problem: string | undefined;
    if (missing !== undefined) problem = `Field [${missing}] is required`;
    else if (spec.anyOf !== undefined && !spec.anyOf.some(present)) {
      problem = `one of the fields [${spec.anyOf.join(", ")}] is required`;
    }
    if (problem !== undefined) {
      throw new SiyuanApiError("not_dispatched", `${spec.path}: not sent: ${problem}`, {
        endpoint: spec.path,
        kind: spec.kind,
        attempts: 0,
        reason: "invalid_request",
        transient: false,
      });
    }
  }

  function jsonBody(args: unknown): TransportBody {
    return { kind: "json", text: args === undefined ? "{}" : JSON.stringify(args) };
  }

  async function call<O>(key: EndpointKey, args: unknown, schema: z.ZodType<O>): Promise<O> {
    checkArgs(key, args);
    return (await invokeBody(key, jsonBody(args), schema)) as O;
  }
  async function callNullable<O>(
    key: EndpointKey,
    args: unknown,
    schema: z.ZodType<O>,
    nullOnCodes: readonly number[],
  ): Promise<O | null> {
    checkArgs(key, args);
    const out = await invokeBody(key, jsonBody(args), schema, { nullOnCodes });
    return out === NOT_FOUND ? null : (out as O);
  }
  async function callVoid(key: EndpointKey, args: unknown): Promise<void> {
    checkArgs(key, args);
    await invokeBody(key, jsonBody(args), S.ignoredSchema);
  }
  function multipartBody(parts: MultipartPart[]): TransportBody {
    const { body, contentType } = encodeMultipart(parts, makeBoundary(random));
    return { kind: "bytes", bytes: body, contentType };
  }

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
      getDoc: (a) => callNullable("filetree.getDoc", a, S.getDocSchema, [3]),
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
      getBlockInfo: async (a) => {
        checkArgs("block.getBlockInfo", a);
        return (await invokeBody("block.getBlockInfo", jsonBody(a), S.blockInfoSchema, {
          busyCodes: [GET_BLOCK_INFO_INDEXING_CODE],
        })) as BlockInfo;
      },
      checkBlockExist: (a) => call("block.checkBlockExist", a, S.booleanSchema),
      insertBlock: (a) => call("block.insertBlock", a, S.transactionsSchema),
      prependBlock: (a) => call("block.prependBlock", a, S.transactionsSchema),
      appendBlock: (a) => call("block.appendBlock", a, S.transactionsSchema),
      updateBlock: (a) => call("block.updateBlock", a, S.transactionsSchema),
      deleteBlock: (a) => call("block.deleteBlock", a, S.transactionsSchema),
      moveBlock: (a) => callVoid("block.moveBlock", a),
      foldBlock: (a) => callVoid("block.foldBlock", a),
      unfoldBlock: (a) => callVoid("block.unfoldBlock", a),
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
    query: {
      sql: (a) => call("query.sql", { stmt: a.stmt, mode: "readonly" }, S.sqlRowsSchema),
    },
    search: {
      fullTextSearchBlock: (a) => call("search.fullTextSearchBlock", a, S.fullTextSearchSchema),
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
    },
    asset: {
      upload: async (a) => {
        checkArgs("asset.upload", a);
        const parts: MultipartPart[] = [];
        if (a.assetsDirPath !== undefined)
          parts.push({ name: "assetsDirPath", value: a.assetsDirPath });
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
        return (await invokeBody(
          "asset.upload",
          multipartBody(parts),
          S.uploadSchema,
        )) as T.UploadResult;
      },
    },
    file: {
      getFile: async (a) => {
        checkArgs("file.getFile", a);
        const spec = ENDPOINTS["file.getFile"];
        const { res, attempts } = await exchange(spec.path, spec.kind, jsonBody(a), "bytes");
        recordBytes(spec.path, spec.kind, attempts, res.byteLength);
        if (res.status === 200 && res.type === "bytes") {
          return { bytes: res.bytes, contentType: res.contentType };
        }
        // HTTP 202 carries an error envelope; code 404 means "file does not exist".
        const data = openEnvelope(spec.path, spec.kind, attempts, res, [404]);
        if (data === NOT_FOUND) return null;
        throw decodeFailure(
          spec.path,
          spec.kind,
          attempts,
          `HTTP ${res.status} with code 0 instead of file bytes`,
          undefined,
          res.status,
        );
      },
      putFile: async (a) => {
        checkArgs("file.putFile", a);
        const parts: MultipartPart[] = [{ name: "path", value: a.path }];
        if (a.isDir === true) parts.push({ name: "isDir", value: "true" });
        if (a.modTimeMs !== undefined) parts.push({ name: "modTime", value: String(a.modTimeMs) });
        if (a.file !== undefined) {
          const bytes = typeof a.file === "string" ? encodeUtf8(a.file) : a.file;
          parts.push({ name: "file", filename: basename(a.path), bytes });
        }
        await invokeBody("file.putFile", multipartBody(parts), S.ignoredSchema);
      },
      readDir: (a) => callNullable("file.readDir", a, S.readDirSchema, [404]),
      removeFile: (a) => callVoid("file.removeFile", a),
      renameFile: (a) => callVoid("file.renameFile", a),
    },
    export: {
      exportMdContent: (a) => call("export.exportMdContent", a, S.exportMdSchema),
    },
    notification: {
      pushMsg: async (a) => (await call("notification.pushMsg", a, S.pushMsgSchema)).id,
      pushErrMsg: async (a) => (await call("notification.pushErrMsg", a, S.pushMsgSchema)).id,
    },
    system: {
      version: () => call("system.version", {}, S.stringSchema),
      currentTime: () => call("system.currentTime", {}, S.numberSchema),
      bootProgress: () => call("system.bootProgress", {}, S.bootProgressSchema),
    },
    transactions: {
      send: (a) => call("transactions.send", a, S.ignoredSchema),
    },
    flush: () => callVoid("sqlite.flushTransaction", {}),
    callRaw: async (a) => {
      if (!a.endpoint.startsWith("/")) {
        throw new SiyuanApiError("not_dispatched", `endpoint must start with "/": ${a.endpoint}`, {
          endpoint: a.endpoint,
          reason: "invalid_request",
        });
      }
      return invokeBody(
        { path: a.endpoint, kind: a.kind ?? "write" },
        jsonBody(a.body ?? {}),
        S.ignoredSchema,
      );
    },
    stats: () => counter.snapshot(),
    resetStats: () => counter.reset(),
    close: () => transport.close(),
  };
  return client;
}

/** Block, attribute and transaction endpoints (contract §4.4, §4.5). */

import { adoptAvViews } from "./av-model.js";
import { type Block, CONTAINER_TYPES, cloneBlock, walk } from "./block.js";
import { isValidNodeId } from "./clock.js";
import { domToMarkdown } from "./dom-input.js";
import { kernelError } from "./errors.js";
import {
  field,
  type HandlerContext,
  operation,
  optStr,
  panicReply,
  type Route,
  reqId,
  reqStr,
  reqStrArray,
  transactionReply,
} from "./handler-kit.js";
import { AV_TRANSACTION_ACTIONS, avTransactionOp } from "./handlers-av.js";
import { parseMarkdown } from "./markdown.js";
import { plainContent, renderDom, renderKramdown, staticContent } from "./render.js";
import { type InsertAnchor, leafParent, type Workspace } from "./workspace.js";
import { treeNotFound } from "./workspace-index.js";

const r = (handler: Route["handler"], write = false): Route => ({
  handler,
  auth: true,
  body: "json",
  write,
});

/** Parses the `data` of an insert/update into blocks with IDs (invalid IAL IDs → -1). */
function parseData(ctx: HandlerContext): Block[] {
  return parseBlocks(ctx, reqStr(ctx, "dataType"), reqStr(ctx, "data"));
}

/** Parses one block write's data (`dom` or Markdown) into blocks with IDs (invalid IAL IDs → -1). */
function parseBlocks(ctx: HandlerContext, dataType: string, data: string): Block[] {
  const md = dataType === "dom" ? domToMarkdown(data) : data;
  const parsed = parseMarkdown(md).blocks;
  for (const top of parsed) {
    walk(top, (b) => {
      const id = b.attrs.id;
      if (id !== undefined && !isValidNodeId(id)) {
        throw kernelError(-1, `data block DOM failed: found invalid ID [${id}]`);
      }
    });
  }
  return ctx.kernel.ws.blocksFromMarkdown(md);
}

const allIds = (blocks: Block[]): string[] => {
  const ids: string[] = [];
  for (const b of blocks) walk(b, (n) => ids.push(n.id));
  return ids;
};

/** The DOM a transaction op carries: its blocks rendered as a new tree's children (index from 1). */
const domOf = (blocks: Block[]): string =>
  blocks.map((b, i) => (b.type === "i" ? renderDom(b) : renderDom(b, i + 1))).join("");

/** Container check of a parentID anchor: the kernel's three messages. */
function checkContainer(ctx: HandlerContext, parentID: string): void {
  if (ctx.kernel.isPending(parentID)) return;
  const loc = ctx.kernel.ws.locate(parentID);
  if (!loc) throw kernelError(-1, `parent block not found: ${parentID}`);
  if (CONTAINER_TYPES.has(loc.block.type)) return;
  throw leafParent(parentID, loc.block.type);
}

async function finishWrite(ctx: HandlerContext, flush: boolean): Promise<void> {
  if (flush && ctx.flushBeforeReply) await ctx.kernel.flush();
}

function optAnchor(ctx: HandlerContext, name: string): string | undefined {
  const v = optStr(ctx, name);
  if (v === undefined || v === "") return undefined;
  if (!isValidNodeId(v)) throw kernelError(-1, "invalid ID argument");
  return v;
}

async function insertBlock(ctx: HandlerContext): Promise<unknown> {
  const { kernel } = ctx;
  reqStr(ctx, "dataType");
  reqStr(ctx, "data");
  const nextID = optAnchor(ctx, "nextID");
  const previousID = optAnchor(ctx, "previousID");
  const parentID = optAnchor(ctx, "parentID");
  if (!nextID && !previousID && !parentID) throw kernelError(-1, "invalid ID argument");
  if (!nextID && !previousID && parentID) checkContainer(ctx, parentID);
  const anchorLoc = kernel.ws.locate(nextID ?? previousID ?? parentID ?? "");
  const targetParent = nextID || previousID ? anchorLoc?.parent : anchorLoc?.block;
  const parsed = parseData(ctx);
  const blocks = targetParent ? kernel.ws.fitInto(targetParent, parsed) : parsed;
  const anchor: InsertAnchor = {};
  if (nextID) anchor.nextID = nextID;
  else if (previousID) anchor.previousID = previousID;
  else if (parentID) anchor.parentID = parentID;
  const resolvedParent =
    nextID || previousID ? (anchorLoc?.parent?.id ?? parentID ?? "") : (parentID ?? "");
  const op = operation({
    action: "insert",
    data: domOf(blocks),
    id: blocks[0]!.id,
    parentID: resolvedParent,
    previousID: previousID ?? "",
    nextID: nextID ?? "",
  });
  if (!ctx.silent) {
    kernel.enqueue(ctx.path, allIds(blocks), () => {
      adoptAvViews(kernel, blocks);
      kernel.ws.insertBlocks(blocks, anchor);
    });
  }
  await finishWrite(ctx, true);
  return transactionReply([op]);
}

function childInsert(where: "first" | "last") {
  return async (ctx: HandlerContext): Promise<unknown> => {
    const { kernel } = ctx;
    const parentID = reqId(ctx, "parentID");
    checkContainer(ctx, parentID);
    const parent = kernel.ws.locate(parentID)?.block;
    const parsed = parseData(ctx);
    const blocks = parent ? kernel.ws.fitInto(parent, parsed) : parsed;
    // SiYuan 3.7.3 answers both as an `insert` op; an append names the last child it follows
    const op = operation({
      action: "insert",
      data: domOf(blocks),
      id: blocks[0]!.id,
      parentID,
      previousID: where === "last" ? (parent?.children.at(-1)?.id ?? "") : "",
    });
    if (!ctx.silent) {
      kernel.enqueue(ctx.path, allIds(blocks), () => {
        adoptAvViews(kernel, blocks);
        kernel.ws.addChildren(blocks, parentID, where);
      });
    }
    await finishWrite(ctx, true);
    return transactionReply([op]);
  };
}

/** One block update as queued: the `update` op the kernel answers and the IDs its data creates. */
interface QueuedUpdate {
  readonly id: string;
  readonly blocks: Block[];
  readonly now: string;
  readonly op: Record<string, unknown>;
  readonly created: string[];
}

function queuedUpdate(ctx: HandlerContext, id: string, blocks: Block[]): QueuedUpdate {
  const now = ctx.kernel.ids.timestamp();
  const loc = ctx.kernel.ws.locate(id);
  let preview: Block[];
  if (loc?.block.type === "d") preview = blocks;
  else {
    const [first, ...rest] = blocks;
    const { id: _i, updated: _u, ...kept } = first!.attrs;
    preview = [{ ...first!, id, attrs: { id, updated: now, ...kept } }, ...rest];
  }
  const op = operation({ action: "update", data: domOf(preview), id });
  const created = allIds(blocks).filter((x) => x !== blocks[0]?.id || loc?.block.type === "d");
  return { id, blocks, now, op, created };
}

async function updateBlock(ctx: HandlerContext): Promise<unknown> {
  const { kernel } = ctx;
  const id = reqId(ctx);
  if (!kernel.knows(id)) throw kernelError(-1, "get block failed: tree not found");
  const u = queuedUpdate(ctx, id, parseData(ctx));
  if (!ctx.silent)
    kernel.enqueue(ctx.path, u.created, () => kernel.ws.updateBlock(id, u.blocks, u.now));
  await finishWrite(ctx, true);
  return transactionReply([u.op]);
}

/**
 * `/api/block/batchUpdateBlock` (kernel 3.7.3 `kernel/api/block_op.go`, since 3.1.25; not in the
 * contract): `blocks` is a required, non-empty array of `{id, dataType, data}`. Every block is
 * checked in order — ID pattern, data, existence, with `updateBlock`'s errors — before anything is
 * queued, so one bad block refuses the whole call. Then one transaction carries an `update` op per
 * block, applied as `performTx` applies it ({@link applyUpdates}); flushed like `updateBlock`.
 */
async function batchUpdateBlock(ctx: HandlerContext): Promise<unknown> {
  const { kernel } = ctx;
  const updates = (field(ctx, "blocks", "Array") as unknown[]).map((raw) => {
    const b = (raw ?? {}) as Record<string, unknown>;
    if (typeof b.id !== "string") throw panicReply();
    if (!isValidNodeId(b.id)) throw kernelError(-1, "invalid ID argument");
    if (typeof b.data !== "string" || typeof b.dataType !== "string") throw panicReply();
    const blocks = parseBlocks(ctx, b.dataType, b.data);
    if (!kernel.knows(b.id)) throw kernelError(-1, "get block failed: tree not found");
    return queuedUpdate(ctx, b.id, blocks);
  });
  if (!ctx.silent) {
    const created = updates.flatMap((u) => u.created);
    kernel.enqueue(ctx.path, created, () => applyUpdates(kernel.ws, updates));
  }
  await finishWrite(ctx, true);
  return transactionReply(updates.map((u) => u.op));
}

/**
 * Applies the updates of one transaction in order. When one fails (its block is gone), the
 * documents the transaction touched are restored and the failure is reported: the kernel's
 * `performTx` rolls back and writes none of the transaction's trees.
 */
function applyUpdates(ws: Workspace, updates: readonly QueuedUpdate[]): void {
  const saved = new Map<string, Block>();
  for (const u of updates) {
    const doc = ws.locate(u.id)?.doc;
    if (doc && !saved.has(doc.id)) saved.set(doc.id, cloneBlock(doc.root));
  }
  try {
    for (const u of updates) ws.updateBlock(u.id, u.blocks, u.now);
  } catch (e) {
    for (const [docId, root] of saved) {
      const doc = ws.docs.get(docId);
      if (!doc) continue;
      doc.root = root;
      ws.reindexDoc(docId);
    }
    throw e;
  }
}

function deleteBlock(ctx: HandlerContext): unknown {
  const { kernel } = ctx;
  const id = reqId(ctx);
  const op = operation({ action: "delete", id, data: null });
  if (!ctx.silent) kernel.enqueue(ctx.path, [], () => kernel.ws.deleteBlock(id));
  return transactionReply([op]);
}

async function flushIfPending(ctx: HandlerContext, ids: Array<string | undefined>): Promise<void> {
  if (ids.some((x) => x !== undefined && ctx.kernel.isPending(x))) await ctx.kernel.flush();
}

async function moveBlock(ctx: HandlerContext): Promise<unknown> {
  const { kernel } = ctx;
  const id = reqId(ctx);
  const previousID = optAnchor(ctx, "previousID");
  const parentID = optAnchor(ctx, "parentID");
  await flushIfPending(ctx, [id, previousID, parentID]);
  kernel.ws.validateMove(id, previousID, parentID);
  if (!ctx.silent)
    kernel.enqueue(ctx.path, [], () => kernel.ws.moveBlock(id, previousID, parentID));
  await finishWrite(ctx, true);
  return null;
}

function fold(folded: boolean) {
  return async (ctx: HandlerContext): Promise<unknown> => {
    const { kernel } = ctx;
    const id = reqId(ctx);
    await flushIfPending(ctx, [id]);
    const loc = kernel.ws.locate(id);
    if (!loc) throw kernelError(-1, `block tree not found [id=${id}]`);
    if (loc.block.type === "d") {
      throw kernelError(-1, folded ? "document can not be folded" : "document can not be unfolded");
    }
    if (!ctx.silent) kernel.enqueue(ctx.path, [], () => kernel.ws.setFold(id, folded));
    await finishWrite(ctx, true);
    return null;
  };
}

function getBlockKramdown(ctx: HandlerContext): unknown {
  const id = reqId(ctx);
  const mode = optStr(ctx, "mode") ?? "md";
  if (mode !== "md" && mode !== "textmark") throw kernelError(-1, "Invalid mode");
  const loc = ctx.kernel.ws.locate(id);
  return {
    id,
    kramdown: loc
      ? renderKramdown(loc.block, { withIal: true, textmark: mode === "textmark" })
      : "",
  };
}

function getBlockKramdowns(ctx: HandlerContext): unknown {
  const ids = reqStrArray(ctx, "ids");
  const mode = optStr(ctx, "mode") ?? "md";
  if (mode !== "md" && mode !== "textmark") throw kernelError(-1, "Invalid mode");
  const out: Record<string, string> = {};
  for (const id of ids) {
    const loc = ctx.kernel.ws.locate(id);
    if (loc) out[id] = renderKramdown(loc.block, { withIal: true, textmark: mode === "textmark" });
  }
  return out;
}

function blockDom(ctx: HandlerContext, id: string): string {
  const loc = ctx.kernel.ws.locate(id);
  if (!loc) return "";
  return loc.block.type === "i"
    ? renderDom(loc.block, undefined, loc.parent?.subtype)
    : // the kernel renders the block as the first child of a tree of its own
      renderDom(loc.block, 1);
}

function getChildBlocks(ctx: HandlerContext): unknown {
  const id = reqId(ctx);
  const loc = ctx.kernel.ws.locate(id);
  if (!loc) return [];
  let kids: Block[] = loc.block.children;
  if (loc.block.type === "h" && loc.parent)
    kids = ctx.kernel.ws.headingChildren(loc.block, loc.parent);
  return kids.map((b) => {
    const o: Record<string, unknown> = { id: b.id, type: b.type };
    if (b.subtype) o.subType = b.subtype;
    const content = staticContent(b);
    if (content) o.content = content;
    const markdown = renderKramdown(b, { withIal: false });
    if (markdown) o.markdown = markdown;
    return o;
  });
}

function getBlockInfo(ctx: HandlerContext): unknown {
  const id = reqId(ctx);
  const ws = ctx.kernel.ws;
  const loc = ws.locate(id);
  if (!loc) throw kernelError(-1, `Content block with id [${id}] not found`);
  const root = loc.doc.root;
  // the kernel walks `ParentID` up to the block without one: the document itself, whatever the
  // block (kernel-probes block.reads; the contract expected the top-level ancestor)
  const rootChildID = root.id;
  return {
    box: loc.doc.box,
    path: ws.docPath(loc.doc.id),
    rootID: root.id,
    rootTitle: root.attrs.title ?? "",
    rootTitleEmpty: root.attrs["custom-sy-title-empty"] === "true",
    rootChildID,
    rootIcon: root.attrs.icon ?? "",
  };
}

const ATTR_NAME = /^[a-z][a-z0-9-]*$/;

/** Validates setBlockAttrs input; returns lowercased names. */
function checkAttrs(id: string, attrs: unknown): Record<string, string | null> {
  if (typeof attrs !== "object" || attrs === null || Array.isArray(attrs)) throw panicReply();
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(attrs as Record<string, unknown>)) {
    if (v !== null && typeof v !== "string") {
      throw kernelError(-1, `the value of attr [${k}] must be a string`);
    }
    const name = k.toLowerCase();
    if (name === "data-task") {
      throw kernelError(
        -1,
        'setting or removing [data-task] attribute is not allowed via this interface. Please use "/api/block/updateTaskListItemMarker" or "/api/block/batchUpdateTaskListItemMarker" to update the task list item marker',
      );
    }
    if (!ATTR_NAME.test(name) || (name.startsWith("custom-") && !/^custom-[a-z]/.test(name))) {
      throw kernelError(
        -1,
        `The attribute name can only contain lowercase English letters, digits, and hyphens, and must start with a lowercase English letter [${id}]`,
      );
    }
    // `normalizeIconValue`: an icon with a non-ASCII character and no "." or "/" is stored as
    // its code points in hex joined by "-" (kernel-probes attr.icon)
    out[name] =
      name === "icon" &&
      v !== null &&
      [...v].some((c) => (c.codePointAt(0) as number) > 0x7f) &&
      !/[./]/.test(v)
        ? [...v].map((c) => (c.codePointAt(0) as number).toString(16)).join("-")
        : v;
  }
  return out;
}

async function setBlockAttrs(ctx: HandlerContext): Promise<unknown> {
  const id = reqId(ctx);
  const attrs = checkAttrs(id, ctx.body.attrs);
  // The kernel's SetBlockAttrs waits for the whole write queue first (`FlushTxQueue`): a queued
  // update of this block lands before the attributes, never over them.
  await ctx.kernel.flush();
  if (!ctx.kernel.ws.locate(id)) throw kernelError(-1, "tree not found");
  ctx.kernel.ws.setAttrs(id, attrs);
  return null;
}

async function batchSetBlockAttrs(ctx: HandlerContext): Promise<unknown> {
  const list = ctx.body.blockAttrs;
  if (!Array.isArray(list)) throw panicReply();
  const items = list.map((e) => {
    const item = e as { id?: unknown; attrs?: unknown };
    if (typeof item.id !== "string") throw panicReply();
    if (!isValidNodeId(item.id)) throw kernelError(-1, "invalid ID argument");
    return { id: item.id, attrs: checkAttrs(item.id, item.attrs) };
  });
  await ctx.kernel.flush(); // BatchSetBlockAttrs also waits for the write queue first
  // block by block: an unknown one stops the call, the ones before it stay set
  for (const it of items) {
    if (!ctx.kernel.ws.locate(it.id))
      throw kernelError(-1, `Content block with id [${it.id}] not found`);
    ctx.kernel.ws.setAttrs(it.id, it.attrs);
  }
  return null;
}

function getBlockAttrs(ctx: HandlerContext): unknown {
  const id = reqId(ctx);
  const loc = ctx.kernel.ws.locate(id);
  return loc ? { ...loc.block.attrs } : {};
}

function batchGetBlockAttrs(ctx: HandlerContext): unknown {
  const ids = reqStrArray(ctx, "ids");
  const out: Record<string, Record<string, string>> = {};
  // an unknown ID has no entry (kernel-probes attr.batch)
  for (const id of ids) {
    const loc = ctx.kernel.ws.locate(id);
    if (loc) out[id] = { ...loc.block.attrs };
  }
  return out;
}

/**
 * One op of a transaction, run when the queue applies it. A database op writes its file at once;
 * an attribute op checks its block and returns the tree write, which waits for the commit.
 */
type TxStep = () => (() => void) | undefined;

/**
 * One transaction, applied as the kernel's `performTx` does (`kernel/model/transaction.go`): ops
 * in order; the first that fails stops the rest and rolls back the trees (attribute ops), while
 * the database files earlier ops wrote stay written (`av.SaveAttributeView` is outside the
 * transaction). Its failure is reported like any asynchronous one.
 */
function runTransaction(steps: readonly TxStep[]): void {
  const commits: Array<() => void> = [];
  for (const step of steps) {
    const commit = step();
    if (commit) commits.push(commit);
  }
  for (const commit of commits) commit();
}

/**
 * `/api/transactions`: attribute ops and database ops. `setAttrs` merges (data = JSON string or
 * object, null/"" deletes); `updateAttrs` replaces with `data.new` (or data). Each transaction is
 * queued as one unit ({@link runTransaction}), not flushed.
 */
function transactions(ctx: HandlerContext): unknown {
  const { kernel } = ctx;
  const txs = field(ctx, "transactions", "Array") as unknown[];
  const applies: Array<() => void> = [];
  const echo: unknown[] = [];
  for (const tx of txs) {
    const ops = (tx as { doOperations?: unknown }).doOperations;
    if (!Array.isArray(ops)) throw panicReply();
    const outOps: Record<string, unknown>[] = [];
    const steps: TxStep[] = [];
    for (const raw of ops) {
      const op = raw as { action?: unknown; id?: unknown; data?: unknown };
      const avApply = avTransactionOp(kernel, raw as Record<string, unknown>);
      if (avApply) {
        steps.push(() => {
          avApply();
          return undefined;
        });
        outOps.push(operation(raw as Record<string, unknown>));
        continue;
      }
      if (op.action !== "setAttrs" && op.action !== "updateAttrs") {
        // accepted and echoed, then failing when applied, as an op the kernel cannot run does
        const unsupported = `unsupported action [${String(op.action)}] (the sandbox supports setAttrs, updateAttrs and ${AV_TRANSACTION_ACTIONS.join(", ")})`;
        steps.push(() => {
          throw new Error(unsupported);
        });
        outOps.push(operation(raw as Record<string, unknown>));
        continue;
      }
      if (typeof op.id !== "string" || !isValidNodeId(op.id))
        throw kernelError(-1, "invalid ID argument");
      let data: unknown = op.data;
      if (typeof data === "string") {
        try {
          data = JSON.parse(data);
        } catch {
          throw kernelError(-1, "invalid data of operation");
        }
      }
      const replace = op.action === "updateAttrs";
      if (replace && data && typeof data === "object" && "new" in data)
        data = (data as { new: unknown }).new;
      const id = op.id;
      const attrs = checkAttrs(id, data);
      steps.push(() => {
        if (!kernel.ws.locate(id)) throw treeNotFound();
        return () => kernel.ws.setAttrs(id, attrs, replace);
      });
      outOps.push(operation({ action: op.action, id, data: op.data ?? null }));
    }
    if (steps.length > 0) applies.push(() => runTransaction(steps));
    // each transaction's timestamp is the request's reqId (`kernel/api/transaction.go`)
    const reqId = typeof ctx.body.reqId === "number" ? ctx.body.reqId : 0;
    echo.push({ timestamp: reqId, doOperations: outOps, undoOperations: null });
  }
  if (!ctx.silent) {
    for (const apply of applies) kernel.enqueue(ctx.path, [], apply);
  }
  return echo;
}

function transferBlockRef(ctx: HandlerContext): unknown {
  const fromID = reqId(ctx, "fromID");
  const toID = reqId(ctx, "toID");
  const refIDs = Array.isArray(ctx.body.refIDs)
    ? ctx.body.refIDs.filter((x): x is string => typeof x === "string")
    : null;
  const to = ctx.kernel.ws.locate(toID);
  if (!to) throw kernelError(-1, "block not found", { closeTimeout: 7000 });
  ctx.kernel.ws.transferRefs(
    fromID,
    toID,
    refIDs && refIDs.length > 0 ? refIDs : null,
    plainContent(to.block),
  );
  return null;
}

/** Block, attribute and transaction routes. */
export const blockRoutes: Record<string, Route> = {
  "/api/block/insertBlock": r(insertBlock),
  "/api/block/prependBlock": r(childInsert("first")),
  "/api/block/appendBlock": r(childInsert("last")),
  "/api/block/updateBlock": r(updateBlock),
  "/api/block/batchUpdateBlock": r(batchUpdateBlock),
  "/api/block/deleteBlock": r(deleteBlock),
  "/api/block/moveBlock": r(moveBlock),
  "/api/block/foldBlock": r(fold(true)),
  "/api/block/unfoldBlock": r(fold(false)),
  "/api/block/getBlockKramdown": r(getBlockKramdown),
  "/api/block/getBlockKramdowns": r(getBlockKramdowns),
  "/api/block/getBlockDOM": r((ctx) => {
    const id = reqId(ctx);
    return { id, dom: blockDom(ctx, id) };
  }),
  "/api/block/getBlockDOMs": r((ctx) => {
    const out: Record<string, string> = {};
    for (const id of reqStrArray(ctx, "ids")) {
      const dom = blockDom(ctx, id);
      if (dom) out[id] = dom;
    }
    return out;
  }),
  "/api/block/getChildBlocks": r(getChildBlocks),
  "/api/block/getBlockInfo": r(getBlockInfo),
  "/api/block/checkBlockExist": r((ctx) => {
    const id = optStr(ctx, "id") ?? "";
    return isValidNodeId(id) && ctx.kernel.ws.locate(id) !== null;
  }),
  "/api/block/transferBlockRef": r(transferBlockRef, true),
  "/api/attr/getBlockAttrs": r(getBlockAttrs),
  "/api/attr/setBlockAttrs": r(setBlockAttrs, true),
  "/api/attr/batchSetBlockAttrs": r(batchSetBlockAttrs, true),
  "/api/attr/batchGetBlockAttrs": r(batchGetBlockAttrs),
  "/api/transactions": r(transactions),
};

/**
 * Database (attribute view) endpoints and transaction ops (contract §4.7). AV writes go straight
 * to `data/storage/av/<avID>.json`; transaction ops are queued like every `/api/transactions` op.
 */
import {
  type AttributeView,
  AV_NAME_MAX_CHARS,
  type AvEvent,
  type AvLayout,
  type AvNewItemTemplate,
  type AvSrc,
  addItems,
  addKey,
  avBlocks,
  avStore,
  getKey,
  newDefaultAv,
  refreshAvNames,
  removeItems,
  removeKey,
  renderAv,
  setRelation,
  setValue,
} from "./av-model.js";
import { isValidNodeId } from "./clock.js";
import { kernelError } from "./errors.js";
import { type HandlerContext, panicReply, type Route, reqStr } from "./handler-kit.js";
import type { Kernel } from "./kernel.js";

const r = (handler: Route["handler"], write = false): Route => ({
  handler,
  auth: true,
  body: "json",
  write,
});

/** The kernel refuses the old `rowID` argument (contract §4.7; its wording, kernel-probes). */
export const rowIdDeprecated = (path: string): string =>
  `[${path}] parameter [rowID] is deprecated, visit [https://github.com/siyuan-note/siyuan/issues/15727] for details`;

const num = (ctx: HandlerContext, name: string, dflt: number): number =>
  typeof ctx.body[name] === "number" ? (ctx.body[name] as number) : dflt;
const bool = (ctx: HandlerContext, name: string, dflt: boolean): boolean =>
  typeof ctx.body[name] === "boolean" ? (ctx.body[name] as boolean) : dflt;
const str = (ctx: HandlerContext, name: string): string =>
  typeof ctx.body[name] === "string" ? (ctx.body[name] as string) : "";

function getAttributeView(ctx: HandlerContext): unknown {
  const id = reqStr(ctx, "id");
  return { av: avStore(ctx.kernel).peek(id) };
}

/** renderAttributeView: creates the default AV when the file is missing (createIfNotExist, default true). */
function renderAttributeView(ctx: HandlerContext): unknown {
  const id = reqStr(ctx, "id");
  if (!isValidNodeId(id)) throw kernelError(-1, "invalid id");
  const store = avStore(ctx.kernel);
  const blockID = str(ctx, "blockID");
  let av = store.peek(id);
  if (!av) {
    if (!bool(ctx, "createIfNotExist", true)) throw kernelError(-1, "attribute view not found");
    const loc = blockID ? ctx.kernel.ws.locate(blockID) : null;
    const layout = (loc?.block.type === "av" ? loc.block.lang : "table") as AvLayout;
    av = newDefaultAv(store, id, layout);
    store.save(av, ctx.path);
  }
  return renderAv(store, av, {
    viewID: str(ctx, "viewID"),
    page: num(ctx, "page", 1),
    pageSize: num(ctx, "pageSize", -1),
    blockID,
  });
}

function keysByAvID(ctx: HandlerContext): unknown {
  const av = avStore(ctx.kernel).peek(reqStr(ctx, "avID"));
  return av ? av.keyValues.map((kv) => kv.key) : [];
}

function keysByID(ctx: HandlerContext): unknown {
  const av = avStore(ctx.kernel).peek(reqStr(ctx, "avID"));
  const ids = Array.isArray(ctx.body.keyIDs) ? (ctx.body.keyIDs as unknown[]) : null;
  if (!ids) throw panicReply();
  return av ? av.keyValues.map((kv) => kv.key).filter((k) => ids.includes(k.id)) : [];
}

function addAttributeViewKey(ctx: HandlerContext): unknown {
  const [avID, keyID, keyName, keyType, keyIcon, previousKeyID] = [
    "avID",
    "keyID",
    "keyName",
    "keyType",
    "keyIcon",
    "previousKeyID",
  ].map((n) => reqStr(ctx, n)) as [string, string, string, string, string, string];
  const store = avStore(ctx.kernel);
  // the missing-file error reuses the view-not-found sentinel
  const av = store.require(avID, "view not found");
  if (addKey(av, keyID, keyName, keyType, keyIcon, previousKeyID)) store.save(av, ctx.path);
  return null;
}

function removeAttributeViewKey(ctx: HandlerContext): unknown {
  const avID = reqStr(ctx, "avID");
  const keyID = reqStr(ctx, "keyID");
  const store = avStore(ctx.kernel);
  const av = store.require(avID);
  removeKey(store, av, keyID, ctx.body.removeRelationDest === true, ctx.path);
  store.save(av, ctx.path);
  return null;
}

function addAttributeViewBlocks(ctx: HandlerContext): unknown {
  const avID = reqStr(ctx, "avID");
  const raw = ctx.body.srcs;
  if (!Array.isArray(raw)) throw panicReply();
  const srcs: AvSrc[] = raw.map((s) => {
    const o = (s ?? {}) as Record<string, unknown>;
    const src: AvSrc = {
      id: typeof o.id === "string" ? o.id : "",
      isDetached: o.isDetached === true,
    };
    if (typeof o.content === "string") src.content = o.content;
    if (typeof o.itemID === "string") src.itemID = o.itemID;
    return src;
  });
  const store = avStore(ctx.kernel);
  const av = store.require(avID);
  addItems(store, av, srcs, str(ctx, "previousID"), ctx.body.ignoreDefaultFill === true);
  store.save(av, ctx.path);
  return null;
}

function removeAttributeViewBlocks(ctx: HandlerContext): unknown {
  const avID = reqStr(ctx, "avID");
  const ids = ctx.body.srcIDs;
  if (!Array.isArray(ids)) throw panicReply();
  const store = avStore(ctx.kernel);
  const av = store.require(avID);
  removeItems(
    store,
    av,
    ids.filter((x): x is string => typeof x === "string"),
    ctx.path,
  );
  store.save(av, ctx.path);
  return null;
}

function setAttributeViewBlockAttr(ctx: HandlerContext): unknown {
  if ("rowID" in ctx.body) throw kernelError(-1, rowIdDeprecated(ctx.path));
  const avID = reqStr(ctx, "avID");
  const keyID = reqStr(ctx, "keyID");
  const itemID = reqStr(ctx, "itemID");
  const store = avStore(ctx.kernel);
  const av = store.require(avID);
  const value = setValue(store, av, keyID, itemID, ctx.body.value);
  if (value === undefined) throw panicReply(); // unknown key: nil dereference, recovered
  store.save(av, ctx.path);
  return { value };
}

function batchSetAttributeViewBlockAttrs(ctx: HandlerContext): unknown {
  const avID = reqStr(ctx, "avID");
  const values = ctx.body.values;
  if (!Array.isArray(values)) throw panicReply();
  if (values.some((v) => v && typeof v === "object" && "rowID" in v))
    throw kernelError(-1, rowIdDeprecated(ctx.path));
  const store = avStore(ctx.kernel);
  const av = store.require(avID);
  for (const raw of values) {
    const v = (raw ?? {}) as Record<string, unknown>;
    if (typeof v.keyID !== "string" || typeof v.itemID !== "string") throw panicReply();
    if (setValue(store, av, v.keyID, v.itemID, v.value) === undefined) {
      store.save(av, ctx.path); // the cells before the failing one stay written
      throw panicReply();
    }
  }
  store.save(av, ctx.path);
  return null;
}

/** Database routes. */
export const avRoutes: Record<string, Route> = {
  "/api/av/getAttributeView": r(getAttributeView),
  "/api/av/renderAttributeView": r(renderAttributeView),
  "/api/av/getAttributeViewKeysByAvID": r(keysByAvID),
  "/api/av/getAttributeViewKeysByID": r(keysByID),
  "/api/av/addAttributeViewKey": r(addAttributeViewKey, true),
  "/api/av/removeAttributeViewKey": r(removeAttributeViewKey, true),
  "/api/av/addAttributeViewBlocks": r(addAttributeViewBlocks, true),
  "/api/av/removeAttributeViewBlocks": r(removeAttributeViewBlocks, true),
  "/api/av/setAttributeViewBlockAttr": r(setAttributeViewBlockAttr, true),
  "/api/av/batchSetAttributeViewBlockAttrs": r(batchSetAttributeViewBlockAttrs, true),
};

/** Transaction actions handled here. */
export const AV_TRANSACTION_ACTIONS = [
  "setAttrViewName",
  "addAttrViewCol",
  "updateAttrViewColRelation",
  "updateAttrViewColRollup",
  "updateAttrViewColTemplate",
  "setAttrViewNewItemTemplates",
] as const;

const s = (op: Record<string, unknown>, k: string): string =>
  typeof op[k] === "string" ? (op[k] as string) : "";

/** Go's name of a JSON value's type once decoded into `any` (for the kernel's panic text). */
function goType(v: unknown): string {
  if (typeof v === "number") return "float64";
  if (typeof v === "boolean") return "bool";
  return Array.isArray(v) ? "[]interface {}" : "map[string]interface {}";
}

/**
 * A database op of `/api/transactions`, as a function to queue (its errors become async
 * transaction failures, as in the kernel), or null when the action is not a database op.
 */
export function avTransactionOp(kernel: Kernel, op: Record<string, unknown>): (() => void) | null {
  const action = s(op, "action");
  if (!(AV_TRANSACTION_ACTIONS as readonly string[]).includes(action)) return null;
  const store = avStore(kernel);
  const by = `tx:${action}`;
  const load = (id: string): AttributeView => {
    const av = store.load(id);
    if (!av) throw new Error(`attribute view not found [${id}]`);
    return av;
  };
  switch (action) {
    case "setAttrViewName":
      return () => {
        const av = load(s(op, "id"));
        const name = String(op.data ?? "")
          .trim()
          .replace(/\r?\n/g, " ");
        av.name = [...name].slice(0, AV_NAME_MAX_CHARS).join("");
        store.save(av, by);
        refreshAvNames(kernel, av);
      };
    case "addAttrViewCol":
      // `doAddAttrViewColumn`: `data` is the icon (`operation.Data.(string)`, so any other
      // non-null value panics); then the same `AddAttributeViewKey` as the endpoint.
      return () => {
        const icon = op.data ?? "";
        if (typeof icon !== "string") {
          throw new Error(
            `transaction panic: interface conversion: interface {} is ${goType(icon)}, not string`,
          );
        }
        const av = load(s(op, "avID"));
        const [id, name, type, previousID] = ["id", "name", "type", "previousID"].map((k) =>
          s(op, k),
        ) as [string, string, string, string];
        if (addKey(av, id, name, type, icon, previousID)) store.save(av, by);
      };
    case "updateAttrViewColRelation":
      return () => {
        const av = load(s(op, "avID"));
        setRelation(
          store,
          av,
          s(op, "keyID"),
          s(op, "id"),
          op.isTwoWay === true,
          s(op, "backRelationKeyID"),
          s(op, "name"),
          s(op, "format"),
          by,
        );
        store.save(av, by);
      };
    case "updateAttrViewColRollup":
      return () => {
        if (op.data === null || op.data === undefined) return; // nothing is saved
        const av = load(s(op, "avID"));
        const key = getKey(av, s(op, "id"));
        if (!key) throw new Error(`key not found [${s(op, "id")}]`);
        const calc = (op.data as { calc?: { operator?: unknown } }).calc;
        key.rollup = {
          relationKeyID: s(op, "parentID"),
          keyID: s(op, "keyID"),
          calc: { operator: typeof calc?.operator === "string" ? calc.operator : "" },
        };
        store.save(av, by);
      };
    case "updateAttrViewColTemplate":
      return () => {
        const av = load(s(op, "avID"));
        const key = getKey(av, s(op, "id"));
        if (!key) throw new Error(`key not found [${s(op, "id")}]`);
        key.template = typeof op.data === "string" ? op.data : "";
        store.save(av, by);
      };
    default:
      return () => {
        const av = load(s(op, "avID"));
        const data = (op.data ?? {}) as {
          templates?: AvNewItemTemplate[];
          defaultTemplateID?: string;
        };
        const templates = Array.isArray(data.templates) ? data.templates : [];
        if (templates.length > 0) av.newItemTemplates = templates;
        else delete av.newItemTemplates;
        const def = typeof data.defaultTemplateID === "string" ? data.defaultTemplateID : "";
        if (def !== "") av.defaultTemplateID = def;
        else delete av.defaultTemplateID;
        store.save(av, by);
      };
  }
}

/** What the control surface offers for databases (never creates anything). */
export interface AvControl {
  /** The stored AV JSON (`data/storage/av/<id>.json`), or null when there is no file. */
  av(id: string): AttributeView | null;
  /** IDs of the database blocks (`NodeAttributeView`) in open notebooks that show this AV. */
  avBlocks(id: string): string[];
  /** Stage log of AV files: created / changed / removed, with the endpoint or `tx:<action>`. */
  avLog(id?: string): AvEvent[];
}

/** Builds the database part of the control surface. */
export function avControl(kernel: Kernel): AvControl {
  return {
    av: (id) => avStore(kernel).load(id),
    avBlocks: (id) => avBlocks(kernel, id).map((b) => b.id),
    avLog: (id) => avStore(kernel).list(id),
  };
}

/**
 * Document history (`/api/history/*`, kernel-probes history.doc-points): a restore point is a copy
 * of a document's tree filed under `history/<YYYY-MM-DD-HHMMSS>-<op>/<notebook><storage path>`
 * (one folder per second and operation: a second point of the same document in the same second
 * replaces the first), listed by its time in Unix seconds (`created`). SiYuan indexes points a
 * few seconds later (its history queue is flushed every 3 s); the sandbox indexes at once.
 */
import { posix } from "node:path";
import { type Block, cloneBlock } from "./block.js";
import { kernelError } from "./errors.js";
import { field, type HandlerContext, type Route } from "./handler-kit.js";
import { MEMORY_WORKSPACE_DIR } from "./handlers-asset.js";
import type { Kernel } from "./kernel.js";
import { plainContent, renderDom } from "./render.js";

/** One history file: a document as it was. */
interface HistoryEntry {
  /** `/history/<dir>/<box><storage path>`, workspace-relative, as the kernel answers it. */
  readonly path: string;
  /** Unix seconds of the folder's time, as a string. */
  readonly created: string;
  readonly op: string;
  readonly box: string;
  readonly docId: string;
  readonly parentId: string | null;
  readonly title: string;
  readonly content: string;
  readonly root: Block;
}

/** The kernel's history page size (`fileHistoryPageSize`). */
const PAGE_SIZE = 32;

const stores = new WeakMap<Kernel, HistoryEntry[]>();

function store(kernel: Kernel): HistoryEntry[] {
  let s = stores.get(kernel);
  if (!s) {
    s = [];
    stores.set(kernel, s);
  }
  return s;
}

const r = (handler: Route["handler"], write = false): Route => ({
  handler,
  auth: true,
  body: "json",
  write,
});

/** An optional string argument (`BindJsonArg(name, false, false)`): a wrong type is refused. */
function optString(ctx: HandlerContext, name: string): string {
  const v = ctx.body[name];
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw kernelError(-1, `Field [${name}] should be of type [String]`);
  return v;
}

/** An optional number argument (`type`, `page`). */
function optNumber(ctx: HandlerContext, name: string, dflt: number): number {
  const v = ctx.body[name];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== "number") throw kernelError(-1, `Field [${name}] should be of type [float64]`);
  return Math.trunc(v);
}

/** The entries a search keeps (`buildSearchHistoryQueryFilter`, for document history). */
function matching(ctx: HandlerContext): HistoryEntry[] {
  const query = optString(ctx, "query").trim();
  const box = optString(ctx, "notebook");
  const op = optString(ctx, "op").trim();
  const type = optNumber(ctx, "type", 1);
  if (type !== 0 && type !== 1 && type !== 3) return [];
  return store(ctx.kernel).filter((e) => {
    if (op !== "" && op !== "all" && e.op !== op) return false;
    if (type === 3) return query === "" || e.docId === query;
    if (/^\d{14}-[0-9a-z]{7}$/.test(box) && e.box !== box) return false;
    if (query === "") return true;
    const q = query.toLowerCase();
    const hay = type === 0 ? e.title : `${e.title} ${e.content}`;
    return hay.toLowerCase().includes(q);
  });
}

function searchHistory(ctx: HandlerContext): unknown {
  const page = optNumber(ctx, "page", 1);
  const times = [...new Set(matching(ctx).map((e) => e.created))].sort((a, b) =>
    b.localeCompare(a),
  );
  const offset = (page - 1) * PAGE_SIZE;
  return {
    histories: offset < 0 ? [] : times.slice(offset, offset + PAGE_SIZE),
    pageCount: Math.ceil(times.length / PAGE_SIZE),
    totalCount: times.length,
  };
}

function getHistoryItems(ctx: HandlerContext): unknown {
  const created = field(ctx, "created", "String") as string;
  const all = matching(ctx);
  if (!/^[+-]?\d+$/.test(created)) return { items: [] };
  return {
    items: all
      .filter((e) => e.created === created)
      .slice(0, PAGE_SIZE)
      .map((e) => ({ title: e.title, path: e.path, op: e.op, notebook: e.box })),
  };
}

/** The workspace directory the kernel's messages name. */
const workspaceDir = (ctx: HandlerContext) => ctx.kernel.dataDir ?? MEMORY_WORKSPACE_DIR;

/** A workspace-relative path as the kernel joins it; `null` when it leaves the workspace. */
function inWorkspace(p: string): string | null {
  const joined = posix.normalize(`/${p}`);
  return joined.startsWith("/..") ? null : joined;
}

/** The blocks of a history file as the kernel shows them: not editable, folds open. */
function historyDom(root: Block): string {
  const open = cloneBlock(root);
  const unfold = (b: Block) => {
    delete b.attrs.fold;
    delete b.attrs["heading-fold"];
    b.children.forEach(unfold);
  };
  unfold(open);
  return renderDom(open)
    .replaceAll('contenteditable="true"', 'contenteditable="false"')
    .replaceAll('draggable="true"', 'draggable="false"');
}

function getDocHistoryContent(ctx: HandlerContext): unknown {
  const historyPath = field(ctx, "historyPath", "String") as string;
  const p = inWorkspace(historyPath);
  if (p === null) {
    const abs = posix.join(workspaceDir(ctx), historyPath);
    throw kernelError(-1, `Path [${abs}] is not in workspace`);
  }
  const entry = store(ctx.kernel).find((e) => e.path === p);
  if (!entry) return { content: "", id: "", isLargeDoc: false, rootID: "" };
  return {
    content: historyDom(entry.root),
    id: entry.docId,
    isLargeDoc: false,
    rootID: entry.docId,
  };
}

function createDocHistory(ctx: HandlerContext): unknown {
  const id = field(ctx, "id", "String") as string;
  const ws = ctx.kernel.ws;
  const loc = ws.locate(id);
  if (!loc) throw kernelError(-1, "tree not found");
  const doc = loc.doc;
  const now = ctx.kernel.ids.clock.now();
  const t = ctx.kernel.ids.timestamp();
  const dir = `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}-${t.slice(8)}-update`;
  const path = `/history/${dir}/${doc.box}${ws.docPath(doc.id)}`;
  const entry: HistoryEntry = {
    path,
    created: String(Math.floor(now / 1000)),
    op: "update",
    box: doc.box,
    docId: doc.id,
    parentId: doc.parentId,
    title: doc.root.attrs.title || "Untitled",
    content: doc.root.children.map(plainContent).join(" "),
    root: cloneBlock(doc.root),
  };
  const s = store(ctx.kernel);
  const same = s.findIndex((e) => e.path === path);
  // the same second's folder: the file is replaced (and indexed again)
  if (same >= 0) s.splice(same, 1);
  s.push(entry);
  return null;
}

function rollbackDocHistory(ctx: HandlerContext): unknown {
  const historyPath = field(ctx, "historyPath", "String") as string;
  const p = inWorkspace(historyPath);
  if (p === null) throw kernelError(-1, `history path [${historyPath}] is not in workspace`);
  const entry = store(ctx.kernel).find((e) => e.path === p);
  if (!entry) throw kernelError(-1, `history path [${historyPath}] not exist`);
  ctx.kernel.tick();
  const ws = ctx.kernel.ws;
  const root = cloneBlock(entry.root);
  const doc = ws.docs.get(entry.docId);
  if (doc) {
    doc.root = root;
    ws.reindexDoc(doc.id);
    ws.touchDoc(doc.id);
    ws.dirtyDocs.add(doc.id);
  } else {
    // a removed document comes back under its parent when that still exists, else at the top
    const parentId = entry.parentId && ws.docs.has(entry.parentId) ? entry.parentId : null;
    ws.addLoadedDoc({ id: entry.docId, box: entry.box, parentId, root });
  }
  return null;
}

export const historyRoutes: Record<string, Route> = {
  "/api/history/searchHistory": r(searchHistory),
  "/api/history/getHistoryItems": r(getHistoryItems),
  "/api/history/getDocHistoryContent": r(getDocHistoryContent),
  "/api/history/createDocHistory": r(createDocHistory, true),
  "/api/history/rollbackDocHistory": r(rollbackDocHistory, true),
};

/** Notebook and file-tree endpoints (contract §4.1–§4.3). */
import { posix } from "node:path";
import { LUTE_NODE_NAMES } from "./block.js";
import { isValidNodeId, parseTimestamp } from "./clock.js";
import { DEFAULT_MAX_LIST_COUNT, WORKSPACE_FILE_TREE_SORT_MODE } from "./constants.js";
import { kernelError } from "./errors.js";
import {
  field,
  type HandlerContext,
  optStr,
  panicReply,
  type Route,
  reqId,
  reqStr,
  reqStrArray,
} from "./handler-kit.js";
import { MEMORY_WORKSPACE_DIR } from "./handlers-asset.js";
import { renderDom } from "./render.js";
import type { Workspace } from "./workspace.js";
import type { DocEntry, Notebook } from "./workspace-index.js";
import { defaultBoxConf } from "./workspace-notebooks.js";

const r = (handler: Route["handler"], body: Route["body"] = "json"): Route => ({
  handler,
  auth: true,
  body,
  write: false,
});
const w = (handler: Route["handler"]): Route => ({
  handler,
  auth: true,
  body: "json",
  write: true,
});

/** Box JSON of lsNotebooks / createNotebook. */
function boxJson(ws: Workspace, b: Notebook): Record<string, unknown> {
  return {
    id: b.id,
    name: b.conf.name,
    icon: b.conf.icon,
    sort: b.conf.sort,
    sortMode: b.conf.sortMode,
    closed: b.conf.closed,
    subFileCount: ws.childDocs(b.id, null).length,
    newFlashcardCount: 0,
    dueFlashcardCount: 0,
    flashcardCount: 0,
    encrypted: b.conf.encrypted,
    unlocked: false,
  };
}

function notebookArg(ctx: HandlerContext): string {
  const id = reqStr(ctx, "notebook");
  if (!isValidNodeId(id)) throw kernelError(-1, "invalid ID argument");
  return id;
}

const notebookRoutes: Record<string, Route> = {
  "/api/notebook/lsNotebooks": r(
    (ctx) => ({
      notebooks: ctx.kernel.ws.listNotebooks().map((b) => boxJson(ctx.kernel.ws, b)),
      boxDocEnabled: false,
    }),
    "tolerant",
  ),
  "/api/notebook/openNotebook": w((ctx) => {
    const id = field(ctx, "notebook", "String") as string;
    if (!isValidNodeId(id)) throw kernelError(-1, "invalid ID argument");
    // an unknown notebook has no folder: the kernel's mount refuses it as a file
    if (!ctx.kernel.ws.notebooks.has(id))
      throw kernelError(-1, "can not open file, just support open folder only");
    ctx.kernel.ws.setClosed(id, false);
    return null;
  }),
  "/api/notebook/closeNotebook": w((ctx) => {
    ctx.kernel.ws.setClosed(notebookArg(ctx), true);
    return null;
  }),
  "/api/notebook/createNotebook": w((ctx) => {
    if (typeof ctx.body.name !== "string") throw kernelError(-1, "Field [name] is required");
    // an empty name becomes "Untitled" (the kernel's language string 16)
    const name = ctx.body.name.trim() === "" ? "Untitled" : ctx.body.name;
    return { notebook: boxJson(ctx.kernel.ws, ctx.kernel.ws.createNotebook(name)) };
  }),
  "/api/notebook/removeNotebook": w((ctx) => {
    ctx.kernel.ws.removeNotebook(notebookArg(ctx));
    return null;
  }),
  "/api/notebook/renameNotebook": w((ctx) => {
    const id = notebookArg(ctx);
    ctx.kernel.ws.renameNotebook(id, reqStr(ctx, "name"));
    return null;
  }),
  "/api/notebook/getNotebookConf": r((ctx) => {
    const id = notebookArg(ctx);
    const b = ctx.kernel.ws.notebooks.get(id);
    if (!b) throw kernelError(-1, `notebook [${id}] not found`);
    return { box: b.id, name: b.conf.name, conf: { ...b.conf } };
  }),
  "/api/notebook/setNotebookConf": w((ctx) => {
    const id = notebookArg(ctx);
    const conf = ctx.body.conf;
    if (typeof conf !== "object" || conf === null || Array.isArray(conf)) throw panicReply();
    const b = ctx.kernel.ws.notebooks.get(id);
    if (!b) throw kernelError(-1, `notebook [${id}] not found`);
    const patch = { ...(conf as Record<string, unknown>) };
    delete patch.encrypted;
    delete patch.boxCrypt;
    if (patch.dailyNoteSavePath === "/") {
      throw kernelError(-1, "Please specify the daily note save path in the Notebook Settings");
    }
    if (typeof patch.dailyNoteTemplatePath === "string" && patch.dailyNoteTemplatePath !== "") {
      let t = patch.dailyNoteTemplatePath;
      if (!t.endsWith(".md")) t += ".md";
      if (!t.startsWith("/")) t = `/${t}`;
      patch.dailyNoteTemplatePath = t;
    }
    Object.assign(b.conf, patch);
    ctx.kernel.ws.dirtyBoxes.add(id);
    ctx.kernel.ws.version++;
    return { ...b.conf };
  }),
  // `SetBoxIcon`: no ID check and no existence check; an unknown valid ID gets a folder and a
  // conf (a closed notebook "Untitled", sort 0) — kernel-probes notebook.setNotebookIcon. An icon
  // with a "." goes through the emoji file-name filter (not modelled: the product sends names the
  // filter keeps); an emoji is stored as sent, not as hex.
  "/api/notebook/setNotebookIcon": w((ctx) => {
    const id = field(ctx, "notebook", "String") as string;
    const icon = ctx.body.icon;
    if (icon === undefined || icon === null) throw kernelError(-1, "Field [icon] is required");
    if (typeof icon !== "string") throw kernelError(-1, "Field [icon] should be of type [String]");
    const ws = ctx.kernel.ws;
    let b = ws.notebooks.get(id.trim());
    if (!b) {
      // a malformed ID's folder is no notebook: nothing is listed
      if (!isValidNodeId(id.trim())) return null;
      b = { id: id.trim(), conf: defaultBoxConf("Untitled"), sortMap: {} };
      ws.notebooks.set(b.id, b);
    }
    b.conf.icon = icon;
    ws.dirtyBoxes.add(b.id);
    ws.version++;
    return null;
  }),
  "/api/notebook/changeSortNotebook": w((ctx) => {
    const ids = reqStrArray(ctx, "notebooks");
    ids.forEach((id, i) => {
      const b = ctx.kernel.ws.notebooks.get(id);
      if (b) {
        b.conf.sort = i + 1;
        ctx.kernel.ws.dirtyBoxes.add(id);
      }
    });
    ctx.kernel.ws.version++;
    return null;
  }),
};

const docIdOfPath = (p: string): string =>
  p.replace(/\.sy$/, "").split("/").filter(Boolean).pop() ?? "";

/** Sorts sibling documents by a sort mode (contract §4.1 table, §4.2 custom order). */
export function sortDocs(ws: Workspace, box: Notebook, docs: DocEntry[], mode: number): DocEntry[] {
  const title = (d: DocEntry) => d.root.attrs.title ?? "";
  const updated = (d: DocEntry) => d.root.attrs.updated ?? d.id.slice(0, 14);
  const created = (d: DocEntry) => d.id;
  const size = (d: DocEntry) => JSON.stringify(d.root).length;
  const subs = (d: DocEntry) => ws.childDocs(d.box, d.id).length;
  const refs = (d: DocEntry) => ws.refCountOfDoc(d.id);
  const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const by: Record<number, (a: DocEntry, b: DocEntry) => number> = {
    0: (a, b) => title(a).localeCompare(title(b)),
    1: (a, b) => title(b).localeCompare(title(a)),
    2: (a, b) => cmpStr(updated(a), updated(b)),
    3: (a, b) => cmpStr(updated(b), updated(a)),
    4: (a, b) => naturalCompare(title(a), title(b)),
    5: (a, b) => naturalCompare(title(b), title(a)),
    7: (a, b) => refs(a) - refs(b),
    8: (a, b) => refs(b) - refs(a),
    9: (a, b) => cmpStr(created(a), created(b)),
    10: (a, b) => cmpStr(created(b), created(a)),
    11: (a, b) => size(a) - size(b),
    12: (a, b) => size(b) - size(a),
    13: (a, b) => subs(a) - subs(b),
    14: (a, b) => subs(b) - subs(a),
  };
  const custom = (a: DocEntry, b: DocEntry) =>
    (box.sortMap[a.id] ?? 0) - (box.sortMap[b.id] ?? 0) || cmpStr(b.id, a.id);
  return [...docs].sort(by[mode] ?? custom);
}

/**
 * Natural order as SiYuan 3.7.3 lists it (kernel-probes filetree.sort-modes): runs of digits
 * compare as numbers, other runs by code point, so case matters (`B1` before `a2`).
 */
export function naturalCompare(a: string, b: string): number {
  const runs = (s: string) => s.match(/\d+|\D+/g) ?? [];
  const x = runs(a);
  const y = runs(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
    if (/^\d/.test(p) && /^\d/.test(q)) {
      const d = Number(p) - Number(q);
      if (d !== 0) return d;
      return p.length - q.length;
    }
    return p < q ? -1 : 1;
  }
  return x.length - y.length;
}

/** Effective listing mode: an explicit mode, else the notebook's, with 15 → workspace setting. */
export function effectiveSortMode(box: Notebook, requested: number | undefined): number {
  let mode = requested;
  if (mode === undefined || mode === 256) mode = box.conf.sortMode;
  return mode === 15 ? WORKSPACE_FILE_TREE_SORT_MODE : mode;
}

function fileJson(
  ws: Workspace,
  box: Notebook,
  d: DocEntry,
  custom: boolean,
): Record<string, unknown> {
  const a = d.root.attrs;
  const utc = ws.ids.utc;
  const mtime = Math.floor(parseTimestamp(a.updated ?? d.id.slice(0, 14), utc) / 1000);
  const ctime = Math.floor(parseTimestamp(d.id.slice(0, 14), utc) / 1000);
  const size = JSON.stringify(d.root).length;
  const o: Record<string, unknown> = {
    path: ws.docPath(d.id),
    name: a.title ?? "",
    icon: a.icon ?? "",
    name1: a.name ?? "",
    alias: a.alias ?? "",
    memo: a.memo ?? "",
    bookmark: a.bookmark ?? "",
    id: d.id,
    count: ws.refCountOfDoc(d.id),
    size,
    hSize: size < 1024 ? `${size} B` : `${(size / 1024).toFixed(1)} kB`,
    mtime,
    ctime,
    hMtime: new Date(mtime * 1000).toISOString().replace("T", " ").slice(0, 19),
    hCtime: new Date(ctime * 1000).toISOString().replace("T", " ").slice(0, 19),
    sort: custom ? (box.sortMap[d.id] ?? 0) : 0,
    subFileCount: ws.childDocs(d.box, d.id).length,
    newFlashcardCount: 0,
    dueFlashcardCount: 0,
    flashcardCount: 0,
  };
  if (a["custom-sy-title-empty"] === "true") o.titleEmpty = true;
  return o;
}

function listDocsByPath(ctx: HandlerContext): unknown {
  const ws = ctx.kernel.ws;
  const boxId = reqStr(ctx, "notebook");
  const path = reqStr(ctx, "path");
  if (path.includes("..")) throw kernelError(-1, "path must not contain '..' and must be relative");
  const box = ws.notebooks.get(boxId);
  if (!box || box.conf.closed) throw kernelError(-1, "Query notebook failed");
  const sortArg = typeof ctx.body.sort === "number" ? ctx.body.sort : undefined;
  const mode = effectiveSortMode(box, sortArg);
  const maxArg =
    typeof ctx.body.maxListCount === "number" ? ctx.body.maxListCount : DEFAULT_MAX_LIST_COUNT;
  const showHidden = ctx.body.showHidden === true;
  let parentId: string | null = null;
  if (path !== "/" && path !== "") {
    parentId = docIdOfPath(path);
    if (!ws.docs.has(parentId)) return { box: boxId, path, files: [] };
  }
  let docs = ws.childDocs(boxId, parentId);
  if (!showHidden) docs = docs.filter((d) => d.root.attrs["custom-hidden"] !== "true");
  docs = sortDocs(ws, box, docs, mode);
  if (maxArg > 0) docs = docs.slice(0, maxArg);
  // `sort` numbers are filled in custom order, unless the caller asked for 15 by name
  const fill = mode === 6 && sortArg !== 15;
  return { box: boxId, path, files: docs.map((d) => fileJson(ws, box, d, fill)) };
}

function docByIdOrThrow(ws: Workspace, id: string): DocEntry {
  const d = ws.docs.get(id);
  if (!d) throw kernelError(-1, "tree not found", { closeTimeout: 7000 });
  return d;
}

async function getDoc(ctx: HandlerContext): Promise<unknown> {
  const id = reqId(ctx);
  await ctx.kernel.flush();
  const ws = ctx.kernel.ws;
  const loc = ws.locate(id);
  // an ID whose document is not found: code 1 (code 3 is for a block missing from a found tree)
  if (!loc) throw kernelError(1, "tree not found", null);
  const root = loc.doc.root;
  const parent = loc.block === root ? root.id : (loc.parent?.id ?? "");
  return {
    id,
    mode: typeof ctx.body.mode === "number" ? ctx.body.mode : 0,
    parentID: parent,
    parent2ID: parent,
    rootID: root.id,
    type: LUTE_NODE_NAMES[loc.block.type],
    // the loaded blocks, numbered from 0
    content: root.children.map((c, i) => renderDom(c, i)).join(""),
    blockCount: root.children.length,
    // SiYuan 3.7.3 answered false for a whole three-block document loaded at once
    eof: false,
    scroll: false,
    box: loc.doc.box,
    path: ws.docPath(loc.doc.id),
    isSyncing: false,
    isBacklinkExpand: false,
    keywords: null,
    reqId: ctx.body.reqId ?? null,
  };
}

/**
 * duplicateDoc: copies the document holding the block (a block ID copies its whole document) and
 * places the copy right after it: the visible siblings, listed in the notebook's effective order
 * without the copy, get sort values 0, 1, … with the copy's after the source's (`box.addSort`).
 * A missing `id` panics in the kernel, whose recovery answers code 0 with null data.
 */
function duplicateDoc(ctx: HandlerContext): unknown {
  if (ctx.body.id === undefined) return null;
  const ws = ctx.kernel.ws;
  const loc = ws.locate(reqId(ctx));
  if (!loc) throw kernelError(-1, "tree not found", { closeTimeout: 7000 });
  const src = loc.doc;
  const box = ws.notebooks.get(src.box) as Notebook;
  const siblings = sortDocs(
    ws,
    box,
    ws.childDocs(src.box, src.parentId).filter((d) => d.root.attrs["custom-hidden"] !== "true"),
    effectiveSortMode(box, undefined),
  );
  const { doc, hPath } = ws.duplicateDoc(src.id);
  let n = 0;
  for (const d of siblings) {
    box.sortMap[d.id] = n++;
    if (d.id === src.id) box.sortMap[doc.id] = n++;
  }
  ws.dirtyBoxes.add(box.id);
  ws.version++;
  return { id: doc.id, notebook: src.box, path: ws.docPath(doc.id), hPath };
}

/**
 * heading2Doc: `srcHeadingID` and `targetNoteBook` are required (a missing one panics: code 0, null
 * data); `targetPath` is `/` (the notebook root) or a document's storage path — missing or unknown
 * is "block not found", as an unknown heading. `previousPath`/`toTop` are not modelled (the
 * product sends neither). Answers null data.
 */
function heading2Doc(ctx: HandlerContext): unknown {
  const headingId = reqStr(ctx, "srcHeadingID");
  const box = reqStr(ctx, "targetNoteBook");
  const ws = ctx.kernel.ws;
  const notFound = () => kernelError(-1, "block not found", { closeTimeout: 5000 });
  const loc = ws.locate(headingId);
  if (!loc?.parent) throw notFound();
  const targetPath = optStr(ctx, "targetPath") ?? "";
  let parentId: string | null = null;
  if (targetPath !== "/") {
    const p = ws.docByPath(box, targetPath);
    if (!p) throw notFound();
    parentId = p.id;
  }
  ws.heading2Doc(headingId, box, parentId);
  return null;
}

/** The kernel's language string 20 (en_US). */
const DOC_HAS_CHILDREN = "Cannot be converted to heading when including sub-documents";

/**
 * doc2Heading: `srcID`, `targetID` and `after` (a boolean) are required (a missing one panics:
 * code 0, null data); a malformed ID or an unknown target answers empty `srcTreeBox`/`srcTreePath`
 * and changes nothing; an unknown source is "block not found"; a document with child documents is
 * refused. Answers the removed document's notebook and storage path.
 */
function doc2Heading(ctx: HandlerContext): unknown {
  const srcId = reqStr(ctx, "srcID");
  const targetId = reqStr(ctx, "targetID");
  const after = ctx.body.after;
  if (typeof after !== "boolean") throw panicReply();
  const nothing = { srcTreeBox: "", srcTreePath: "" };
  if (!isValidNodeId(srcId) || !isValidNodeId(targetId)) return nothing;
  const ws = ctx.kernel.ws;
  const src = ws.docOf(srcId);
  if (!src) throw kernelError(-1, "block not found", { closeTimeout: 5000 });
  if (ws.childDocs(src.box, src.id).length > 0) {
    throw kernelError(-1, DOC_HAS_CHILDREN, { closeTimeout: 5000 });
  }
  if (!ws.locate(targetId)) return nothing;
  const out = { srcTreeBox: src.box, srcTreePath: ws.docPath(src.id) };
  ws.doc2Heading(src.id, targetId, after);
  return out;
}

const filetreeRoutes: Record<string, Route> = {
  "/api/filetree/createDocWithMd": w((ctx) => {
    const box = notebookArg(ctx);
    const path = reqStr(ctx, "path");
    const markdown = reqStr(ctx, "markdown");
    const opts: { parentID?: string; id?: string; tags?: string } = {};
    const parentID = optStr(ctx, "parentID");
    if (parentID) opts.parentID = parentID;
    const id = optStr(ctx, "id");
    if (id) opts.id = id;
    const tags = optStr(ctx, "tags");
    if (tags) opts.tags = tags;
    return ctx.kernel.ws.createDocWithMd(box, path, markdown, opts).id;
  }),
  "/api/filetree/createDoc": w((ctx) => {
    const ws = ctx.kernel.ws;
    const box = notebookArg(ctx);
    const path = reqStr(ctx, "path");
    const title = reqStr(ctx, "title");
    const md = reqStr(ctx, "md");
    ws.openBox(box);
    const parts = path.replace(/\.sy$/, "").split("/").filter(Boolean);
    const id = parts.pop() ?? "";
    if (ws.docs.has(id) || ws.isTaken(id)) throw kernelError(-1, "Duplicated filename");
    const parentId = parts.pop() ?? null;
    if (parentId && ws.docs.get(parentId)?.box !== box) throw kernelError(-1, "block not found");
    return { id: ws.createDoc(box, parentId, title, md, { id }).id };
  }),
  "/api/filetree/renameDoc": w((ctx) => {
    const box = notebookArg(ctx);
    const path = reqStr(ctx, "path");
    const d = ctx.kernel.ws.docByPath(box, path);
    const title = reqStr(ctx, "title");
    // the kernel loads the file first: an unknown path is the OS's error text
    if (!d) {
      const file = posix.join(ctx.kernel.dataDir ?? MEMORY_WORKSPACE_DIR, "data", box, path);
      throw kernelError(-1, `open ${file}: no such file or directory`);
    }
    ctx.kernel.ws.renameDoc(d.id, title);
    return null;
  }),
  "/api/filetree/renameDocByID": w((ctx) => {
    if (ctx.body.id === undefined) return null;
    const id = reqId(ctx);
    const title = reqStr(ctx, "title");
    docByIdOrThrow(ctx.kernel.ws, id);
    ctx.kernel.ws.renameDoc(id, title);
    return null;
  }),
  "/api/filetree/removeDoc": w((ctx) => {
    const boxId = notebookArg(ctx);
    const path = reqStr(ctx, "path");
    const box = ctx.kernel.ws.notebooks.get(boxId);
    if (!box || box.conf.closed) throw kernelError(-1, "notebook not found");
    const d = ctx.kernel.ws.docByPath(boxId, path);
    if (!d) throw kernelError(-1, "block not found");
    ctx.kernel.ws.removeDoc(d.id);
    return null;
  }),
  "/api/filetree/heading2Doc": w(heading2Doc),
  "/api/filetree/doc2Heading": w(doc2Heading),
  "/api/filetree/removeDocByID": w((ctx) => {
    const id = reqId(ctx);
    docByIdOrThrow(ctx.kernel.ws, id);
    ctx.kernel.ws.removeDoc(id);
    return null;
  }),
  "/api/filetree/moveDocs": w((ctx) => {
    const ws = ctx.kernel.ws;
    const fromPaths = reqStrArray(ctx, "fromPaths");
    const toBox = reqId(ctx, "toNotebook");
    const toPath = reqStr(ctx, "toPath");
    let parent: string | null = null;
    if (toPath !== "/") {
      const p = ws.docByPath(toBox, toPath);
      if (!p) throw kernelError(-1, "block not found", { closeTimeout: 7000 });
      parent = p.id;
    }
    for (const fp of fromPaths) {
      const d = ws.docs.get(docIdOfPath(fp));
      if (!d) throw kernelError(-1, "tree not found", { closeTimeout: 7000 });
      ws.moveDoc(d.id, toBox, parent);
    }
    return null;
  }),
  "/api/filetree/moveDocsByID": w((ctx) => {
    const ws = ctx.kernel.ws;
    const fromIDs = reqStrArray(ctx, "fromIDs");
    const toID = reqStr(ctx, "toID");
    for (const id of fromIDs) docByIdOrThrow(ws, id);
    const toDoc = ws.docs.get(toID);
    const toBox = ws.notebooks.get(toID);
    if (!toDoc && (!toBox || toBox.conf.closed)) {
      throw kernelError(-1, `can't found box or tree by id [${toID}]`, { closeTimeout: 7000 });
    }
    for (const id of fromIDs) {
      if (toDoc) ws.moveDoc(id, toDoc.box, toDoc.id);
      else ws.moveDoc(id, toID, null);
    }
    return null;
  }),
  "/api/filetree/getHPathByPath": r((ctx) => {
    const box = notebookArg(ctx);
    const path = reqStr(ctx, "path");
    if (path === "/") return "/";
    const d = ctx.kernel.ws.docByPath(box, path);
    if (!d) throw kernelError(-1, "block not found");
    return ctx.kernel.ws.hpath(d.id);
  }),
  "/api/filetree/getHPathByID": r((ctx) => {
    const loc = ctx.kernel.ws.locate(reqId(ctx));
    if (!loc) throw kernelError(-1, "tree not found");
    return ctx.kernel.ws.hpath(loc.doc.id);
  }),
  "/api/filetree/getPathByID": r((ctx) => {
    const loc = ctx.kernel.ws.locate(reqId(ctx));
    if (!loc) throw kernelError(-1, "tree not found");
    return { path: ctx.kernel.ws.docPath(loc.doc.id), notebook: loc.doc.box };
  }),
  "/api/filetree/getIDsByHPath": r((ctx) => {
    const path = optStr(ctx, "path");
    const box = optStr(ctx, "notebook");
    if (!path || !box) return null;
    return ctx.kernel.ws.docsByHPath(box, path).map((d) => d.id);
  }),
  "/api/filetree/listDocsByPath": r(listDocsByPath),
  "/api/filetree/changeSort": w((ctx) => {
    ctx.kernel.ws.changeSort(notebookArg(ctx), reqStrArray(ctx, "paths"));
    return null;
  }),
  "/api/filetree/getDoc": r(getDoc),
  "/api/filetree/duplicateDoc": w(duplicateDoc),
};

/** Notebook and file-tree routes. */
export const filetreeAndNotebookRoutes: Record<string, Route> = {
  ...notebookRoutes,
  ...filetreeRoutes,
};

/** SQL, search, system, notification, export and workspace-file endpoints (§4.6, §4.8, §4.9). */
import type { SqlValue } from "sql.js";
import { blockJsonOfRow } from "./block-json.js";
import {
  KERNEL_VERSION,
  PUSH_MSG_DEFAULT_TIMEOUT_MS,
  SEARCH_CONTENT_MAX_CHARS,
  SEARCH_DEFAULT_PAGE_SIZE,
} from "./constants.js";
import { kernelError } from "./errors.js";
import { normalizeWorkspacePath } from "./file-store.js";
import { parseJsonObjectBody } from "./go-json.js";
import {
  field,
  type HandlerContext,
  panicReply,
  RawReply,
  type Route,
  reqId,
} from "./handler-kit.js";
import { workspaceAbs } from "./handlers-asset.js";
import { parseMultipart } from "./multipart.js";
import { escapeHtml, renderKramdown } from "./render.js";
import { applyDefaultLimit, countStatements } from "./sql-index.js";

const r = (handler: Route["handler"], body: Route["body"] = "json", write = false): Route => ({
  handler,
  auth: true,
  body,
  write,
});

/** The statement with its string literals emptied, so keywords are found only outside them. */
function stmtWithoutStrings(stmt: string): string {
  return stmt.replace(/'(?:[^']|'')*'/g, "''");
}

function sql(ctx: HandlerContext): unknown {
  const stmt = field(ctx, "stmt", "String") as string;
  const mode = typeof ctx.body.mode === "string" ? ctx.body.mode : "";
  // the kernel's messages (kernel-probes sql.limits-and-errors); `[mode]` is literal there
  if (mode !== "" && mode !== "readonly" && mode !== "multiple")
    throw kernelError(-1, "unknown [mode]");
  if (mode !== "multiple" && countStatements(stmt) > 1) {
    throw kernelError(-1, "SQL statement is not single");
  }
  if (mode === "readonly" && !/^\s*(select|with|explain)\b/i.test(stmt)) {
    throw kernelError(-1, "SQL statement is not a read-only query");
  }
  // SiYuan 3.7.3's SQL rewriter panics re-printing `LIKE … ESCAPE` ("sql.BinaryExpr.String():
  // invalid op ESCAPE", recovered): the answer is code 0 with no rows, whatever matched
  if (/\bescape\s+'/i.test(stmtWithoutStrings(stmt))) return null;
  try {
    return ctx.kernel.sql.query(applyDefaultLimit(stmt));
  } catch (e) {
    throw kernelError(1, e instanceof Error ? e.message : String(e));
  }
}

const TYPE_KEYS: Record<string, string> = {
  document: "d",
  heading: "h",
  list: "l",
  listItem: "i",
  codeBlock: "c",
  mathBlock: "m",
  table: "t",
  blockquote: "b",
  superBlock: "s",
  paragraph: "p",
  htmlBlock: "html",
  embedBlock: "query_embed",
  databaseBlock: "av",
  audioBlock: "audio",
  videoBlock: "video",
  iframeBlock: "iframe",
  widgetBlock: "widget",
  callout: "callout",
};
/** The block types a search covers by default (`Conf.Search.TypeFilter()` of a fresh workspace). */
export const DEFAULT_SEARCH_TYPES: ReadonlySet<string> = new Set([
  "d",
  "h",
  "c",
  "m",
  "t",
  "p",
  "html",
  "query_embed",
  "av",
  "audio",
  "video",
  "iframe",
  "widget",
  "callout",
]);

/** fullTextSearchBlock, keyword method (0) over the SQL index (so it lags like the kernel's). */
function fullTextSearchBlock(ctx: HandlerContext): unknown {
  const query = typeof ctx.body.query === "string" ? ctx.body.query : "";
  const method = typeof ctx.body.method === "number" ? ctx.body.method : 0;
  if (method !== 0)
    throw kernelError(-1, `search method [${method}] is not supported by the sandbox`);
  let types = DEFAULT_SEARCH_TYPES;
  if (ctx.body.types && typeof ctx.body.types === "object") {
    types = new Set(
      Object.entries(ctx.body.types as Record<string, unknown>)
        .filter(([, v]) => v === true)
        .map(([k]) => TYPE_KEYS[k] ?? k),
    );
  }
  const page = typeof ctx.body.page === "number" && ctx.body.page > 0 ? ctx.body.page : 1;
  const pageSize =
    typeof ctx.body.pageSize === "number" && ctx.body.pageSize > 0
      ? ctx.body.pageSize
      : SEARCH_DEFAULT_PAGE_SIZE;
  const paths = Array.isArray(ctx.body.paths)
    ? (ctx.body.paths as unknown[]).filter((p) => typeof p === "string")
    : [];
  const keywords = query.split(/\s+/).filter(Boolean);
  if (keywords.length === 0)
    return { blocks: [], matchedBlockCount: 0, matchedRootCount: 0, pageCount: 0, docMode: false };
  const where: string[] = [];
  const params: SqlValue[] = [];
  for (const k of keywords) {
    where.push(
      "(content LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\' OR alias LIKE ? ESCAPE '\\' OR memo LIKE ? ESCAPE '\\' OR tag LIKE ? ESCAPE '\\')",
    );
    const like = `%${k.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    params.push(like, like, like, like, like);
  }
  const typeList = [...types];
  where.push(`type IN (${typeList.map(() => "?").join(",")})`);
  params.push(...typeList);
  if (paths.length > 0) {
    where.push(`(${paths.map(() => "(box || path) LIKE ?").join(" OR ")})`);
    for (const p of paths) params.push(`${String(p).replace(/\.sy$/, "")}%`);
  }
  const orderBy = typeof ctx.body.orderBy === "number" ? ctx.body.orderBy : 0;
  const order =
    orderBy === 1
      ? "created ASC"
      : orderBy === 2
        ? "created DESC"
        : orderBy === 3
          ? "updated ASC"
          : orderBy === 4
            ? "updated DESC"
            : "sort ASC, updated DESC";
  const rows = ctx.kernel.sql.select(
    `SELECT * FROM blocks WHERE ${where.join(" AND ")} ORDER BY ${order}`,
    params,
  );
  const matchedRootCount = new Set(rows.map((x) => x.root_id)).size;
  const pageRows = rows.slice((page - 1) * pageSize, page * pageSize);
  const mark = (s: string): string => {
    let out = escapeHtml(s);
    for (const k of keywords) {
      const ek = escapeHtml(k).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      out = out.replace(new RegExp(ek, "gi"), (m) => `<mark>${m}</mark>`);
    }
    return out.slice(0, SEARCH_CONTENT_MAX_CHARS);
  };
  const blocks = pageRows.map((x) => {
    const b = blockJsonOfRow(x);
    return {
      ...b,
      content: mark(b.content),
      created: String(x["created"] ?? ""),
      updated: String(x["updated"] ?? ""),
    };
  });
  return {
    blocks,
    matchedBlockCount: rows.length,
    matchedRootCount,
    pageCount: Math.ceil(rows.length / pageSize),
    docMode: false,
  };
}

function exportMdContent(ctx: HandlerContext): unknown {
  const id = reqId(ctx);
  const ws = ctx.kernel.ws;
  const doc = ws.docOf(id) ?? ws.locate(id)?.doc;
  // an unknown document is no error: SiYuan 3.7.3 answers code 0 with empty strings
  if (!doc) return { hPath: "", content: "" };
  const a = doc.root.attrs;
  // `addTitle` defaults to the workspace's export setting, on in a new workspace
  const addTitle = ctx.body.addTitle !== false;
  const title = addTitle ? `# ${a.title ?? ""}\n\n` : "";
  const body = renderKramdown(doc.root, { withIal: false, refsAsText: true });
  const yfm = ctx.body.yfm !== false;
  const iso = (ts: string): string =>
    `${ts.slice(0, 4)}-${ts.slice(4, 6)}-${ts.slice(6, 8)}T${ts.slice(8, 10)}:${ts.slice(10, 12)}:${ts.slice(12, 14)}Z`;
  const tags = (a.tags ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  const front = yfm
    ? `---\ntitle: ${a.title ?? ""}\ndate: ${iso(doc.id.slice(0, 14))}\nlastmod: ${iso(a.updated ?? doc.id.slice(0, 14))}\n${
        tags.length > 0
          ? `tags:\n${tags.map((t) => `  - '${t.replace(/'/g, "''")}'\n`).join("")}`
          : ""
      }---\n\n`
    : "";
  return { hPath: ws.hpath(doc.id), content: `${front}${title}${body}\n` };
}

function pushMsg(ctx: HandlerContext): unknown {
  const msg = field(ctx, "msg", "String") as string;
  const timeout =
    typeof ctx.body.timeout === "number" ? ctx.body.timeout : PUSH_MSG_DEFAULT_TIMEOUT_MS;
  const id = ctx.kernel.ids.shortId();
  ctx.kernel.messages.push({ id, msg, timeout, error: ctx.path.endsWith("pushErrMsg") });
  return { id };
}

/** The toast the kernel shows when sync is started by hand but not enabled (its language 124). */
export const SYNC_NOT_ENABLED_MSG = "Please enable sync in Settings - Cloud first";

/**
 * `/api/sync/performSync` (`kernel/api/sync.go`, not yet in the contract's tables): the answer is
 * `data: null` whatever happens; the outcome reaches only the user, as a toast. The sandbox has no
 * cloud, so sync is never enabled: the kernel then pushes a 5-second toast saying so, except for
 * the mobile app's automatic `mobileSwitch` sync, which returns silently without a signed-in user.
 */
function performSync(ctx: HandlerContext): unknown {
  if (ctx.body.mobileSwitch === true) return null;
  const id = ctx.kernel.ids.shortId();
  ctx.kernel.messages.push({ id, msg: SYNC_NOT_ENABLED_MSG, timeout: 5000, error: false });
  return null;
}

const MIME: Record<string, string> = {
  json: "application/json",
  txt: "text/plain; charset=utf-8",
  md: "text/markdown; charset=utf-8",
  html: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  svg: "image/svg+xml",
  sy: "application/octet-stream",
};

const fileError = (code: number, msg: string): RawReply =>
  new RawReply(
    202,
    { "content-type": "application/json; charset=utf-8" },
    JSON.stringify({ code, msg, data: null }),
  );

function filePath(_ctx: HandlerContext, raw: unknown): string {
  if (typeof raw !== "string") throw panicReply();
  const p = normalizeWorkspacePath(raw);
  if (p === null) throw kernelError(403, "permission denied");
  return p;
}

function getFile(ctx: HandlerContext): unknown {
  const { detail } = parseJsonObjectBody(ctx.rawBody.toString("utf8"));
  if (detail !== null) return fileError(-1, `Parses request [${ctx.path}] failed: ${detail}`);
  if (typeof ctx.body.path !== "string") return fileError(-1, "Field [path] is required");
  const p = normalizeWorkspacePath(ctx.body.path);
  if (p === null) return fileError(403, "permission denied");
  const kind = ctx.kernel.files.kind(p);
  if (kind === null) return fileError(404, "file does not exist");
  if (kind === "dir") return fileError(409, "path is a directory");
  const ext = p.split(".").pop()?.toLowerCase() ?? "";
  return new RawReply(
    200,
    { "content-type": MIME[ext] ?? "application/octet-stream" },
    ctx.kernel.files.read(p),
  );
}

function putFile(ctx: HandlerContext): unknown {
  const ct = String(ctx.headers["content-type"] ?? "");
  const parts = parseMultipart(ctx.rawBody, ct);
  if (!parts) throw kernelError(-1, "request Content-Type isn't multipart/form-data");
  const field = (n: string): string | undefined =>
    parts.find((x) => x.name === n && x.filename === undefined)?.data.toString("utf8");
  const rawPath = field("path") ?? "";
  if (rawPath.trim() === "") throw kernelError(400, "path must not be empty");
  const p = normalizeWorkspacePath(rawPath);
  if (p === null) throw kernelError(403, "permission denied");
  const name = p.split("/").pop() ?? "";
  if (/[\\:*?"<>|]/.test(name))
    throw kernelError(
      400,
      "invalid file path, please check https://github.com/siyuan-note/siyuan/issues/14658",
    );
  const files = ctx.kernel.files;
  if (field("isDir") === "true") {
    files.mkdir(p);
    return null;
  }
  if (files.kind(p) === "dir") throw kernelError(400, "path is a directory");
  const file =
    parts.find((x) => x.name === "file" && x.filename !== undefined) ??
    parts.find((x) => x.name === "file");
  if (!file) throw kernelError(400, "Field [file] must not be empty");
  const modTime = Number(field("modTime") ?? "");
  files.write(p, file.data, Number.isFinite(modTime) && modTime > 0 ? modTime : Date.now());
  return null;
}

function readDir(ctx: HandlerContext): unknown {
  const p = filePath(ctx, ctx.body.path);
  const kind = ctx.kernel.files.kind(p);
  if (kind === null) throw kernelError(404, "path does not exist");
  if (kind === "file") throw kernelError(409, "path is not a directory");
  return ctx.kernel.files.list(p);
}

function removeFile(ctx: HandlerContext): unknown {
  const p = filePath(ctx, ctx.body.path);
  if (ctx.kernel.files.kind(p) === null) throw kernelError(404, "path does not exist");
  if (p === "/") throw kernelError(403, "permission denied");
  ctx.kernel.files.remove(p);
  return null;
}

function renameFile(ctx: HandlerContext): unknown {
  const from = filePath(ctx, ctx.body.path);
  const to = filePath(ctx, ctx.body.newPath);
  const files = ctx.kernel.files;
  if (files.kind(from) === null) throw kernelError(404, "Field [path]: path does not exist");
  if (files.kind(to) !== null) throw kernelError(409, "Field [newPath]: path already exists");
  if (to.startsWith(`${from}/`))
    throw kernelError(409, "Field [newPath]: cannot rename a directory into its own subdirectory");
  files.rename(from, to);
  return null;
}

const pub = (handler: Route["handler"]): Route => ({
  handler,
  auth: false,
  body: "none",
  write: false,
});

/** Remaining routes. */
export const miscRoutes: Record<string, Route> = {
  "/api/query/sql": r(sql),
  "/api/sqlite/flushTransaction": r(async (ctx) => {
    await ctx.kernel.flush();
    return null;
  }, "tolerant"),
  "/api/search/fullTextSearchBlock": r(fullTextSearchBlock),
  "/api/system/version": pub(() => KERNEL_VERSION),
  "/api/system/currentTime": pub((ctx) => ctx.kernel.ids.clock.now()),
  // the handler reads no body (SiYuan 3.7.3, kernel-probes template.render.workspace)
  "/api/system/getWorkspaceInfo": r(
    (ctx) => ({ workspaceDir: workspaceAbs(ctx.kernel, ""), siyuanVer: KERNEL_VERSION }),
    "none",
  ),
  "/api/system/bootProgress": pub(() => ({
    progress: 100,
    details: `v${KERNEL_VERSION} Finishing boot...`,
  })),
  "/api/notification/pushMsg": r(pushMsg),
  "/api/notification/pushErrMsg": r(pushMsg),
  "/api/sync/performSync": r(performSync),
  "/api/export/exportMdContent": r(exportMdContent),
  "/api/file/getFile": r(getFile, "tolerant"),
  "/api/file/putFile": r(putFile, "raw", true),
  "/api/file/readDir": r(readDir),
  "/api/file/removeFile": r(removeFile, "json", true),
  "/api/file/renameFile": r(renameFile, "json", true),
};

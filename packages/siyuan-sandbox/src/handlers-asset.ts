/**
 * Assets and resource export (contract §4.8, §4.9): `/api/asset/upload`, `/api/export/exportResources`,
 * and the GET routes `/assets/*` and `/export/*` that serve stored bytes with Range support.
 * Asset names follow the kernel's `util.FilterUploadFileName`, `util.AssetName` and the upload
 * loop of `model.Upload`, quirks included (a write failure stops the loop; `skipIfDuplicated`
 * stops it too after the first reused file).
 */
import { createHash, randomBytes } from "node:crypto";
import { posix } from "node:path";
import type { Block } from "./block.js";
import { dateParts, isValidNodeId } from "./clock.js";
import { ASSET_NAME_MAX_BYTES } from "./constants.js";
import { kernelError } from "./errors.js";
import { normalizeWorkspacePath } from "./file-store.js";
import { type HandlerContext, panicReply, RawReply, type Route } from "./handler-kit.js";
import type { Kernel } from "./kernel.js";
import { parseMultipart } from "./multipart.js";
import { createZip } from "./zip.js";

/** Where the sandbox says its workspace is, in messages that quote absolute paths (in-memory mode). */
export const MEMORY_WORKSPACE_DIR = "/siyuan/workspace";

/** The absolute path the kernel would print for a workspace path. */
export function workspaceAbs(kernel: Kernel, wsPath: string): string {
  return posix.join(kernel.dataDir ?? MEMORY_WORKSPACE_DIR, wsPath);
}

/** Go's `path.Ext` as SiYuan's `util.Ext` uses it ("." alone gives ""). */
export function goExt(name: string): string {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const i = base.lastIndexOf(".");
  if (i < 0) return "";
  const ext = base.slice(i);
  return ext === "." ? "" : ext;
}

/** `util.FilterFileName`: path and shell characters become `_`, invisible ones go, trimmed, no final dot. */
export function filterFileName(name: string): string {
  const out = [...name.replace(/[\\/:*?"'<>|]/g, "_")]
    .filter((ch) => !isInvisible(ch.codePointAt(0) ?? 0))
    .join("")
    .trim();
  return out.endsWith(".") ? out.slice(0, -1) : out;
}

/** `util.RemoveInvalid`: control characters (but tab, newline, CR) and zero-width/bidi marks. */
function isInvisible(c: number): boolean {
  return (
    (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) ||
    (c >= 0x7f && c <= 0x9f) ||
    (c >= 0x200b && c <= 0x200f) ||
    (c >= 0x2028 && c <= 0x202e) ||
    c === 0xfeff
  );
}

/** `util.TruncateLenFileName`: at most 189 bytes including the extension (whole characters). */
export function truncateLenFileName(name: string): string {
  const ext = goExt(name);
  const max = ASSET_NAME_MAX_BYTES - Buffer.byteLength(ext);
  let bytes = 0;
  let out = "";
  for (const ch of name) {
    bytes += Buffer.byteLength(ch);
    if (bytes > max) return out + ext;
    out += ch;
  }
  return out;
}

/** `util.FilterUploadFileName`. */
export function filterUploadFileName(name: string): string {
  return truncateLenFileName(filterFileName(name).replace(/[~[\]()!`&{}=#%$;]/g, ""));
}

/** `util.LastID`: the last 22 characters of the name without its extension. */
function lastId(name: string): string {
  const base = posix.basename(name);
  const stem = base.slice(0, base.length - goExt(base).length);
  return stem.length > 22 ? stem.slice(-22) : stem;
}

/** `util.AssetName(name, newID)`: `<stem>-<id><ext>`, keeping an ID the name already ends with. */
export function assetName(name: string, newId: string): string {
  const id = lastId(name);
  const ext = goExt(name);
  const stem = name.slice(0, name.length - ext.length);
  if (!isValidNodeId(id)) return `${stem}-${newId}${ext}`;
  if (!isValidNodeId(`${stem}`)) return `${stem.slice(0, stem.length - id.length - 1)}-${id}${ext}`;
  return stem + ext;
}

/** `util.RemoveID`: drops a trailing `-<nodeID>` from the stem. */
export function removeId(name: string): string {
  const ext = goExt(name);
  let stem = name.slice(0, name.length - ext.length);
  if (stem.length > 23 && isValidNodeId(stem.slice(-22))) stem = stem.slice(0, -23);
  return stem + ext;
}

/** Replaces every `from` by `to` in a block's texts and attribute values, as a byte replace would. */
function replaceInBlock(b: Block, from: string, to: string): boolean {
  let changed = false;
  const swap = (v: string): string => {
    if (!v.includes(from)) return v;
    changed = true;
    return v.replaceAll(from, to);
  };
  b.text = swap(b.text);
  b.lang = swap(b.lang);
  for (const [k, v] of Object.entries(b.attrs)) b.attrs[k] = swap(v);
  for (const c of b.children) if (replaceInBlock(c, from, to)) changed = true;
  return changed;
}

/**
 * `renameAsset` (`model.RenameAsset`): the file (and its `.sya`) renamed to
 * `AssetName(FilterUploadFileName(newName) + ext, newID)` beside it, then its old file name replaced
 * by the new one in every document of every notebook, closed ones too (a byte replace: links, text,
 * attributes), and the old path by the new one in database files. An unchanged or empty name
 * answers `newPath: ""`; a missing asset answers the new path and changes nothing
 * (kernel-probes asset.renameAsset).
 */
function renameAsset(ctx: HandlerContext): unknown {
  const { oldPath, newName: rawName } = ctx.body;
  if (typeof oldPath !== "string" || typeof rawName !== "string") throw panicReply();
  const oldClean = oldPath.split("?")[0] as string;
  const filtered = filterUploadFileName(rawName.trim());
  if (posix.basename(oldClean) === filtered || filtered === "") return { newPath: "" };
  const newName = assetName(filtered + goExt(oldClean), ctx.kernel.ids.newId());
  const newPath = posix.join(posix.dirname(oldClean), newName);
  const files = ctx.kernel.files;
  const from = `/data/${oldClean}`;
  if (files.kind(from) !== "file") return { newPath };
  files.rename(from, `/data/${newPath}`);
  if (files.kind(`/data/${oldPath}.sya`) === "file")
    files.rename(`/data/${oldPath}.sya`, `/data/${newPath}.sya`);
  const oldName = posix.basename(oldPath);
  const ws = ctx.kernel.ws;
  for (const doc of ws.docs.values()) {
    if (replaceInBlock(doc.root, oldName, newName)) ws.touchDoc(doc.id);
  }
  if (files.kind("/data/storage/av") === "dir") {
    for (const e of files.list("/data/storage/av")) {
      if (!/^\d{14}-[a-z0-9]{7}\.json$/.test(e.name)) continue;
      const p = `/data/storage/av/${e.name}`;
      const text = files.read(p).toString("utf8");
      if (text.includes(oldPath))
        files.write(
          p,
          Buffer.from(text.replaceAll(oldPath, newPath), "utf8"),
          ctx.kernel.ids.clock.now(),
        );
    }
  }
  return { newPath };
}

/** Per-kernel state of this module: the kernel's asset hash cache. */
const assetHashes = new WeakMap<Kernel, Map<string, string>>();
function hashCache(kernel: Kernel): Map<string, string> {
  let m = assetHashes.get(kernel);
  if (!m) {
    m = new Map();
    assetHashes.set(kernel, m);
  }
  return m;
}

const r = (handler: Route["handler"], body: Route["body"], write: boolean): Route => ({
  handler,
  auth: true,
  body,
  write,
});

function upload(ctx: HandlerContext): unknown {
  const { kernel } = ctx;
  const files = kernel.files;
  const parts = parseMultipart(ctx.rawBody, String(ctx.headers["content-type"] ?? ""));
  if (!parts) throw kernelError(-1, "request Content-Type isn't multipart/form-data");
  const value = (n: string): string | undefined =>
    parts.find((x) => x.name === n && x.filename === undefined)?.data.toString("utf8");

  let assetsDir = "/data/assets";
  const id = value("id");
  if (id !== undefined) {
    const loc = kernel.ws.locate(id);
    if (!loc) throw kernelError(-1, "Block not found");
    const docDir = posix.dirname(`/data/${loc.doc.box}${kernel.ws.docPath(loc.doc.id)}`);
    const boxAssets = `/data/${loc.doc.box}/assets`;
    assetsDir =
      files.kind(`${docDir}/assets`) === "dir"
        ? `${docDir}/assets`
        : files.kind(boxAssets) === "dir"
          ? boxAssets
          : "/data/assets";
  }
  let rel = "assets";
  const dirField = value("assetsDirPath");
  if (dirField !== undefined) {
    rel = dirField;
    const p = normalizeWorkspacePath(`data/${dirField}`);
    if (p === null) {
      throw kernelError(
        -1,
        `Path [${posix.normalize(posix.join(kernel.dataDir ?? MEMORY_WORKSPACE_DIR, "data", dirField))}] is not in workspace`,
      );
    }
    assetsDir = p;
  }
  const dirKind = files.kind(assetsDir);
  if (dirKind === "file")
    throw kernelError(-1, `mkdir ${workspaceAbs(kernel, assetsDir)}: not a directory`);
  if (dirKind === null) files.mkdir(assetsDir);

  const skipIfDuplicated = value("skipIfDuplicated") === "true";
  const cache = hashCache(kernel);
  let errFiles: string[] | null = null;
  const succMap: Record<string, string> = {};
  let msg = "";
  for (const file of parts.filter((x) => x.name === "file[]" && x.filename !== undefined)) {
    const baseName = file.filename ?? "";
    let last = lastId(baseName);
    if (!isValidNodeId(last)) last = "";
    let fName = filterUploadFileName(baseName);
    const ext = goExt(fName);
    fName = fName.slice(0, fName.length - ext.length) + ext.toLowerCase();

    let hash =
      file.data.length < 1
        ? `random_1_${randomBytes(6).toString("hex")}`
        : createHash("sha256").update(file.data).digest("hex");
    let existing = cache.get(hash);
    // the cache forgets assets whose file is gone
    if (
      existing !== undefined &&
      files.kind(normalizeWorkspacePath(`data/${existing}`) ?? "") !== "file"
    ) {
      cache.delete(hash);
      existing = undefined;
    }
    if (existing !== undefined) {
      const original = removeId(posix.basename(existing));
      if (fName.toLowerCase() !== original.toLowerCase())
        hash = `random_2_${randomBytes(6).toString("hex")}`;
    }
    if (existing !== undefined && !hash.startsWith("random_")) {
      succMap[baseName] = existing.replace(/^\//, "");
      continue;
    }
    if (skipIfDuplicated) {
      const stem = fName.slice(0, fName.length - ext.length);
      const fileLast = lastId(fName);
      const match = files
        .list(assetsDir)
        .filter((e) => !e.isDir)
        .map((e) => e.name)
        .sort()
        .find((n) =>
          last !== "" && last !== fileLast
            ? n.endsWith(`${last}${ext}`)
            : n.startsWith(stem) && n.endsWith(ext),
        );
      if (match !== undefined) {
        succMap[baseName] = posix.join(rel, match).replace(/^\//, "");
        break; // the kernel's loop stops here: later files are not uploaded
      }
    }
    fName = assetName(fName, last || kernel.ws.newId());
    const writePath = `${assetsDir}/${fName}`;
    if (files.kind(writePath) === "dir") {
      errFiles = [...(errFiles ?? []), fName];
      msg = `open ${workspaceAbs(kernel, writePath)}: is a directory`;
      break; // the kernel's loop stops at the first failure; code stays 0
    }
    files.write(writePath, Buffer.from(file.data), kernel.ids.clock.now());
    const p = posix.join(rel, fName).replace(/^\//, "");
    succMap[baseName] = p;
    cache.set(hash, p);
  }
  if (msg !== "") throw kernelError(0, msg, { errFiles, succMap });
  return { errFiles, succMap };
}

const pad = (n: number): string => String(n).padStart(2, "0");

function exportResources(ctx: HandlerContext): unknown {
  const { kernel } = ctx;
  const files = kernel.files;
  let name = "";
  if (ctx.body.name !== undefined && ctx.body.name !== null) {
    if (typeof ctx.body.name !== "string") throw panicReply();
    name = truncateLenFileName(ctx.body.name);
  }
  if (name === "") {
    const [y, mo, da, h, mi, s] = dateParts(kernel.ids.clock.now(), kernel.ids.utc);
    name = `export-${y}-${pad(mo)}-${pad(da)}_${pad(h)}-${pad(mi)}-${pad(s)}`;
  }
  const paths = ctx.body.paths;
  if (paths === undefined || paths === null) throw kernelError(1, "[paths] is required", "");
  if (!Array.isArray(paths) || !paths.every((p) => typeof p === "string")) throw panicReply();
  // the archive and its top folder are named by the sanitised base name (model.ExportResources)
  let base = filterFileName(posix.basename(name));
  if (base === "" || base === "." || base === "..") base = "resources";
  const zipPath = `/temp/export/${randomBytes(16).toString("hex")}-${base}.zip`;
  // basename → entries under it (same basenames overwrite, as copies into one folder do)
  const byBase = new Map<string, Array<{ rel: string; data?: Buffer }>>();
  for (const raw of paths as string[]) {
    const p = normalizeWorkspacePath(raw);
    if (p === null) throw kernelError(1, `resource path [${raw}] is not in workspace`);
    const kind = files.kind(p);
    const base = posix.basename(p);
    if (kind === null) {
      throw kernelError(
        1,
        `Export failed: lstat ${workspaceAbs(kernel, p)}: no such file or directory`,
        { closeTimeout: 7000 },
      );
    }
    if (kind === "file") {
      byBase.set(base, [{ rel: base, data: files.read(p) }]);
      continue;
    }
    const items: Array<{ rel: string; data?: Buffer }> = [{ rel: `${base}/` }];
    const walk = (dir: string, relDir: string): void => {
      for (const e of files.list(dir)) {
        if (e.isDir) {
          items.push({ rel: `${relDir}/${e.name}/` });
          walk(`${dir}/${e.name}`, `${relDir}/${e.name}`);
        } else items.push({ rel: `${relDir}/${e.name}`, data: files.read(`${dir}/${e.name}`) });
      }
    };
    walk(p, base);
    byBase.set(base, items);
  }
  const now = kernel.ids.clock.now();
  const entries = [{ name: `${base}/`, mtimeMs: now }];
  for (const items of byBase.values()) {
    for (const it of items) {
      entries.push({
        name: `${base}/${it.rel}`,
        mtimeMs: now,
        ...(it.data ? { data: it.data } : {}),
      });
    }
  }
  files.write(zipPath, createZip(entries), now);
  return { path: zipPath.slice(1) };
}

const MIME: Record<string, string> = {
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".svg": "image/svg+xml",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
  ".mp3": "audio/mpeg",
  ".mp4": "video/mp4",
};

const plain = (status: number, text = ""): RawReply =>
  new RawReply(status, { "content-type": "text/plain; charset=utf-8" }, text);

/**
 * Serves one stored file as Go's `http.ServeFile` does for a single range: `Accept-Ranges`,
 * `Last-Modified`, 206 with `Content-Range`, 416 for an unsatisfiable range. A multi-range request
 * gets the whole file (Go would answer multipart/byteranges).
 */
export function serveStoredFile(ctx: HandlerContext, wsPath: string): RawReply {
  const files = ctx.kernel.files;
  // the kernel answers 404 with no body (kernel-probes asset.upload, export.exportResources)
  if (files.kind(wsPath) !== "file") return plain(404);
  const data = files.read(wsPath);
  const size = data.length;
  const headers: Record<string, string> = {
    "content-type": MIME[goExt(wsPath).toLowerCase()] ?? "application/octet-stream",
    "accept-ranges": "bytes",
  };
  const mtime = files.list(posix.dirname(wsPath)).find((e) => e.name === posix.basename(wsPath));
  if (mtime) headers["last-modified"] = new Date(mtime.updated * 1000).toUTCString();
  const range = ctx.headers.range;
  const m = typeof range === "string" ? /^bytes=(\d*)-(\d*)$/.exec(range.trim()) : null;
  if (typeof range === "string" && range.startsWith("bytes=") && m) {
    let start: number;
    let end: number;
    if (m[1] === "" && m[2] === "") return plain(416, "invalid range");
    if (m[1] === "") {
      const n = Number(m[2]);
      start = Math.max(0, size - n);
      end = size - 1;
    } else {
      start = Number(m[1]);
      end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
    }
    if (start >= size || start > end || (m[1] === "" && Number(m[2]) === 0)) {
      return new RawReply(
        416,
        { "content-type": "text/plain; charset=utf-8", "content-range": `bytes */${size}` },
        "invalid range: failed to overlap",
      );
    }
    return new RawReply(
      206,
      {
        ...headers,
        "content-range": `bytes ${start}-${end}/${size}`,
        "content-length": String(end - start + 1),
      },
      data.subarray(start, end + 1),
    );
  }
  return new RawReply(200, { ...headers, "content-length": String(size) }, data);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** `GET /assets/*`: an asset under a notebook (any `assets/` folder in it), else under `data/assets/`. */
function serveAsset(ctx: HandlerContext): unknown {
  const rest = safeDecode(ctx.path.slice("/assets".length));
  if (rest === "/" || rest === "") return plain(403);
  const rel = posix.normalize(`/assets${rest}`);
  if (!rel.startsWith("/assets/")) return plain(403);
  const files = ctx.kernel.files;
  // GetAssetAbsPath: first any path under a notebook ending with assets/…, then data/assets/…
  const find = (dir: string): string | null => {
    if (files.kind(dir) !== "dir") return null;
    for (const e of files.list(dir)) {
      if (e.name.startsWith(".")) continue;
      const p = `${dir}/${e.name}`;
      if (!e.isDir && p.endsWith(rel)) return p;
      if (e.isDir) {
        const hit = find(p);
        if (hit) return hit;
      }
    }
    return null;
  };
  for (const box of ctx.kernel.ws.notebooks.keys()) {
    const hit = find(`/data/${box}`);
    if (hit) return serveStoredFile(ctx, hit);
  }
  return serveStoredFile(ctx, `/data${rel}`);
}

/** `GET /export/*`: files under `temp/export/` (auth required, as since kernel issue 12213). */
function serveExport(ctx: HandlerContext): unknown {
  const rest = safeDecode(ctx.path.slice("/export/".length));
  const p = normalizeWorkspacePath(`temp/export/${rest}`);
  if (p === null || !p.startsWith("/temp/export/")) return plain(404, "404 page not found");
  const reply = serveStoredFile(ctx, p);
  if (reply.status === 200 || reply.status === 206) {
    reply.headers["content-disposition"] =
      `attachment; filename=${encodeURIComponent(posix.basename(p))}`;
  }
  return reply;
}

const getRoute = (handler: Route["handler"]): Route => ({
  handler,
  auth: true,
  body: "none",
  write: false,
  methods: ["GET", "HEAD"],
});

/** Exact-path routes of this module. */
export const assetRoutes: Record<string, Route> = {
  "/api/asset/upload": r(upload, "raw", true),
  "/api/asset/renameAsset": r(renameAsset, "json", true),
  "/api/export/exportResources": r(exportResources, "json", false),
};

/** Prefix routes of this module (GET): the path must start with the key. */
export const assetPrefixRoutes: Record<string, Route> = {
  "/assets/": getRoute(serveAsset),
  "/export/": getRoute(serveExport),
};

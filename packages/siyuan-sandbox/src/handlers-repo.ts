/**
 * The data repo's snapshots (`/api/repo/*`, kernel-probes repo.*), as SiYuan 3.7.3 answers them.
 * A fresh workspace has no data repo key (`conf.repo.key` null) and every call answers code -1
 * with `Conf.Language(26)`; only the test control `setRepoKey` gives it one (the product never
 * does: decision D-321), which, like `initRepoKey`, adds an "[Init] Init local data repo"
 * snapshot (the real kernel a moment later, the sandbox at once). A snapshot indexes every file
 * under `data/`: each notebook's `.siyuan/conf.json` and `sort.json`, each document's `.sy`, and
 * the file store's other files. `createSnapshot` makes none when the files equal the latest
 * snapshot's, and answers `data: null` either way.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, posix } from "node:path";
import { dateParts } from "./clock.js";
import { kernelError } from "./errors.js";
import { type HandlerContext, panicReply, type Route } from "./handler-kit.js";
import { goExt, workspaceAbs } from "./handlers-asset.js";
import type { Kernel } from "./kernel.js";
import { toSy } from "./persist.js";

/** `Conf.Language(26)` in English. */
export const REPO_KEY_MISSING =
  "Please initialize the data repo key first in [Settings - Account & Sync - Data repo key]";
/** `Conf.Language(140)`: createSnapshot's failure prefix. */
const CREATE_FAILED = "Failed to create data snapshot: ";
/** `Conf.Language(142)`. */
const INPUT_EMPTY = "Input can not be empty";
/** The memo of the snapshot `initRepoKey` adds. */
const INIT_MEMO = "[Init] Init local data repo";
/** The sandbox's device ID in snapshots (SiYuan's `conf.system.id` is 32 hex digits). */
const SYSTEM_ID = createHash("md5").update("sandbox").digest("hex");
/** Snapshots a page (`repo.GetIndexLogs(page, 32)`). */
export const REPO_SNAPSHOTS_PAGE_SIZE = 32;

interface RepoFile {
  readonly path: string;
  readonly fileID: string;
  readonly size: number;
  readonly updated: number;
  /** A document's title, else the file's name; "" (a `.sy` without one) is left out of diffs. */
  readonly title: string;
}

interface RepoIndex {
  readonly id: string;
  readonly memo: string;
  readonly created: number;
  readonly files: ReadonlyMap<string, RepoFile>;
}

interface RepoState {
  key: string | null;
  /** Oldest first. */
  readonly indexes: RepoIndex[];
}

const states = new WeakMap<Kernel, RepoState>();

/** Where a sandbox with a data directory keeps its repo (a restart keeps key and snapshots). */
const repoFile = (dataDir: string) => join(dataDir, "repo", "sandbox-repo.json");

interface SavedRepo {
  key: string | null;
  indexes: Array<{ id: string; memo: string; created: number; files: RepoFile[] }>;
}

function state(kernel: Kernel): RepoState {
  let s = states.get(kernel);
  if (!s) {
    s = { key: null, indexes: [] };
    if (kernel.dataDir && existsSync(repoFile(kernel.dataDir))) {
      const saved = JSON.parse(readFileSync(repoFile(kernel.dataDir), "utf8")) as SavedRepo;
      s.key = saved.key;
      for (const ix of saved.indexes) {
        s.indexes.push({ ...ix, files: new Map(ix.files.map((f) => [f.path, f])) });
      }
    }
    states.set(kernel, s);
  }
  return s;
}

function save(kernel: Kernel, s: RepoState): void {
  if (!kernel.dataDir) return;
  const saved: SavedRepo = {
    key: s.key,
    indexes: s.indexes.map((ix) => ({ ...ix, files: [...ix.files.values()] })),
  };
  mkdirSync(join(kernel.dataDir, "repo"), { recursive: true });
  writeFileSync(repoFile(kernel.dataDir), JSON.stringify(saved));
}

/** `conf.repo.key` as `getConf` answers it: base64, or null while unset. */
export function repoKeyOf(kernel: Kernel): string | null {
  return state(kernel).key;
}

/** Gives the workspace a data repo key and its "[Init]" snapshot (tests only; like initRepoKey). */
export function setRepoKey(kernel: Kernel): void {
  const s = state(kernel);
  if (s.key !== null) return;
  s.key = randomBytes(32).toString("base64");
  index(kernel, INIT_MEMO);
  save(kernel, s);
}

const sha1 = (data: string | Buffer) => createHash("sha1").update(data).digest("hex");

/** Every file under `data/` as the repo would index it now, by `data/`-relative path. */
function dataFiles(kernel: Kernel, previous: RepoIndex | undefined): Map<string, RepoFile> {
  const ws = kernel.ws;
  const now = kernel.ids.clock.now();
  const out = new Map<string, RepoFile>();
  const add = (path: string, content: string | Buffer, title: string) => {
    const fileID = sha1(`${path}\n${sha1(content)}`);
    const was = previous?.files.get(path);
    out.set(path, {
      path,
      fileID,
      size: Buffer.byteLength(content),
      updated: was && was.fileID === fileID ? was.updated : now,
      title,
    });
  };
  // every SiYuan workspace has it (empty) from its first boot; the [Init] snapshot holds it alone
  add("/.siyuan/syncignore", "", "syncignore");
  for (const box of ws.notebooks.values()) {
    add(`/${box.id}/.siyuan/conf.json`, JSON.stringify(box.conf), "conf.json");
    add(`/${box.id}/.siyuan/sort.json`, JSON.stringify(box.sortMap), "sort.json");
  }
  for (const doc of ws.docs.values()) {
    add(
      `/${doc.box}${ws.docPath(doc.id)}`,
      JSON.stringify(toSy(doc.root)),
      doc.root.attrs["title"] ?? "",
    );
  }
  const walk = (dir: string) => {
    for (const e of kernel.files.list(dir)) {
      const full = posix.join(dir, e.name);
      if (dir === "/data" && ws.notebooks.has(e.name)) continue;
      if (e.isDir) walk(full);
      else add(full.slice("/data".length), kernel.files.read(full), e.name);
    }
  };
  if (kernel.files.kind("/data") === "dir") walk("/data");
  return out;
}

/** Indexes the data with `memo`; a new snapshot only when a file differs from the latest. */
function index(kernel: Kernel, memo: string): void {
  const s = state(kernel);
  const latest = s.indexes.at(-1);
  const files = dataFiles(kernel, latest);
  if (latest && sameFiles(latest.files, files)) return;
  const created = kernel.ids.clock.now();
  const id = sha1(`${memo}\n${created}\n${[...files.values()].map((f) => f.fileID).join(",")}`);
  s.indexes.push({ id, memo, created, files });
  save(kernel, s);
}

function sameFiles(a: ReadonlyMap<string, RepoFile>, b: ReadonlyMap<string, RepoFile>): boolean {
  if (a.size !== b.size) return false;
  for (const [path, f] of a) if (b.get(path)?.fileID !== f.fileID) return false;
  return true;
}

/** `humanize.BytesCustomCeil(size, 2)`: a size as SiYuan shows it (snapshots, asset search rows). */
export function hSize(size: number): string {
  if (size < 1000) return `${size} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let v = size;
  let u = -1;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${Math.ceil(v * 100) / 100} ${units[u]}`;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** `2006-01-02 15:04:05` in the kernel's zone. */
function dateTime(kernel: Kernel, ms: number): string {
  const [y, mo, d, h, mi, sec] = dateParts(ms, kernel.ids.utc);
  return `${y}-${pad(mo)}-${pad(d)} ${pad(h)}:${pad(mi)}:${pad(sec)}`;
}

/** `statTypesByPath`: extension counts ("NoExt" for none), most first. */
function typesCount(files: ReadonlyMap<string, RepoFile>) {
  const counts: Array<{ type: string; count: number }> = [];
  for (const path of files.keys()) {
    const type = goExt(path) || "NoExt";
    const tc = counts.find((c) => c.type === type);
    if (tc) tc.count++;
    else counts.push({ type, count: 1 });
  }
  return counts.sort((a, b) => b.count - a.count);
}

function snapshotJson(kernel: Kernel, ix: RepoIndex) {
  const size = [...ix.files.values()].reduce((n, f) => n + f.size, 0);
  const os = process.platform === "win32" ? "windows" : process.platform;
  return {
    id: ix.id,
    memo: ix.memo,
    created: ix.created,
    hCreated: dateTime(kernel, ix.created),
    files: null,
    count: ix.files.size,
    size,
    hSize: hSize(size),
    // SiYuan's are the device's ID (32 hex) and host name; the product answers neither
    systemID: SYSTEM_ID,
    systemName: "sandbox",
    systemOS: os,
    tag: "",
    hTagUpdated: "",
    typesCount: typesCount(ix.files),
  };
}

/** A required argument as `BindJsonArg(key, dest, true, rejectEmpty)` reads it. */
function arg<T extends "string" | "number">(
  ctx: HandlerContext,
  key: string,
  type: T,
  rejectEmpty = false,
): T extends "string" ? string : number {
  const v = ctx.body[key];
  if (v === undefined || v === null) throw kernelError(-1, `Field [${key}] is required`);
  if (typeof v !== type) {
    throw kernelError(
      -1,
      `Field [${key}] should be of type [${type === "string" ? "String" : "Number"}]`,
    );
  }
  if (rejectEmpty && typeof v === "string" && v.trim() === "") {
    throw kernelError(-1, `Field [${key}] must not be empty`);
  }
  return (typeof v === "string" && rejectEmpty ? v.trim() : v) as T extends "string"
    ? string
    : number;
}

function requireKey(kernel: Kernel, prefix = "", data: unknown = null): RepoState {
  const s = state(kernel);
  if (s.key === null) throw kernelError(-1, `${prefix}${REPO_KEY_MISSING}`, data);
  return s;
}

/**
 * What `gulu.Str.RemoveInvisible` drops (after turning no-break spaces into spaces): every character Go's `unicode.IsPrint` refuses (controls,
 * format and zero-width characters, spaces but U+0020 and U+3000, unassigned, private use).
 */
const NOT_PRINTABLE = /[^\p{L}\p{M}\p{N}\p{P}\p{S} \u3000]/gu;

function getRepoSnapshots(ctx: HandlerContext): unknown {
  const page = Math.trunc(arg(ctx, "page", "number"));
  const s = requireKey(ctx.kernel);
  // 3.7.3 recovers from a panic on page 0 or less: code 0, data null (kernel-probes repo.snapshots)
  if (page < 1) throw panicReply();
  const newest = [...s.indexes].reverse();
  const start = (page - 1) * REPO_SNAPSHOTS_PAGE_SIZE;
  return {
    snapshots: newest
      .slice(start, start + REPO_SNAPSHOTS_PAGE_SIZE)
      .map((ix) => snapshotJson(ctx.kernel, ix)),
    pageCount: Math.ceil(newest.length / REPO_SNAPSHOTS_PAGE_SIZE),
    totalCount: newest.length,
  };
}

function createSnapshot(ctx: HandlerContext): unknown {
  const raw = arg(ctx, "memo", "string");
  const closeTimeout = { closeTimeout: 5000 };
  requireKey(ctx.kernel, CREATE_FAILED, closeTimeout);
  const memo = raw.replaceAll("\u00a0", " ").replace(NOT_PRINTABLE, "").trim();
  if (memo === "") throw kernelError(-1, `${CREATE_FAILED}${INPUT_EMPTY}`, closeTimeout);
  if (ctx.silent) return null;
  index(ctx.kernel, memo);
  return null;
}

function diffFile(f: RepoFile) {
  return {
    fileID: f.fileID,
    indexID: "",
    title: f.title,
    path: f.path,
    hSize: hSize(f.size),
    updated: f.updated,
  };
}

function diffRepoSnapshots(ctx: HandlerContext): unknown {
  const leftId = arg(ctx, "left", "string", true);
  const rightId = arg(ctx, "right", "string", true);
  const s = requireKey(ctx.kernel);
  const find = (id: string) => {
    const ix = s.indexes.find((x) => x.id === id);
    if (!ix) {
      const abs = workspaceAbs(ctx.kernel, `/repo/indexes/${id}`);
      throw kernelError(-1, `open ${abs}: no such file or directory`);
    }
    return ix;
  };
  const left = find(leftId);
  const right = find(rightId);
  const titled = (files: RepoFile[]) =>
    files
      .filter((f) => f.title !== "")
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      .map(diffFile);
  const onlyRight = [...right.files.values()].filter((f) => !left.files.has(f.path));
  const onlyLeft = [...left.files.values()].filter((f) => !right.files.has(f.path));
  const changed = [...left.files.values()].filter((f) => {
    const r = right.files.get(f.path);
    return r !== undefined && r.fileID !== f.fileID;
  });
  return {
    addsLeft: titled(onlyRight),
    left: { id: left.id, created: left.created },
    removesRight: titled(onlyLeft),
    right: { id: right.id, created: right.created },
    updatesLeft: titled(changed),
    updatesRight: titled(changed.map((f) => right.files.get(f.path) as RepoFile)),
  };
}

const r = (handler: Route["handler"], write = false): Route => ({
  handler,
  auth: true,
  body: "json",
  write,
});

/** The routes of this file. */
export const repoRoutes: Record<string, Route> = {
  "/api/repo/getRepoSnapshots": r(getRepoSnapshots),
  // `write: false`: the handler itself skips the index under the silent fault, after its checks
  "/api/repo/createSnapshot": r(createSnapshot),
  "/api/repo/diffRepoSnapshots": r(diffRepoSnapshots),
};

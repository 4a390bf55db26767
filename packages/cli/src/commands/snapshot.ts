/**
 * `sisyphus snapshot <scope> --out DIR`: the tools' `document.snapshot` written to disk, one
 * Markdown file per document at a path made from its hpath. `<scope>` is one ID: a notebook's
 * (the whole notebook) or a document's (that document and its descendants); `notebook.list` tells
 * which.
 *
 * `DIR/.sisyphus-snapshot.json` records the scope, the manifest, the cursor and which file holds
 * which document. A later run sends that cursor, so only added and changed documents are written
 * and the files of removed documents deleted. Files the record does not name are never touched: a
 * document whose path is taken by such a file gets its ID in the name instead. A recorded file
 * whose bytes are not the ones recorded (a person edited, deleted or replaced it) is not rewritten,
 * moved or deleted either: it is reported as a conflict, and the record keeps its old cursor so the
 * next run delivers that document again (`--force` replaces such files). A DIR whose record names
 * another scope is refused before any call.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { openAuthority } from "../authority.js";
import type { Resolved } from "../config.js";
import { CliError } from "../errors.js";
import { classify, EXIT } from "../exit-codes.js";
import { type Io, out, table } from "../io.js";

/** The record a snapshot keeps in its directory. */
export const SNAPSHOT_RECORD = ".sisyphus-snapshot.json";

const USAGE = "sisyphus snapshot <notebook-or-document-id> --out DIR [--docs-per-page N] [--force]";

/** `sisyphus help snapshot`. */
export const SNAPSHOT_HELP = `${USAGE}

Writes the notebook (or the document and its descendants) as Markdown files under DIR, one per
document at its path (folders for its parents, <title>.md), and records in DIR/${SNAPSHOT_RECORD}
the cursor and each file's SHA-256. A later run with the same DIR writes only added and changed
documents, moves renamed ones and deletes removed ones' files. Files it did not write are never
touched.

A file it wrote that was edited, deleted or replaced here since is left as it is and reported as a
conflict (exit 3); everything else is written, and the next run reports it again. Keep what you
need from it (a removed document's file may simply be moved away), then run again with --force.

  --out DIR            the snapshot directory (created when missing)
  --docs-per-page N    documents per read, 1 to 48 (default 32)
  --force              overwrite or delete files edited here since the last run

Exit codes: 0 done, 1 tool error or DIR holds another scope's snapshot, 2 usage, 3 conflicts (the
rest was written), 6 kernel or authority unavailable, 7 not permitted.`;
const DIGESTS = ["scopeHash", "inventoryHash", "metadataHash", "contentHash"] as const;

interface Scope {
  readonly notebook: string;
  readonly id: string | null;
}

interface SnapshotRecord {
  readonly version: 1;
  readonly scope: Scope;
  readonly manifest: Record<string, unknown>;
  readonly cursor: string;
  /** Document ID → its file, relative to DIR (`/`-separated), and the file's SHA-256. */
  readonly files: Record<string, SavedDoc>;
}

interface SavedDoc {
  readonly path: string;
  /** The manifest's `contentHash`: the SHA-256 of the file's bytes. */
  readonly contentHash: string;
}

interface PageDoc {
  readonly id: string;
  readonly hpath: string;
  readonly markdown: string;
  readonly contentHash: string;
}

type Structured = Record<string, unknown>;

/** A recorded file Sisyphus did not touch (or, with `--force`, replaced) because it changed here. */
interface Conflict {
  readonly path: string;
  readonly id: string;
  /** What is at `path`: other bytes than recorded, nothing, or a directory. */
  readonly found: "edited" | "missing" | "directory";
  /** What the run would have done: write the new content, move the file, or delete it. */
  readonly action: "update" | "move" | "delete";
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

function usage(message: string): CliError {
  return new CliError(EXIT.usage, "usage", `${message} (${USAGE})`);
}

function readRecord(dir: string): SnapshotRecord | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, SNAPSHOT_RECORD), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(
      EXIT.error,
      "io_error",
      `cannot read ${SNAPSHOT_RECORD}: ${(e as Error).message}`,
    );
  }
  try {
    const r = JSON.parse(text) as SnapshotRecord;
    if (r.version === 1 && typeof r.cursor === "string" && typeof r.files === "object") return r;
  } catch {
    // refused below
  }
  throw new CliError(
    EXIT.error,
    "snapshot_record_invalid",
    `${join(dir, SNAPSHOT_RECORD)} is not a snapshot record; remove it for a full snapshot`,
  );
}

/** One path segment a file system accepts: no separators, reserved or control characters. */
function safeSegment(title: string): string {
  const cleaned = [...title]
    .map((ch) => (ch < " " || ch === "\u007f" || '/\\:*?"<>|'.includes(ch) ? "_" : ch))
    .join("")
    .replace(/^[.\s]+|[.\s]+$/g, "")
    .slice(0, 120);
  return cleaned === "" ? "Untitled" : cleaned;
}

/** The file of a document: its hpath's segments as folders, the last one as `<title>.md`. */
export function fileFor(hpath: string, id?: string): string {
  const segments = hpath
    .split("/")
    .filter((s) => s !== "")
    .map(safeSegment);
  const last = segments.pop() ?? "Untitled";
  return [...segments, id === undefined ? `${last}.md` : `${last} (${id}).md`].join("/");
}

function writeAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** Removes a file the record names, then the folders above it that it left empty (never DIR). */
function removeFile(dir: string, rel: string): void {
  rmSync(join(dir, rel), { force: true });
  for (let d = dirname(join(dir, rel)); d.startsWith(dir + sep); d = dirname(d)) {
    try {
      rmdirSync(d);
    } catch {
      return;
    }
  }
}

/** The SHA-256 of the file at `rel`, or what stands there instead. */
function onDisk(dir: string, rel: string): string | "missing" | "directory" {
  const path = join(dir, rel);
  try {
    return statSync(path).isDirectory() ? "directory" : sha256(readFileSync(path));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "missing";
    throw new CliError(EXIT.error, "io_error", `cannot read ${path}: ${(e as Error).message}`);
  }
}

type Call = (args: Record<string, unknown>) => Promise<Structured>;

/** The scope an ID names: a notebook, else a document (with its notebook). */
async function scopeOf(call: Call, id: string): Promise<Scope> {
  const list = await call({ tool: "notebook", action: "list" });
  const notebooks = (list["notebooks"] ?? []) as { id: string }[];
  if (notebooks.some((n) => n.id === id)) return { notebook: id, id: null };
  const doc = await call({ tool: "document", action: "lookup", id });
  return { notebook: String(doc["notebook"]), id };
}

/** Every page of one snapshot; `onPage` sees each page's documents as they come. */
async function allPages(
  call: Call,
  scope: Scope,
  cursor: string | undefined,
  docsPerPage: number | undefined,
  onPage: (page: Structured) => void,
): Promise<Structured> {
  const base = {
    tool: "document",
    action: "snapshot",
    notebook: scope.notebook,
    ...(scope.id === null ? {} : { id: scope.id }),
    ...(cursor === undefined ? {} : { cursor }),
    ...(docsPerPage === undefined ? {} : { docsPerPage }),
  };
  let page = await call(base);
  onPage(page);
  while (typeof page["nextPageToken"] === "string") {
    page = await call({ ...base, pageToken: page["nextPageToken"] });
    onPage(page);
  }
  return page;
}

const LEFT = { update: "not updated", move: "not moved", delete: "not deleted" } as const;
const REPLACED = { update: "overwritten", move: "moved", delete: "deleted" } as const;

function conflictRow(words: typeof LEFT | typeof REPLACED) {
  return (c: Conflict) => [c.path, c.found, words[c.action]];
}

/** Applies one run's documents to DIR, checking each recorded file before it is replaced or removed. */
class Sync {
  readonly written: string[] = [];
  readonly removed: string[] = [];
  readonly conflicts: Conflict[] = [];
  readonly forced: Conflict[] = [];
  unchanged = 0;

  constructor(
    private readonly dir: string,
    readonly files: Record<string, SavedDoc>,
    private readonly force: boolean,
  ) {}

  /** `undefined` when the recorded file may be replaced or removed; else the conflict. */
  private check(
    id: string,
    saved: SavedDoc,
    disk: string,
    action: Conflict["action"],
  ): Conflict | undefined {
    if (disk === saved.contentHash) return undefined;
    const found = disk === "missing" || disk === "directory" ? disk : "edited";
    const conflict: Conflict = { path: saved.path, id, found, action };
    // A directory in a file's place is never replaced, even with --force.
    if (this.force && !(found === "directory" && action === "update")) {
      this.forced.push(conflict);
      return undefined;
    }
    this.conflicts.push(conflict);
    return conflict;
  }

  /** Writes an added or changed document to its file (moving it when its path changed). */
  place(d: PageDoc): void {
    const saved = this.files[d.id];
    const taken = new Set(Object.values(this.files).map((f) => f.path));
    if (saved !== undefined) taken.delete(saved.path);
    let rel = fileFor(d.hpath);
    if (taken.has(rel) || (rel !== saved?.path && existsSync(join(this.dir, rel))))
      rel = fileFor(d.hpath, d.id);
    if (saved !== undefined) {
      const disk = onDisk(this.dir, saved.path);
      if (rel === saved.path && disk === d.contentHash) {
        // Already there (written by a run that left a conflict, or the same edit made here).
        this.files[d.id] = { path: rel, contentHash: d.contentHash };
        this.unchanged += 1;
        return;
      }
      if (this.check(d.id, saved, disk, rel === saved.path ? "update" : "move") !== undefined)
        return;
      if (rel !== saved.path && disk !== "missing" && disk !== "directory")
        removeFile(this.dir, saved.path);
    }
    writeAtomic(join(this.dir, rel), d.markdown);
    this.files[d.id] = { path: rel, contentHash: d.contentHash };
    this.written.push(rel);
  }

  /** Deletes a removed document's file; one no longer there is simply forgotten. */
  remove(id: string): void {
    const saved = this.files[id];
    if (saved === undefined) return;
    const disk = onDisk(this.dir, saved.path);
    if (disk !== "missing" && disk !== "directory") {
      if (this.check(id, saved, disk, "delete") !== undefined) return;
      removeFile(this.dir, saved.path);
      this.removed.push(saved.path);
    }
    delete this.files[id];
  }
}

function parseWords(words: readonly string[]) {
  try {
    return parseArgs({
      args: [...words],
      options: {
        out: { type: "string" },
        "docs-per-page": { type: "string" },
        force: { type: "boolean" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw usage(`snapshot: ${(e as Error).message}`);
  }
}

function parse(words: readonly string[]) {
  const parsed = parseWords(words);
  const [id, ...extra] = parsed.positionals;
  if (id === undefined || extra.length > 0)
    throw usage("snapshot takes one notebook or document ID");
  if (!/^[0-9]{14}-[0-9a-z]{7}$/.test(id)) throw usage(`snapshot: "${id}" is not a SiYuan ID`);
  if (parsed.values.out === undefined) throw usage("snapshot needs --out DIR");
  const per = parsed.values["docs-per-page"];
  const docsPerPage = per === undefined ? undefined : Number(per);
  if (
    docsPerPage !== undefined &&
    !(Number.isInteger(docsPerPage) && docsPerPage >= 1 && docsPerPage <= 48)
  )
    throw usage("--docs-per-page must be a whole number from 1 to 48");
  return { id, dir: resolve(parsed.values.out), docsPerPage, force: parsed.values.force === true };
}

export async function runSnapshot(
  io: Io,
  config: Resolved,
  words: readonly string[],
  autostart: boolean,
): Promise<number> {
  const { id, dir, docsPerPage, force } = parse(words);
  const before = readRecord(dir);
  if (before !== undefined && (before.scope.id ?? before.scope.notebook) !== id) {
    throw new CliError(
      EXIT.error,
      "snapshot_other_scope",
      `${dir} holds the snapshot of ${before.scope.id ?? before.scope.notebook}, not ${id}: choose another --out`,
    );
  }
  const authority = await openAuthority(config, autostart);
  try {
    const call: Call = async ({ tool, ...args }) => {
      const r = await authority.link.call(String(tool), args, undefined, false);
      const s = (r.structuredContent ?? {}) as Structured;
      if (r.isError === true) {
        const e = (s["error"] ?? {}) as { code?: string; message?: string };
        const code = e.code ?? "internal_error";
        throw new CliError(classify(code), code, e.message ?? "the snapshot read failed");
      }
      return s;
    };
    const scope = before?.scope ?? (await scopeOf(call, id));
    const sync = new Sync(dir, { ...(before?.files ?? {}) }, force);
    const last = await allPages(call, scope, before?.cursor, docsPerPage, (page) => {
      sync.unchanged += Number(page["unchanged"] ?? 0);
      for (const d of page["documents"] as PageDoc[]) sync.place(d);
    });
    for (const gone of (last["removed"] ?? []) as string[]) sync.remove(gone);
    const manifest = last["manifest"] as Record<string, unknown>;
    const { written, removed, unchanged, conflicts, forced, files } = sync;
    // With a conflict the old cursor stays: the next run delivers the conflicted documents again
    // (their recorded digests are the old ones), and rewrites nothing that already holds its content.
    const kept = conflicts.length > 0 && before !== undefined;
    const record: SnapshotRecord = {
      version: 1,
      scope,
      manifest: kept ? before.manifest : manifest,
      cursor: kept ? before.cursor : String(last["cursor"]),
      files,
    };
    writeAtomic(join(dir, SNAPSHOT_RECORD), `${JSON.stringify(record, null, 2)}\n`);
    const exitCode = conflicts.length > 0 ? EXIT.safety : EXIT.ok;
    const result = { scope, out: dir, written, removed, unchanged, conflicts, forced, manifest };
    if (io.json) {
      out(io, JSON.stringify({ exitCode, result }));
    } else {
      out(
        io,
        `${dir}: ${String(manifest["documentCount"])} documents; wrote ${written.length}, removed ${removed.length}`,
      );
      for (const l of table(DIGESTS.map((k) => [k, String(manifest[k])]))) out(io, `  ${l}`);
      if (forced.length > 0) {
        out(io, `Replaced ${forced.length} file(s) changed here (--force):`);
        for (const l of table(forced.map(conflictRow(REPLACED)))) out(io, `  ${l}`);
      }
      if (conflicts.length > 0) {
        out(
          io,
          `Left ${conflicts.length} file(s) changed here since the last snapshot as they are:`,
        );
        for (const l of table(conflicts.map(conflictRow(LEFT)))) out(io, `  ${l}`);
        out(
          io,
          "Keep what you need from them (a removed document's file may simply be moved away), then run again with --force.",
        );
      }
    }
    return exitCode;
  } finally {
    await authority.link.close();
  }
}

/**
 * Workspace files for `/api/file/*`: in memory, or on disk under the data dir.
 * Paths are workspace-relative (`/data/storage/petal/x`) and already normalized.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, posix } from "node:path";

/** One directory entry as readDir answers it. */
export interface DirEntry {
  name: string;
  isDir: boolean;
  isSymlink: boolean;
  /** Unix seconds. */
  updated: number;
}

/** What the file API needs from storage. */
export interface FileStore {
  kind(path: string): "file" | "dir" | null;
  read(path: string): Buffer;
  write(path: string, data: Buffer, mtimeMs: number): void;
  mkdir(path: string): void;
  list(path: string): DirEntry[];
  remove(path: string): void;
  /** Moves a file or directory; the destination's parent is created. */
  rename(from: string, to: string): void;
}

/**
 * Normalizes a workspace path. Returns null when it escapes the workspace root.
 * The result starts with `/` and has no trailing slash (except the root itself).
 */
export function normalizeWorkspacePath(p: string): string | null {
  // joined to a root as the kernel does (filepath.Join), then checked to stay inside it
  const joined = posix.normalize(`/ws/${p.replace(/\\/g, "/")}`).replace(/\/$/, "");
  if (joined !== "/ws" && !joined.startsWith("/ws/")) return null;
  return joined === "/ws" ? "/" : joined.slice(3);
}

/** An in-memory file tree. */
export class MemoryFileStore implements FileStore {
  private readonly files = new Map<string, { data: Buffer; mtimeMs: number }>();
  private readonly dirs = new Map<string, number>([["/", Date.now()]]);

  kind(path: string): "file" | "dir" | null {
    if (this.files.has(path)) return "file";
    return this.dirs.has(path) ? "dir" : null;
  }
  read(path: string): Buffer {
    const f = this.files.get(path);
    if (!f) throw new Error("file does not exist");
    return f.data;
  }
  write(path: string, data: Buffer, mtimeMs: number): void {
    this.mkdir(posix.dirname(path));
    this.files.set(path, { data, mtimeMs });
  }
  mkdir(path: string): void {
    let cur = path;
    while (!this.dirs.has(cur)) {
      this.dirs.set(cur, Date.now());
      cur = posix.dirname(cur);
    }
  }
  list(path: string): DirEntry[] {
    const out: DirEntry[] = [];
    const prefix = path === "/" ? "/" : `${path}/`;
    const direct = (p: string): string | null => {
      if (!p.startsWith(prefix) || p === path) return null;
      const rest = p.slice(prefix.length);
      return rest.includes("/") || rest === "" ? null : rest;
    };
    for (const [p, t] of this.dirs) {
      const name = direct(p);
      if (name) out.push({ name, isDir: true, isSymlink: false, updated: Math.floor(t / 1000) });
    }
    for (const [p, f] of this.files) {
      const name = direct(p);
      if (name)
        out.push({ name, isDir: false, isSymlink: false, updated: Math.floor(f.mtimeMs / 1000) });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }
  rename(from: string, to: string): void {
    const moved = (p: string): string => to + p.slice(from.length);
    for (const [p, f] of [...this.files]) {
      if (p === from || p.startsWith(`${from}/`)) {
        this.files.delete(p);
        this.write(moved(p), f.data, f.mtimeMs);
      }
    }
    for (const [p, t] of [...this.dirs]) {
      if (p === from || p.startsWith(`${from}/`)) {
        this.dirs.delete(p);
        this.mkdir(moved(p));
        this.dirs.set(moved(p), t);
      }
    }
    this.mkdir(posix.dirname(to));
  }
  remove(path: string): void {
    this.files.delete(path);
    for (const p of [...this.files.keys()]) if (p.startsWith(`${path}/`)) this.files.delete(p);
    for (const p of [...this.dirs.keys()])
      if (p === path || p.startsWith(`${path}/`)) this.dirs.delete(p);
    this.dirs.set("/", this.dirs.get("/") ?? Date.now());
  }
}

/** Files on disk under a root directory (the sandbox data dir). */
export class DiskFileStore implements FileStore {
  constructor(private readonly root: string) {}
  private abs(p: string): string {
    return join(this.root, p);
  }
  kind(path: string): "file" | "dir" | null {
    const a = this.abs(path);
    if (!existsSync(a)) return null;
    return statSync(a).isDirectory() ? "dir" : "file";
  }
  read(path: string): Buffer {
    return readFileSync(this.abs(path));
  }
  write(path: string, data: Buffer, mtimeMs: number): void {
    const a = this.abs(path);
    mkdirSync(dirname(a), { recursive: true });
    writeFileSync(a, data);
    utimesSync(a, new Date(), new Date(mtimeMs));
  }
  mkdir(path: string): void {
    mkdirSync(this.abs(path), { recursive: true });
  }
  list(path: string): DirEntry[] {
    return readdirSync(this.abs(path), { withFileTypes: true }).map((e) => ({
      name: e.name,
      isDir: e.isDirectory(),
      isSymlink: e.isSymbolicLink(),
      updated: Math.floor(statSync(join(this.abs(path), e.name)).mtimeMs / 1000),
    }));
  }
  remove(path: string): void {
    rmSync(this.abs(path), { recursive: true, force: true });
  }
  rename(from: string, to: string): void {
    mkdirSync(dirname(this.abs(to)), { recursive: true });
    renameSync(this.abs(from), this.abs(to));
  }
}

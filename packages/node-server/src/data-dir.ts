/**
 * The data directory of the Node authority: an exclusive lock (one owning process per directory)
 * and `authority.json`, which tells delegating processes where the authority listens. Neither file
 * ever holds a token.
 */
import { mkdirSync } from "node:fs";
import { open, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DATA_FILES } from "./constants.js";
import { NodeServerError } from "./errors.js";
import { syncDirectory } from "./stores/append-log.js";

/** Contents of `authority.json`. */
export interface AuthorityRecord {
  /** The authority's MCP endpoint, e.g. `http://127.0.0.1:36806/mcp`. */
  url: string;
  pid: number;
  /** Random per-process epoch; a change means a different authority instance. */
  epoch: string;
  kind: "node-http" | "kernel";
}

interface LockRecord {
  pid: number;
  url?: string;
  startedAt: number;
}

/** Whether a process with this pid is alive (EPERM counts as alive). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A held data-directory lock. */
export interface DataDirLock {
  readonly file: string;
  /** Records the URL the holder serves, so a second process can say where the holder is. */
  announce(url: string): Promise<void>;
  release(): Promise<void>;
}

/**
 * Takes the exclusive lock of `dataDir` (creating the directory). A lock left by a dead process is
 * stale and replaced.
 * @throws NodeServerError `data_dir_locked` with `holderPid` (and `holderUrl`) when a live process holds it.
 */
export async function acquireDataDirLock(dataDir: string): Promise<DataDirLock> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, DATA_FILES.lock);
  const record: LockRecord = { pid: process.pid, startedAt: Date.now() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const h = await open(file, "wx", 0o600);
      await h.writeFile(JSON.stringify(record));
      await h.sync();
      await h.close();
      return {
        file,
        async announce(url: string) {
          record.url = url;
          await writeFile(file, JSON.stringify(record), { mode: 0o600 });
        },
        async release() {
          const current = await readLock(file);
          if (current?.pid === process.pid) await rm(file, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const holder = await readLock(file);
    if (holder !== undefined && pidAlive(holder.pid)) {
      throw new NodeServerError(
        "data_dir_locked",
        `The data directory ${dataDir} is owned by process ${holder.pid}${holder.url ? ` (serving ${holder.url})` : ""}; stop it or use another --data-dir`,
        { holderPid: holder.pid, ...(holder.url ? { holderUrl: holder.url } : {}) },
      );
    }
    // Stale (dead holder, or a half-written lock): move it aside atomically, then retry.
    await rename(file, `${file}.stale-${process.pid}`).catch(() => undefined);
    await rm(`${file}.stale-${process.pid}`, { force: true });
  }
  throw new NodeServerError("data_dir_locked", `Cannot take the lock of ${dataDir}`, {});
}

async function readLock(file: string): Promise<LockRecord | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as LockRecord;
    return typeof parsed.pid === "number" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Writes `authority.json` atomically (temp + fsync + rename). */
export async function writeAuthorityRecord(
  dataDir: string,
  record: AuthorityRecord,
): Promise<void> {
  const file = join(dataDir, DATA_FILES.authority);
  const tmp = `${file}.tmp`;
  const h = await open(tmp, "w", 0o600);
  await h.writeFile(JSON.stringify(record));
  await h.sync();
  await h.close();
  await rename(tmp, file);
  syncDirectory(dataDir);
}

/** Removes `authority.json` if it still names this process. */
export async function removeAuthorityRecord(dataDir: string): Promise<void> {
  const current = await readAuthorityRecord(dataDir);
  if (current?.pid === process.pid) await rm(join(dataDir, DATA_FILES.authority), { force: true });
}

/** Reads `authority.json`; `undefined` when absent or unreadable. */
export async function readAuthorityRecord(dataDir: string): Promise<AuthorityRecord | undefined> {
  try {
    const parsed = JSON.parse(
      await readFile(join(dataDir, DATA_FILES.authority), "utf8"),
    ) as AuthorityRecord;
    if (typeof parsed.url !== "string" || typeof parsed.epoch !== "string") return undefined;
    return parsed;
  } catch {
    return undefined;
  }
}

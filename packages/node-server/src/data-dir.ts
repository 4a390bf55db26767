/**
 * The data directory of the Node authority: its permissions (directory 0700, files 0600), an
 * exclusive lock (one owning process per directory) and `authority.json`, which tells delegating
 * processes where the authority listens. Neither file ever holds a token.
 */

import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { link, open, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  type AuthorityRecord,
  pidAlive,
  readAuthorityRecord,
  readPrivateFile,
} from "./authority-record.js";
import { DATA_FILES } from "./constants.js";
import { NodeServerError } from "./errors.js";
import { DATA_FILE_MODE, syncDirectory } from "./stores/append-log.js";

/** Mode of the data directory: owner only. */
export const DATA_DIR_MODE = 0o700;

/** Names a Sisyphus data directory holds: its files, their temporaries, and the demo workspace. */
const OWN_ENTRY =
  /^(?:(?:authority\.(?:lock|json|credential|log)|ledger\.wal|reservations\.wal)(?:\.tmp(?:-\d+)?|\.stale-\d+)?|demo-workspace)$/;

/** What {@link secureDataDir} found and did. */
export type DataDirPermissions =
  /** Created now with mode 0700. */
  | { readonly status: "created" }
  /** Already private (no group/other bits), or a platform without POSIX modes. */
  | { readonly status: "private" }
  /** Was wider and holds only Sisyphus entries: tightened to 0700. */
  | { readonly status: "tightened"; readonly previousMode: number }
  /**
   * Wider, but left as it is: it holds entries that are not Sisyphus's (`foreign`, at most 3
   * named), or another user owns it. The data files themselves are still 0600.
   */
  | {
      readonly status: "left_wider";
      readonly mode: number;
      readonly foreign: readonly string[];
      readonly otherOwner: boolean;
    };

function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

/**
 * Creates the data directory with mode 0700, or checks an existing one: group/other permission
 * bits are removed when the directory evidently belongs to Sisyphus (this user owns it and it holds
 * nothing but Sisyphus's own entries); a shared directory (`~`, `/tmp`, a project folder) is never
 * changed, only reported, since tightening it would break its other users. Data files already in
 * it are made 0600 either way (they are ours by name).
 * @throws the file system's error when the directory cannot be created or read.
 */
export function secureDataDir(dataDir: string): DataDirPermissions {
  let existed = true;
  try {
    statSync(dataDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    existed = false;
  }
  mkdirSync(dataDir, { recursive: true, mode: DATA_DIR_MODE });
  if (process.platform === "win32") return { status: existed ? "private" : "created" };
  if (!existed) {
    chmodSync(dataDir, DATA_DIR_MODE);
    return { status: "created" };
  }
  for (const name of Object.values(DATA_FILES)) {
    const file = join(dataDir, name);
    try {
      if ((modeOf(file) & 0o077) !== 0) chmodSync(file, DATA_FILE_MODE);
    } catch {
      // Absent (the usual case), or not ours to change: opening it fails closed later.
    }
  }
  const stat = statSync(dataDir);
  const mode = stat.mode & 0o777;
  if ((mode & 0o077) === 0) return { status: "private" };
  const otherOwner = typeof process.getuid === "function" && stat.uid !== process.getuid();
  const foreign = readdirSync(dataDir).filter((name) => !OWN_ENTRY.test(name));
  if (!otherOwner && foreign.length === 0) {
    chmodSync(dataDir, DATA_DIR_MODE);
    return { status: "tightened", previousMode: mode };
  }
  return { status: "left_wider", mode, foreign: foreign.slice(0, 3), otherOwner };
}

/** The start-up line (stderr) for a {@link secureDataDir} result; `undefined` when there is nothing to say. */
export function describeDataDirPermissions(
  dataDir: string,
  result: DataDirPermissions,
): string | undefined {
  const octal = (m: number) => `0${m.toString(8).padStart(3, "0")}`;
  if (result.status === "tightened") {
    return `sisyphus-server: the data directory ${dataDir} was open to other users (mode ${octal(result.previousMode)}); tightened it to 0700.`;
  }
  if (result.status === "left_wider") {
    const why = result.otherOwner
      ? "it belongs to another user"
      : `it also holds entries that are not Sisyphus's (${result.foreign.join(", ")})`;
    return `sisyphus-server: WARNING: the data directory ${dataDir} is open to other users (mode ${octal(result.mode)}) and was left as it is because ${why}. Its files are 0600, but other users can see their names and sizes${(result.mode & 0o022) !== 0 ? " and can delete or replace them" : ""}: use a directory only you can open (chmod 700) or another --data-dir.`;
  }
  return undefined;
}

interface LockRecord {
  pid: number;
  url?: string;
  startedAt: number;
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
  mkdirSync(dataDir, { recursive: true, mode: DATA_DIR_MODE });
  const file = join(dataDir, DATA_FILES.lock);
  const record: LockRecord = { pid: process.pid, startedAt: Date.now() };
  // The lock file appears complete or not at all: its content is written to a private temporary
  // file first and then hard-linked into place (`link` fails if the lock exists). A reader can
  // therefore never see a half-written lock and mistake a starting holder for a dead one.
  const writeComplete = async (path: string) => {
    const h = await open(path, "w", DATA_FILE_MODE);
    await h.chmod(DATA_FILE_MODE);
    await h.writeFile(JSON.stringify(record));
    await h.sync();
    await h.close();
  };
  // Unique per call, so concurrent starters in one process never share it.
  const tmp = `${file}.tmp-${process.pid}${Math.floor(Math.random() * 1e9)}`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeComplete(tmp);
      await link(tmp, file);
      syncDirectory(dataDir);
      return {
        file,
        async announce(url: string) {
          record.url = url;
          await writeComplete(tmp);
          await rename(tmp, file); // atomic replace: readers see the old or the new record
        },
        async release() {
          const current = await readLock(file);
          if (current?.pid === process.pid) await rm(file, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    } finally {
      await rm(tmp, { force: true });
    }
    const holder = await readLock(file);
    if (holder !== undefined && pidAlive(holder.pid)) {
      throw new NodeServerError(
        "data_dir_locked",
        `The data directory ${dataDir} is owned by process ${holder.pid}${holder.url ? ` (serving ${holder.url})` : ""}; stop it or use another --data-dir`,
        { holderPid: holder.pid, ...(holder.url ? { holderUrl: holder.url } : {}) },
      );
    }
    // Stale (dead holder, or unreadable): move it aside, then retry — but only if it is still the
    // lock judged stale, so a lock another starter took meanwhile is not moved away.
    const again = await readLock(file);
    if (again?.pid !== holder?.pid || again?.startedAt !== holder?.startedAt) continue;
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
  const h = await open(tmp, "w", DATA_FILE_MODE);
  await h.chmod(DATA_FILE_MODE);
  await h.writeFile(JSON.stringify(record));
  await h.sync();
  await h.close();
  await rename(tmp, file);
  syncDirectory(dataDir);
}

/** Removes `authority.json` if it still names this process. */
export async function removeAuthorityRecord(dataDir: string): Promise<void> {
  const current = await readAuthorityRecord(dataDir);
  if (typeof current === "object" && current.pid === process.pid)
    await rm(join(dataDir, DATA_FILES.authority), { force: true });
}

/**
 * Creates this authority's local credential: a random bearer token in `authority.credential`
 * (0600, written like `authority.json`), valid only while this process runs. Processes of the same
 * OS user read it to delegate without being given the configured token; other users cannot read it.
 * @returns the credential.
 */
export async function writeLocalCredential(dataDir: string): Promise<string> {
  const credential = randomBytes(32).toString("base64url");
  const file = join(dataDir, DATA_FILES.credential);
  const tmp = `${file}.tmp`;
  await rm(tmp, { force: true });
  const h = await open(tmp, "wx", DATA_FILE_MODE);
  await h.chmod(DATA_FILE_MODE);
  await h.writeFile(credential);
  await h.sync();
  await h.close();
  await rename(tmp, file);
  syncDirectory(dataDir);
  return credential;
}

/** Removes `authority.credential` if it still holds `credential` (a newer authority may have replaced it). */
export async function removeLocalCredential(dataDir: string, credential: string): Promise<void> {
  const file = join(dataDir, DATA_FILES.credential);
  if ((await readPrivateFile(file)) === credential) await rm(file, { force: true });
}

export {
  type AuthorityRecord,
  pidAlive,
  readAuthorityRecord,
  readLocalCredential,
  readPrivateFile,
} from "./authority-record.js";

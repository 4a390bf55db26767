/**
 * What a delegating process reads of a data directory to find its authority, and nothing else:
 * `authority.json`, `authority.credential` (each only when it is a private file of this user) and
 * whether the process it names lives. Apart from `data-dir.ts` (the authority's side: lock, writes,
 * permissions) so a delegating start loads neither `node:crypto` nor `node:fs/promises`: its reads
 * use `node:fs`'s callbacks (decision D-269).
 */
import { lstat, readFile, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { DATA_FILES } from "./constants.js";

const lstatAsync = promisify(lstat);
const readFileAsync = promisify(readFile);

/** Contents of `authority.json`. */
export interface AuthorityRecord {
  /** The authority's MCP endpoint, e.g. `http://127.0.0.1:36806/mcp`. */
  url: string;
  pid: number;
  /** Random per-process epoch; a change means a different authority instance. */
  epoch: string;
  kind: "node-http" | "kernel";
  /**
   * The SiYuan kernel the authority writes to (without user info); a stdio process configured for
   * another kernel does not delegate to it.
   */
  siyuanUrl?: string;
  /**
   * Set by an authority that stops after this many idle milliseconds (a background authority
   * started by a stdio process): its delegating processes send heartbeats more often than that.
   */
  idleStopMs?: number;
}

/**
 * Whether a process with this pid is alive (EPERM counts as alive). A zombie is not: a process
 * that exited but was not yet reaped (its parent is gone and the container's init does not reap,
 * as in many containers) still answers signal 0, yet serves nothing and holds no lock.
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  return !isZombie(pid);
}

/** Linux: the state field of `/proc/<pid>/stat` is `Z` (or `X`, dead). Elsewhere: never. */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return false;
  }
  // "pid (comm) S ...": comm may hold spaces and parentheses, so the state follows the last ")".
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state === "Z" || state === "X";
}

/**
 * Reads `authority.json`; `undefined` when absent or unreadable, `"untrusted"` when it is not a
 * private file of this user (see {@link readPrivateFile}): a delegating process must not send its
 * calls wherever another user's file points.
 */
export async function readAuthorityRecord(
  dataDir: string,
): Promise<AuthorityRecord | "untrusted" | undefined> {
  const text = await readPrivateFile(join(dataDir, DATA_FILES.authority));
  if (text === undefined || text === "untrusted") return text;
  try {
    const parsed = JSON.parse(text) as AuthorityRecord;
    if (typeof parsed.url !== "string" || typeof parsed.epoch !== "string") return undefined;
    return parsed;
  } catch {
    return undefined;
  }
}

/**
 * Reads a file only if it is a private regular file of this user: not a symbolic link, owned by
 * this process's user, no group or other permission bits (POSIX; on Windows only the first).
 * `undefined` when absent, `"untrusted"` otherwise.
 */
export async function readPrivateFile(file: string): Promise<string | "untrusted" | undefined> {
  try {
    const st = await lstatAsync(file);
    if (!st.isFile()) return "untrusted";
    if (process.platform !== "win32") {
      if (typeof process.getuid === "function" && st.uid !== process.getuid()) return "untrusted";
      if ((st.mode & 0o077) !== 0) return "untrusted";
    }
    return await readFileAsync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return "untrusted";
  }
}

/** Reads the running authority's local credential; `undefined` when absent, `"untrusted"` as {@link readPrivateFile}. */
export async function readLocalCredential(
  dataDir: string,
): Promise<string | "untrusted" | undefined> {
  const text = await readPrivateFile(join(dataDir, DATA_FILES.credential));
  return text === "" ? undefined : text;
}

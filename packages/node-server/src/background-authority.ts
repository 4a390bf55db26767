/**
 * A stdio process's way to a write authority when none serves its data directory: it starts the
 * Node HTTP authority (`sisyphus-server --http --background`) as a detached process on that
 * directory, on loopback, and waits until its `authority.json` appears. Later stdio processes find
 * the same one through `authority.json`. This is not a fallback: the background process is the one
 * authority of the directory (it holds the directory's lock; a second start loses the lock and
 * exits), and a stdio process never writes on its own. Its end is here too: the idle stop
 * ({@link IdleStop}) that stops it once no stdio process keeps it awake.
 */
import { closeSync, fstatSync, ftruncateSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  AUTHORITY_START_POLL_MS,
  AUTHORITY_START_TIMEOUT_MS,
  BACKGROUND_LOG_MAX_BYTES,
  DATA_FILES,
} from "./constants.js";
import { type AuthorityRecord, pidAlive, readAuthorityRecord, secureDataDir } from "./data-dir.js";
import { DATA_FILE_MODE } from "./stores/append-log.js";

/** What a stdio process needs to start its data directory's authority. */
export interface BackgroundAuthorityOptions {
  /**
   * The executable's launcher script (`dist/bin.cjs`), run with this process's Node; a function is
   * asked only when an authority is started (resolving the installed package costs a CLI call).
   */
  readonly launcher: string | (() => string);
  readonly dataDir: string;
  readonly siyuanUrl: string;
  /** Passed in the child's environment (`SIYUAN_TOKEN`), never on its command line. */
  readonly siyuanToken?: string;
  readonly strict: boolean;
  /** The authority's `--idle-stop-ms`. */
  readonly idleStopMs: number;
  readonly timeoutMs?: number;
}

/** The outcome of {@link startBackgroundAuthority}. */
export type BackgroundStart =
  | { readonly ok: true; readonly record: AuthorityRecord }
  | { readonly ok: false; readonly message: string };

/** Settings a background authority takes from its command line, not from the inherited environment. */
const OWN_ENV = [
  "SIYUAN_URL",
  "SIYUAN_TOKEN",
  "SISYPHUS_AUTH_TOKEN",
  "SISYPHUS_HTTP_PORT",
  "SISYPHUS_DATA_DIR",
  "SISYPHUS_AUTHORITY_URL",
  "SISYPHUS_IDLE_STOP_MS",
  "SISYPHUS_ALLOWED_ORIGINS",
];

/** Opens `authority.log` for appending (0600), emptied first when it grew past its limit. */
function openLog(dataDir: string): number {
  const fd = openSync(join(dataDir, DATA_FILES.backgroundLog), "a", DATA_FILE_MODE);
  if (fstatSync(fd).size > BACKGROUND_LOG_MAX_BYTES) ftruncateSync(fd, 0);
  return fd;
}

function logTail(dataDir: string): string {
  try {
    const lines = readFileSync(join(dataDir, DATA_FILES.backgroundLog), "utf8").trim().split("\n");
    return lines.slice(-3).join(" | ");
  } catch {
    return "";
  }
}

/** Whether a live process holds the data directory's lock (it is starting, serving or stopping). */
function lockHeld(dataDir: string): boolean {
  try {
    const { pid } = JSON.parse(readFileSync(join(dataDir, DATA_FILES.lock), "utf8")) as {
      pid?: unknown;
    };
    return typeof pid === "number" && pidAlive(pid);
  } catch {
    return false;
  }
}

/**
 * Starts the background authority and resolves with its `authority.json` once it serves (or with
 * another process's, when that one won the directory's lock first). `staleEpoch`: the epoch of a
 * dead authority whose record is still on disk, which does not count as served.
 * Never throws.
 */
export async function startBackgroundAuthority(
  options: BackgroundAuthorityOptions,
  staleEpoch?: string,
): Promise<BackgroundStart> {
  const { dataDir } = options;
  let exit: { code: number | null } | undefined;
  try {
    secureDataDir(dataDir);
    const log = openLog(dataDir);
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of OWN_ENV) delete env[name];
    if (options.siyuanToken !== undefined) env["SIYUAN_TOKEN"] = options.siyuanToken;
    const args = [
      typeof options.launcher === "string" ? options.launcher : options.launcher(),
      "--http",
      "--background",
      "--data-dir",
      dataDir,
      "--siyuan-url",
      options.siyuanUrl,
      "--idle-stop-ms",
      String(options.idleStopMs),
      ...(options.strict ? [] : ["--no-strict"]),
    ];
    try {
      // node:child_process loads only to start one: a delegating call that finds one running
      // (every CLI call but the first) does not pay for it.
      const { spawn } = process.getBuiltinModule(
        "node:child_process",
      ) as typeof import("node:child_process");
      const child = spawn(process.execPath, args, {
        cwd: dataDir,
        env,
        detached: true,
        stdio: ["ignore", log, log],
        windowsHide: true,
      });
      child.once("exit", (code) => {
        exit = { code };
      });
      child.once("error", () => {
        exit = { code: null };
      });
      child.unref();
    } finally {
      closeSync(log);
    }
  } catch (e) {
    return {
      ok: false,
      message: `cannot start a write authority (${e instanceof Error ? e.message : String(e)})`,
    };
  }
  const deadline = Date.now() + (options.timeoutMs ?? AUTHORITY_START_TIMEOUT_MS);
  while (Date.now() < deadline) {
    const record = await readAuthorityRecord(dataDir);
    if (typeof record === "object" && record.epoch !== staleEpoch && pidAlive(record.pid)) {
      return { ok: true, record };
    }
    // Our child exited: fine if it lost the lock to another starter that is still coming up.
    if (exit !== undefined && !lockHeld(dataDir)) {
      const tail = logTail(dataDir);
      return {
        ok: false,
        message: `the write authority it started exited (code ${exit.code})${tail ? `: ${tail}` : ""}`,
      };
    }
    await new Promise((r) => setTimeout(r, AUTHORITY_START_POLL_MS));
  }
  return {
    ok: false,
    message: `the write authority it started did not serve within ${options.timeoutMs ?? AUTHORITY_START_TIMEOUT_MS} ms (see ${join(dataDir, DATA_FILES.backgroundLog)})`,
  };
}

/**
 * The idle stop of an HTTP authority (`--idle-stop-ms`; a background authority's default): once no
 * authenticated request arrived for the idle period and nothing is in flight, it stops the way
 * SIGTERM does. Delegating stdio processes keep it awake with heartbeats while they live.
 */
/** A monotonic millisecond clock. */
export type MonotonicNow = () => number;

/** Watches activity; calls `onIdle` once, when idle for `idleMs` and not `busy()`. */
export class IdleStop {
  readonly #idleMs: number;
  readonly #busy: () => boolean;
  readonly #onIdle: () => void;
  readonly #now: MonotonicNow;
  #last: number;
  #timer: NodeJS.Timeout | undefined;
  #fired = false;

  constructor(
    idleMs: number,
    busy: () => boolean,
    onIdle: () => void,
    now: MonotonicNow = () => performance.now(),
  ) {
    this.#idleMs = idleMs;
    this.#busy = busy;
    this.#onIdle = onIdle;
    this.#now = now;
    this.#last = now();
  }

  /** Records activity (an authenticated request). */
  touch(): void {
    this.#last = this.#now();
  }

  /** Checks now: fires `onIdle` (once) when idle long enough and not busy. */
  check(): boolean {
    if (this.#fired) return true;
    if (this.#busy()) {
      // Work in flight counts as activity: the idle period starts when it ends.
      this.#last = this.#now();
      return false;
    }
    if (this.#now() - this.#last < this.#idleMs) return false;
    this.#fired = true;
    this.stop();
    this.#onIdle();
    return true;
  }

  /** Checks periodically (a quarter of the idle period, at most every 5 s); the timer never keeps the process alive. */
  start(): void {
    const every = Math.max(25, Math.min(5_000, Math.floor(this.#idleMs / 4)));
    this.#timer = setInterval(() => this.check(), every);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

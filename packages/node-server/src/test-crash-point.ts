/**
 * A test-only crash point for the reliability suite (issue 18): with `SISYPHUS_TEST_CRASH_POINT`
 * in the server process's environment, the ledger store freezes the process (SIGSTOP) at that
 * exact step of a commit, so a test can SIGKILL it there instead of racing a timer. It is read once
 * at startup from the environment, never from a request; unset (always, outside tests) the store
 * is returned unchanged.
 * - `after-executing`: right after an `executing` record is durable, before the kernel write;
 * - `before-committed`: after the write and its readback, before the `committed` record is written.
 */
import { writeSync } from "node:fs";
import type { LedgerEntry, LedgerStore } from "@sisyphus/write-safety";
import { NodeServerError } from "./errors.js";

/** The environment variable that arms a crash point (tests only). */
export const TEST_CRASH_POINT_ENV = "SISYPHUS_TEST_CRASH_POINT";

const POINTS = ["after-executing", "before-committed"] as const;
type CrashPoint = (typeof POINTS)[number];

function freeze(point: CrashPoint): void {
  writeSync(2, `sisyphus-server: test crash point ${point} reached\n`);
  process.kill(process.pid, "SIGSTOP");
}

/** `store`, stopping the process at the crash point `env` arms (if any). */
export function withTestCrashPoint(
  store: LedgerStore,
  env: NodeJS.ProcessEnv = process.env,
): LedgerStore {
  const raw = env[TEST_CRASH_POINT_ENV];
  if (raw === undefined || raw === "") return store;
  if (!(POINTS as readonly string[]).includes(raw)) {
    throw new NodeServerError(
      "config_invalid",
      `Invalid configuration: ${TEST_CRASH_POINT_ENV} must be one of ${POINTS.join(", ")}`,
      { setting: TEST_CRASH_POINT_ENV },
    );
  }
  const point = raw as CrashPoint;
  return {
    loadAll: () => store.loadAll(),
    delete: (ids) => store.delete(ids),
    async put(entry: LedgerEntry) {
      if (point === "before-committed" && entry.state === "committed") freeze(point);
      await store.put(entry);
      if (point === "after-executing" && entry.state === "executing") freeze(point);
    },
  };
}

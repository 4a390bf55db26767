/**
 * Crash points of the Node authority as a real process: spawn it with a test crash point armed
 * (`SISYPHUS_TEST_CRASH_POINT`, see node-server `src/test-crash-point.ts`), wait until it froze
 * there, and read what its data directory holds durably at that moment.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import {
  type Authority,
  type KernelAddress,
  spawnAuthority,
} from "../../../node-server/test/harness.js";

/** The steps node-server's test hook can freeze the authority at. */
export type CrashPoint = "after-executing" | "before-committed";

const WAIT_MS = 15_000;

/** An authority on `dataDir` that freezes itself (SIGSTOP) at `point`. */
export function authorityWithCrashPoint(
  kernel: KernelAddress,
  dataDir: string,
  point: CrashPoint,
): Promise<Authority> {
  return spawnAuthority({
    dataDir,
    siyuanUrl: kernel.url,
    siyuanToken: kernel.token,
    env: { SISYPHUS_TEST_CRASH_POINT: point },
  });
}

/** Waits until `auth` announced it froze at `point`. */
export async function frozenAt(auth: Authority, point: CrashPoint): Promise<void> {
  await waitFor(() => auth.stderr().includes(`test crash point ${point} reached`), {
    timeoutMs: WAIT_MS,
  });
}

/** The last durable ledger record of `requestId` in `dataDir` (replaying the WAL), if any. */
export function durableLedgerRecord(
  dataDir: string,
  requestId: string,
): Record<string, unknown> | undefined {
  let last: Record<string, unknown> | undefined;
  for (const line of walLines(join(dataDir, "ledger.wal"))) {
    const op = JSON.parse(line.slice(line.indexOf(" ") + 1)) as {
      op: string;
      entry?: Record<string, unknown>;
      ids?: string[];
    };
    if (op.op === "put" && op.entry?.["requestId"] === requestId) last = op.entry;
    if (op.op === "del" && op.ids?.includes(requestId)) last = undefined;
  }
  return last;
}

/** Every request ID `dataDir`'s reservation file holds durably. */
export function durableReservations(dataDir: string): string[] {
  return walLines(join(dataDir, "reservations.wal"));
}

function walLines(file: string): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "");
}

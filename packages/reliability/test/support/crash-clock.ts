/**
 * An in-process Node authority for clock tests: the write coordinator over the durable file stores
 * the Node server uses (`ledger.wal`, `reservations.wal` in a data directory), with a wall clock
 * and a monotonic clock the test moves by hand. `restart` closes the stores and opens them again
 * as a new process would: a new epoch, a fresh monotonic clock, the wall clock possibly stepped.
 * (`sisyphus-server` takes its clocks from the system, so a shifted clock can only be injected
 * here, in-process; the stores and the coordinator are the ones the server runs.)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seededRandomSource } from "@sisyphus/core-hash";
import { FileLedgerStore, FileReservationStore } from "@sisyphus/node-server";
import {
  type Clock,
  type CommitAnswer,
  createWriteCoordinator,
  isWriteSafetyError,
  type LedgerEntry,
  type WriteCoordinator,
} from "@sisyphus/write-safety";

/** A clock the test sets; `now()` is `t`. */
export class HandClock implements Clock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
}

/** Wall time at the first start (any fixed epoch ms). */
export const WALL_START = 1_786_543_200_000;

/** One "process" of the authority. */
export interface ClockedAuthority {
  readonly coordinator: WriteCoordinator;
  readonly wall: HandClock;
  readonly monotonic: HandClock;
  readonly ledgerStore: FileLedgerStore<LedgerEntry>;
  readonly reservationStore: FileReservationStore;
  /** Real time passes: both clocks move by `ms`. */
  elapse(ms: number): void;
  /** The wall clock steps by `ms` (either sign); the monotonic clock does not move. */
  stepWall(ms: number): void;
  close(): Promise<void>;
}

let starts = 0;

/** A temporary data directory. */
export function clockDataDir(): string {
  return mkdtempSync(join(tmpdir(), "sisyphus-clock-"));
}

/** Starts an authority on `dataDir` with its wall clock at `wallNow`. */
export async function startClocked(
  dataDir: string,
  wallNow: number,
  seed: number,
): Promise<ClockedAuthority> {
  const wall = new HandClock(wallNow);
  const monotonic = new HandClock(0);
  const ledgerStore = await FileLedgerStore.open<LedgerEntry>(join(dataDir, "ledger.wal"));
  const reservationStore = await FileReservationStore.open(join(dataDir, "reservations.wal"));
  const coordinator = await createWriteCoordinator({
    clock: wall,
    monotonic,
    random: seededRandomSource(seed),
    epoch: `clock-test-${++starts}`,
    ledgerStore,
    reservationStore,
  });
  return {
    coordinator,
    wall,
    monotonic,
    ledgerStore,
    reservationStore,
    elapse(ms) {
      wall.t += ms;
      monotonic.t += ms;
    },
    stepWall(ms) {
      wall.t += ms;
    },
    async close() {
      await coordinator.drain();
      await ledgerStore.close();
      await reservationStore.close();
    },
  };
}

/** Stops `auth` and starts it again on `dataDir`, its wall clock at `auth`'s plus `wallStepMs`. */
export async function restartClocked(
  auth: ClockedAuthority,
  dataDir: string,
  wallStepMs: number,
  seed: number,
): Promise<ClockedAuthority> {
  await auth.close();
  return startClocked(dataDir, auth.wall.t + wallStepMs, seed);
}

/** What a commit answered: its status, or the error code and reason it failed with. */
export type Outcome =
  | { status: string; replayed: boolean }
  | { code: string; reason: string | undefined };

/** Runs `commit` and reduces its answer (or typed error) to an {@link Outcome}. */
export async function outcomeOf(commit: Promise<CommitAnswer>): Promise<Outcome> {
  try {
    const answer = (await commit) as { status: string; replayed?: boolean };
    return { status: answer.status, replayed: answer.replayed === true };
  } catch (e) {
    if (!isWriteSafetyError(e)) throw e;
    const reason = (e.details as { reason?: string }).reason;
    return { code: e.code, reason };
  }
}

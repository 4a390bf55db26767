/**
 * Clock and time (issue 18): lease expiry follows a monotonic clock, so a wall-clock step neither
 * extends nor cuts a lease; the ledger's 7-day retention and the request-ID deadlines hold when the
 * wall clock steps ±1 hour across a restart; a request ID past retention is refused, never
 * re-executed. Runs the write coordinator over the Node server's durable file stores, restarted
 * in-process with stepped clocks (see support/crash-clock.ts); a fake kernel counts applications.
 */
import { AliasPool, stateHash } from "@sisyphus/core-hash";
import {
  LEASE_TTL_MS,
  LEDGER_RETENTION_MS,
  LeasePool,
  mutationPolicy,
  REQUEST_ID_FIRST_EXECUTION_TTL_MS,
} from "@sisyphus/write-safety";
import { describe, expect, it } from "vitest";
import { FakeKernel, setCall, setHooks } from "../../write-safety/src/test-support.js";
import {
  type ClockedAuthority,
  clockDataDir,
  HandClock,
  outcomeOf,
  restartClocked,
  startClocked,
  WALL_START,
} from "./support/crash-clock.js";

const HOUR = 60 * 60 * 1000;
const MINUTE = 60 * 1000;
const SEED = 18;

/** Preflights `kv.set id=value` (state precondition); the commit's arguments bound to it. */
async function leased(auth: ClockedAuthority, kernel: FakeKernel, id: string, value: string) {
  const pre = (await auth.coordinator.preflight(
    setCall(id, value),
    setHooks(kernel, id, value).probe,
  )) as { requestId: string; expectedStateHash: string };
  const call = setCall(id, value, {
    requestId: pre.requestId,
    expectedStateHash: pre.expectedStateHash,
  });
  return {
    requestId: pre.requestId,
    commit: () => auth.coordinator.commit(call, setHooks(kernel, id, value)),
  };
}

/** Preflights an additive `kv.set` (no precondition, no lease); its commit bound to the issued ID. */
async function additive(auth: ClockedAuthority, kernel: FakeKernel, id: string, value: string) {
  const policy = mutationPolicy("none");
  const pre = (await auth.coordinator.preflight(setCall(id, value, {}, policy))) as {
    requestId: string;
  };
  const call = setCall(id, value, { requestId: pre.requestId }, policy);
  return {
    requestId: pre.requestId,
    commit: (on: ClockedAuthority) => on.coordinator.commit(call, setHooks(kernel, id, value)),
  };
}

describe("lease expiry follows the monotonic clock", () => {
  it("the lease pool: a wall step of ±1 h neither extends nor cuts a lease", () => {
    for (const step of [-HOUR, HOUR]) {
      const wall = new HandClock(WALL_START);
      const monotonic = new HandClock(0);
      const pool = new LeasePool({ clock: wall, monotonic, epoch: "e", aliases: new AliasPool() });
      const digest = stateHash({ step });
      const lease = pool.issue("scope", digest);
      expect(lease.expiresAt).toBe(WALL_START + LEASE_TTL_MS);
      wall.t += step;
      monotonic.t += LEASE_TTL_MS - 1;
      expect(pool.resolve("scope", lease.credential).status).toBe("found");
      monotonic.t += 1;
      expect(pool.resolve("scope", lease.credential).status).toBe("expired");
    }
  });

  it("wall stepped back 1 h: the lease still expires 10 min after preflight and nothing is written", async () => {
    const dir = clockDataDir();
    const auth = await startClocked(dir, WALL_START, SEED);
    const kernel = new FakeKernel();
    const late = await leased(auth, kernel, "a", "late");
    const inTime = await leased(auth, kernel, "b", "in time");
    auth.stepWall(-HOUR);
    auth.elapse(LEASE_TTL_MS - 1);
    expect(await outcomeOf(inTime.commit())).toEqual({ status: "committed", replayed: false });
    auth.elapse(1);
    // The wall clock shows 50 min before the lease's expiresAt: a lease on the wall clock would
    // still resolve here, and the write would run.
    expect(await outcomeOf(late.commit())).toEqual({
      code: "preflight_lease_invalid",
      reason: "expired",
    });
    expect(kernel.writes).toBe(1);
    expect(kernel.values.has("a")).toBe(false);
    await auth.close();
  });

  it("wall stepped forward 1 h: the request-ID deadline (wall) refuses the commit honestly, nothing is written, a new preflight commits once", async () => {
    const dir = clockDataDir();
    const auth = await startClocked(dir, WALL_START, SEED);
    const kernel = new FakeKernel();
    const first = await leased(auth, kernel, "a", "v1");
    auth.stepWall(HOUR);
    auth.elapse(MINUTE);
    expect(await outcomeOf(first.commit())).toEqual({
      code: "preflight_lease_invalid",
      reason: "request_id_expired",
    });
    expect(kernel.writes).toBe(0);
    const again = await leased(auth, kernel, "a", "v1");
    expect(again.requestId).not.toBe(first.requestId);
    expect(await outcomeOf(again.commit())).toEqual({ status: "committed", replayed: false });
    expect(await outcomeOf(again.commit())).toEqual({ status: "committed", replayed: true });
    expect(kernel.writes).toBe(1);
    await auth.close();
  });
});

describe.each([
  ["back", -HOUR],
  ["forward", HOUR],
])("restart with the wall clock stepped %s 1 h", (_name, step) => {
  it("a committed request replays within 7 days − 2 h, is refused after 7 days + 2 h, and never executes again", async () => {
    const dir = clockDataDir();
    let auth = await startClocked(dir, WALL_START, SEED);
    const kernel = new FakeKernel();
    const done = await leased(auth, kernel, "doc", "v1");
    const firstIds = [done.requestId];
    expect(await outcomeOf(done.commit())).toEqual({ status: "committed", replayed: false });
    const replayOn = (on: ClockedAuthority) =>
      on.coordinator.commit(
        setCall("doc", "v1", { requestId: done.requestId, expectedStateHash: "0000" }),
        setHooks(kernel, "doc", "v1"),
      );

    auth = await restartClocked(auth, dir, step, SEED);
    expect(await outcomeOf(replayOn(auth))).toEqual({ status: "committed", replayed: true });
    auth.elapse(LEDGER_RETENTION_MS - 2 * HOUR);
    expect(await outcomeOf(replayOn(auth))).toEqual({ status: "committed", replayed: true });
    auth = await restartClocked(auth, dir, 0, SEED);
    expect(await outcomeOf(replayOn(auth))).toEqual({ status: "committed", replayed: true });
    expect(kernel.writes).toBe(1);

    auth.elapse(4 * HOUR);
    const refused = { code: "preflight_lease_invalid", reason: "request_id_expired" };
    expect(await outcomeOf(replayOn(auth))).toEqual(refused);
    auth = await restartClocked(auth, dir, 0, SEED);
    expect(await outcomeOf(replayOn(auth))).toEqual(refused);
    expect(kernel.writes).toBe(1);
    // Past retention the record is gone from the ledger file; the reservation stays forever.
    expect((await auth.ledgerStore.loadAll()).map((e) => e.requestId)).not.toContain(
      done.requestId,
    );
    expect(await auth.reservationStore.loadAll()).toContain(done.requestId);
    // Same random seed as the first process: its IDs come up again as candidates and are skipped.
    const later: string[] = [];
    for (let i = 0; i < 20; i++) later.push((await leased(auth, kernel, `n${i}`, "x")).requestId);
    for (const id of firstIds) expect(later).not.toContain(id);
    expect(await outcomeOf(replayOn(auth))).toEqual(refused);
    expect(kernel.writes).toBe(1);
    await auth.close();
  });

  it("a request ID issued before the restart never first-executes after it, before or after its deadline", async () => {
    const dir = clockDataDir();
    let auth = await startClocked(dir, WALL_START, SEED);
    const kernel = new FakeKernel();
    const pending = await additive(auth, kernel, "new", "created");
    auth = await restartClocked(auth, dir, step, SEED);
    const seen: Array<{ code?: string; reason?: string | undefined }> = [];
    for (const wait of [MINUTE, REQUEST_ID_FIRST_EXECUTION_TTL_MS, HOUR, 2 * HOUR]) {
      auth.elapse(wait);
      const outcome = await outcomeOf(pending.commit(auth));
      expect(outcome).toMatchObject({ code: "preflight_lease_invalid" });
      seen.push(outcome as { code: string; reason: string | undefined });
    }
    // Before its wall deadline the ledger names the old epoch (a step forward passes it at once);
    // after it only the reservation is left.
    expect(seen[0]?.reason).toBe(step < 0 ? "other_epoch" : "request_id_expired");
    expect(seen.at(-1)?.reason).toBe("request_id_expired");
    expect(kernel.writes).toBe(0);
    expect((await auth.ledgerStore.loadAll()).map((e) => e.requestId)).not.toContain(
      pending.requestId,
    );
    expect(await auth.reservationStore.loadAll()).toContain(pending.requestId);
    await auth.close();
  });
});

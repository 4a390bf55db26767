import { seededRandomSource, stateHash } from "@sisyphus/core-hash";
import { describe, expect, it } from "vitest";
import { REPLAY_NOTES, type StrictPreflightAnswer } from "./answers.js";
import { WriteCancellation } from "./cancellation.js";
import { LEDGER_RETENTION_MS, REQUEST_ID_FIRST_EXECUTION_TTL_MS } from "./constants.js";
import { createWriteCoordinator } from "./coordinator.js";
import { isWriteSafetyError, type WriteSafetyError } from "./errors.js";
import type { CommitHooks } from "./hooks.js";
import { type LedgerEntry, MemoryLedgerStore, RECEIPT_DIGESTS } from "./ledger.js";
import { EXTERNAL_POLICY, mutationPolicy } from "./policy.js";
import { MemoryReservationStore } from "./reservations.js";
import { FakeClock, FakeKernel, makeCoordinator, setCall, setHooks } from "./test-support.js";

async function rejection(p: Promise<unknown>): Promise<WriteSafetyError> {
  try {
    await p;
  } catch (e) {
    if (isWriteSafetyError(e)) return e;
    throw e;
  }
  throw new Error("expected a rejection");
}

async function preflightSet(
  c: Awaited<ReturnType<typeof makeCoordinator>>["coordinator"],
  k: FakeKernel,
  id: string,
  value: string,
) {
  return (await c.preflight(
    setCall(id, value),
    setHooks(k, id, value).probe,
  )) as StrictPreflightAnswer;
}

/**
 * A fresh coordinator and kernel, a strict preflight of `b1 = x`, the commit arguments it leased,
 * and `commit`, which commits them with the set hooks (`execute` in place of theirs when given).
 */
async function preflightedSet() {
  const made = await makeCoordinator();
  const k = new FakeKernel();
  const pre = await preflightSet(made.coordinator, k, "b1", "x");
  const args = { requestId: pre.requestId, expectedStateHash: pre.expectedStateHash };
  const commit = (execute?: CommitHooks["execute"], probe?: CommitHooks["probe"]) => {
    const hooks = setHooks(k, "b1", "x");
    return made.coordinator.commit(setCall("b1", "x", args), {
      ...hooks,
      ...(execute ? { execute } : {}),
      ...(probe ? { probe } : {}),
    });
  };
  return { ...made, k, pre, args, commit };
}

/** An error the transport proves it never sent (`writeDispatched: false`). */
function undispatched(message = "ECONNREFUSED"): Error {
  return Object.assign(new Error(message), { writeDispatched: false });
}

describe("WriteCoordinator strict flow", () => {
  it("preflight answers the spec shape and leases the complete digest", async () => {
    const { clock, k, pre } = await preflightedSet();
    expect(pre.validateOnly).toBe(true);
    expect(pre.writeAttempted).toBe(false);
    expect(pre.preconditionField).toBe("expectedStateHash");
    expect(pre.requestId).toMatch(/^[0-9a-f]{4,}$/);
    expect(pre.expectedStateHash).toMatch(/^[0-9a-f]{4,}$/);
    expect(pre.hashPrefixLength).toBe(pre.expectedStateHash!.length);
    expect(pre.leaseExpiresAt).toBe(clock.now() + 600_000);
    expect(pre.requestIdExpiresAt).toBe(clock.now() + REQUEST_ID_FIRST_EXECUTION_TTL_MS);
    expect(k.writes).toBe(0);
  });

  it("commits once, then replays the stored receipt without executing", async () => {
    const { k, pre, commit } = await preflightedSet();
    const first = await commit();
    expect(first).toMatchObject({
      status: "committed",
      requestId: pre.requestId,
      writeAttempted: true,
      writeSafetyGuaranteed: true,
      previousHash: pre.expectedStateHash,
      id: "b1",
    });
    expect(first).not.toHaveProperty("replayed");
    expect(first).toMatchObject({ executedNow: true });
    expect(k.writes).toBe(1);
    const again = await commit();
    expect(again).toEqual({
      ...first,
      replayed: true,
      executedNow: false,
      targetNow: "holds_result",
      replayNote: REPLAY_NOTES.holds_result,
    });
    expect(k.writes).toBe(1);
  });

  it("a replay reads the target: changed since the write, or unread when the read fails", async () => {
    const { k, commit } = await preflightedSet();
    await commit();
    k.values.set("b1", "edited by someone else");
    const changed = await commit();
    expect(changed).toMatchObject({
      replayed: true,
      executedNow: false,
      targetNow: "changed_since",
      replayNote: REPLAY_NOTES.changed_since,
    });
    expect(k.writes).toBe(1);
    const unread = await commit(undefined, async () => {
      throw new Error("kernel unreachable");
    });
    expect(unread).toMatchObject({ replayed: true, replayNote: REPLAY_NOTES.unchecked });
    expect(unread).not.toHaveProperty("targetNow");
    expect(k.writes).toBe(1);
  });

  it("same request ID with other arguments is idempotency_conflict, nothing runs", async () => {
    const { coordinator, k, args } = await preflightedSet();
    const e = await rejection(coordinator.commit(setCall("b1", "y", args), setHooks(k, "b1", "y")));
    expect(e.code).toBe("idempotency_conflict");
    expect(e.writeAttempted).toBe(false);
    expect(k.writes).toBe(0);
  });

  it("state changed after preflight: state_changed with both aliases, no write, lease consumed", async () => {
    const { coordinator, k, pre, commit } = await preflightedSet();
    k.values.set("b1", "edited elsewhere");
    const e = await rejection(commit());
    expect(e.code).toBe("state_changed");
    // The hint says what the next lines prove: the requestId is used up, a new preflight is needed.
    expect(e.hint).toMatch(/nothing was written and this requestId is used up/);
    expect(e.hint).toMatch(/run a new validateOnly preflight and commit with its new requestId/);
    expect(e.details.expectedHash).toBe(pre.expectedStateHash);
    expect(e.details.currentHash).toBe(coordinator.aliases.aliasFor(k.digest("b1")));
    expect(k.writes).toBe(0);
    k.values.delete("b1");
    const again = await rejection(commit());
    expect(again.code).toBe("preflight_lease_invalid");
    expect(again.details.reason).toBe("consumed");
    expect(again.hint).toContain("Reread the target");
    expect(k.writes).toBe(0);
  });

  it("absent request ID or credential is precondition_required; invented ones are preflight_lease_invalid", async () => {
    const { coordinator, k, pre } = await preflightedSet();
    const h = setHooks(k, "b1", "x");
    expect((await rejection(coordinator.commit(setCall("b1", "x"), h))).code).toBe(
      "precondition_required",
    );
    expect(
      (await rejection(coordinator.commit(setCall("b1", "x", { requestId: pre.requestId }), h)))
        .code,
    ).toBe("precondition_required");
    const invented = await rejection(
      coordinator.commit(
        setCall("b1", "x", { requestId: "ffff0", expectedStateHash: pre.expectedStateHash }),
        h,
      ),
    );
    expect(invented.code).toBe("preflight_lease_invalid");
    expect(invented.details).toMatchObject({
      reason: "unknown_request_id",
      preconditionField: "expectedStateHash",
    });
    expect(invented.hint).toContain(
      "run the same call with validateOnly: true and commit with the new requestId and expectedStateHash",
    );
    const fullDigest = k.digest("b1");
    const otherCredential = await rejection(
      coordinator.commit(
        setCall("b1", "x", {
          requestId: pre.requestId,
          expectedStateHash: stateHash("not leased").slice(10),
        }),
        h,
      ),
    );
    expect(otherCredential.code).toBe("preflight_lease_invalid");
    expect(otherCredential.details.reason).toBe("credential_mismatch");
    // The message says what happened and the hint that the requestId is still good.
    expect(otherCredential.message).toContain("not the one this requestId's preflight returned");
    expect(otherCredential.hint).toContain("The requestId is still good");
    expect(otherCredential.hint).toContain("its own validateOnly answer");
    // a real credential of another call (another scope) does not match this request either
    const other = await preflightSet(coordinator, k, "b2", "y");
    const borrowed = await rejection(
      coordinator.commit(
        setCall("b1", "x", {
          requestId: pre.requestId,
          expectedStateHash: other.expectedStateHash,
        }),
        h,
      ),
    );
    expect(borrowed.details.reason).toBe("credential_mismatch");
    // the complete 64-digit digest is only a lookup key: it works because a lease holds it
    const ok = await coordinator.commit(
      setCall("b1", "x", { requestId: pre.requestId, expectedStateHash: fullDigest }),
      h,
    );
    expect(ok.status).toBe("committed");
    expect(k.writes).toBe(1);
  });

  it("no_change when the readback equals the before-state", async () => {
    const { coordinator } = await makeCoordinator();
    const k = new FakeKernel();
    k.values.set("b1", "x");
    const pre = await preflightSet(coordinator, k, "b1", "x");
    const args = { requestId: pre.requestId, expectedStateHash: pre.expectedStateHash };
    const r = await coordinator.commit(setCall("b1", "x", args), setHooks(k, "b1", "x"));
    expect(r).toMatchObject({ status: "no_change" });
    expect(k.writes).toBe(1);
  });

  it("silent no-op is readback_mismatch and a replay is outcome_unknown without executing", async () => {
    const { k, commit } = await preflightedSet();
    k.silentNoop = true;
    const e = await rejection(commit());
    expect(e.code).toBe("readback_mismatch");
    expect(e.writeAttempted).toBe(true);
    expect(e.writeExecuted).toBe("unknown");
    expect(e.details.ledgerState).toBe("unknown");
    const r = await rejection(commit());
    expect(r.code).toBe("outcome_unknown");
    expect(r.details.ledgerState).toBe("unknown");
    expect(k.writes).toBe(1);
  });

  it("a failure after dispatch is outcome_unknown and is never executed again", async () => {
    const { k, commit } = await preflightedSet();
    const e = await rejection(
      commit(async () => {
        k.writes++;
        throw new Error("socket reset");
      }),
    );
    expect(e.code).toBe("outcome_unknown");
    expect(e.details.ledgerState).toBe("unknown");
    const r = await rejection(commit());
    expect(r.code).toBe("outcome_unknown");
    expect(k.writes).toBe(1);
  });

  it("a provably undispatched failure keeps the ID usable within its window", async () => {
    const { k, commit } = await preflightedSet();
    const refused = undispatched();
    const thrown = await commit(async () => {
      throw refused;
    }).catch((e: unknown) => e);
    expect(thrown).toBe(refused);
    const ok = await commit();
    expect(ok.status).toBe("committed");
    expect(k.writes).toBe(1);
  });

  it("a second write that is not dispatched is outcome_unknown, never 'nothing written'", async () => {
    const { k, commit } = await preflightedSet();
    let calls = 0;
    const port = {
      step: async () => {
        calls++;
        if (calls === 2) throw undispatched();
        k.values.set("b1", "x");
      },
    };
    const e = await rejection(
      commit(async (ctx) => {
        const w = ctx.writes(port);
        await w.step();
        await w.step();
        return {};
      }),
    );
    expect(e.code).toBe("outcome_unknown");
    expect(e.writeAttempted).toBe(true);
    expect(e.details).toMatchObject({ ledgerState: "unknown", writesStarted: 2 });
    const replay = await rejection(commit());
    expect(replay.code).toBe("outcome_unknown");
    expect(calls).toBe(2);
  });

  it("a first tracked write that is not dispatched keeps the ID usable", async () => {
    const { commit } = await preflightedSet();
    const refused = undispatched();
    const thrown = await commit(async (ctx) => {
      await ctx.writes({ step: async () => Promise.reject(refused) }).step();
      return {};
    }).catch((x: unknown) => x);
    expect(thrown).toBe(refused);
    const ok = await commit();
    expect(ok.status).toBe("committed");
  });

  it("a write still in flight when execute fails makes the outcome unknown", async () => {
    const { commit } = await preflightedSet();
    let release: () => void = () => {};
    const e = await rejection(
      commit(async (ctx) => {
        const w = ctx.writes({
          slow: () => new Promise<void>((r) => (release = r)),
          refused: async () => {
            throw undispatched();
          },
        });
        void w.slow();
        await w.refused();
        return {};
      }),
    );
    release();
    expect(e.code).toBe("outcome_unknown");
    expect(e.writeAttempted).toBe(true);
  });

  it("a tracked write started after execute settled is refused", async () => {
    const { k, commit } = await preflightedSet();
    let late: (() => Promise<unknown>) | undefined;
    await commit(async (ctx) => {
      const w = ctx.writes({ step: async () => void k.values.set("b1", "x") });
      await w.step();
      late = () => w.step();
      return {};
    });
    await expect(late?.()).rejects.toThrow(TypeError);
  });

  it("strict mode off: a failure after a dispatched write is outcome_unknown", async () => {
    const { coordinator } = await makeCoordinator({ strict: false });
    let n = 0;
    const e = await rejection(
      coordinator.commit(setCall("b1", "x", {}), {
        execute: async (ctx) => {
          const w = ctx.writes({
            step: async () => {
              n++;
              if (n === 2) throw undispatched("refused");
            },
          });
          await w.step();
          await w.step();
          return {};
        },
      }),
    );
    expect(e.code).toBe("outcome_unknown");
    expect(e.writeAttempted).toBe(true);
  });

  it("precheck runs the commit's ledger and lease checks without consuming anything", async () => {
    const { coordinator, k, pre, args, commit } = await preflightedSet();
    const code = (f: () => void) => {
      try {
        f();
        return "passed";
      } catch (e) {
        return isWriteSafetyError(e) ? e.code : String(e);
      }
    };
    expect(code(() => coordinator.precheck(setCall("b1", "x", args)))).toBe("passed");
    expect(code(() => coordinator.precheck(setCall("b1", "x", { requestId: "ffff9" })))).toBe(
      "preflight_lease_invalid",
    );
    expect(code(() => coordinator.precheck(setCall("b1", "other", args)))).toBe(
      "idempotency_conflict",
    );
    expect(code(() => coordinator.precheck(setCall("b1", "x", { requestId: pre.requestId })))).toBe(
      "precondition_required",
    );
    expect(k.writes).toBe(0);
    // Nothing was consumed: the commit still resolves the lease and executes once.
    const ok = await commit();
    expect(ok.status).toBe("committed");
    expect(code(() => coordinator.precheck(setCall("b1", "x", args)))).toBe("passed");
    expect(k.writes).toBe(1);
  });

  it("additive actions need the preflight-issued request ID but no hash", async () => {
    const { coordinator } = await makeCoordinator();
    const k = new FakeKernel();
    const call = (extra: Record<string, unknown>) =>
      setCall("new", "n", extra, mutationPolicy("none"));
    const pre = await coordinator.preflight(call({}));
    expect(pre).toMatchObject({ preconditionField: null, writeAttempted: false });
    expect(pre).not.toHaveProperty("expectedStateHash");
    const hooks = setHooks(k, "new", "n");
    const { probe: _unused, ...noProbe } = hooks;
    expect((await rejection(coordinator.commit(call({}), noProbe))).code).toBe(
      "precondition_required",
    );
    const r = await coordinator.commit(
      call({ requestId: (pre as { requestId: string }).requestId }),
      noProbe,
    );
    expect(r).toMatchObject({ status: "committed", writeSafetyGuaranteed: true });
    expect(r).not.toHaveProperty("previousHash");
    expect(k.writes).toBe(1);
    // A replay of an addition reads nothing: its probe reads where it goes, not what it made.
    let probes = 0;
    const replay = await coordinator.commit(
      call({ requestId: (pre as { requestId: string }).requestId }),
      {
        ...hooks,
        probe: async () => {
          probes++;
          return hooks.probe!();
        },
      },
    );
    expect(replay).toMatchObject({ replayed: true, replayNote: REPLAY_NOTES.unchecked });
    expect(replay).not.toHaveProperty("targetNow");
    expect(probes).toBe(0);
    expect(k.writes).toBe(1);
  });

  it("external actions refuse validateOnly and run once without a guarantee", async () => {
    const { coordinator } = await makeCoordinator();
    let runs = 0;
    const call = setCall("x", "y", {}, EXTERNAL_POLICY);
    const e = await rejection(coordinator.preflight(call));
    expect(e.code).toBe("preflight_unavailable");
    expect(e.writeAttempted).toBe(false);
    expect(runs).toBe(0);
    const r = await coordinator.commit(call, {
      execute: async () => {
        runs++;
        return { receipt: { sent: true } };
      },
    });
    expect(r).toEqual({
      sent: true,
      status: "executed",
      writeAttempted: true,
      writeExecuted: true,
      writeSafetyGuaranteed: false,
      reason: "external_side_effect",
    });
    expect(runs).toBe(1);
  });

  it("an action without a policy is refused, never run as a read", async () => {
    const { coordinator } = await makeCoordinator();
    const k = new FakeKernel();
    const call = { ...setCall("b1", "x"), policy: undefined };
    const e = await rejection(coordinator.commit(call, setHooks(k, "b1", "x")));
    expect(e.code).toBe("preflight_unavailable");
    expect(e.details.reason).toBe("no_policy");
    expect(k.writes).toBe(0);
  });

  it("strict mode off: no preflight, one attempt, writeSafetyGuaranteed false", async () => {
    const { coordinator } = await makeCoordinator({ strict: false });
    const k = new FakeKernel();
    expect(
      (
        await rejection(
          coordinator.preflight(setCall("b1", "x"), async () => ({ digest: k.digest("b1") })),
        )
      ).code,
    ).toBe("preflight_unavailable");
    const r = await coordinator.commit(setCall("b1", "x"), setHooks(k, "b1", "x"));
    expect(r).toMatchObject({
      status: "executed",
      writeSafetyGuaranteed: false,
      reason: "strict_mode_disabled",
    });
    expect(k.writes).toBe(1);
  });
});

/** A promise and the function that resolves it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Resolves once every pending promise callback and I/O turn has run. */
const settle = () => new Promise((r) => setImmediate(r));

describe("WriteCoordinator preflight: the request ID's durable writes", () => {
  it("reserve and record the ID at once, after the probe; the answer waits for both", async () => {
    const events: string[] = [];
    const reservationWritten = deferred();
    const ledgerWritten = deferred();
    const reservationStore = new (class extends MemoryReservationStore {
      override async append(id: string) {
        events.push("reserve");
        await reservationWritten.promise;
        return super.append(id);
      }
    })();
    const ledgerStore = new (class extends MemoryLedgerStore {
      override async put(entry: LedgerEntry) {
        events.push(`record ${entry.state}`);
        await ledgerWritten.promise;
        return super.put(entry);
      }
    })();
    const { coordinator } = await makeCoordinator({ reservationStore, ledgerStore });
    const k = new FakeKernel();
    let answered = false;
    const pending = coordinator
      .preflight(setCall("b1", "x"), async () => {
        events.push("probe");
        return { digest: k.digest("b1") };
      })
      .then((a) => {
        answered = true;
        return a as StrictPreflightAnswer;
      });
    await settle();
    // both durable writes are under way, neither has finished
    expect(events).toEqual(["probe", "reserve", "record issued"]);
    ledgerWritten.resolve();
    await settle();
    expect(answered).toBe(false); // the reservation is not durable yet
    reservationWritten.resolve();
    const pre = await pending;
    expect(pre.requestId).toBe((await reservationStore.loadAll())[0]);
    expect((await ledgerStore.loadAll()).map((e) => [e.requestId, e.state])).toEqual([
      [pre.requestId, "issued"],
    ]);
  });

  it("a refused probe reserves nothing", async () => {
    const { coordinator, reservationStore, ledgerStore } = await makeCoordinator();
    const refusal = new Error("kernel says no");
    await expect(
      coordinator.preflight(setCall("b1", "x"), async () => {
        throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect(await reservationStore.loadAll()).toEqual([]);
    expect(await ledgerStore.loadAll()).toEqual([]);
  });

  it("an issued record left durable without its reservation is reserved again at restart", async () => {
    const ledgerStore = new MemoryLedgerStore();
    const lost = new (class extends MemoryReservationStore {
      override async append(): Promise<void> {
        throw new Error("ENOSPC"); // the crash: this write never reached the disk
      }
    })();
    const first = await makeCoordinator({ ledgerStore, reservationStore: lost });
    const k = new FakeKernel();
    const error = await rejection(preflightSet(first.coordinator, k, "b1", "x"));
    expect(error.details).toMatchObject({ reason: "reservation_store_write_failed" });
    const [orphan] = (await ledgerStore.loadAll()).map((e) => e.requestId);
    expect(orphan).toMatch(/^[0-9a-f]{4,}$/);
    // same random seed: the restarted process draws the same ID first and must skip it
    const reservationStore = new MemoryReservationStore();
    const second = await makeCoordinator({ ledgerStore, reservationStore });
    expect(await reservationStore.loadAll()).toEqual([orphan]);
    const pre = await preflightSet(second.coordinator, k, "b1", "x");
    expect(pre.requestId).not.toBe(orphan);
  });

  it("a failed issued record is write_coordinator_unavailable, after the probe has read", async () => {
    const ledgerStore = new (class extends MemoryLedgerStore {
      override async put(): Promise<void> {
        throw new Error("EIO");
      }
    })();
    const { coordinator } = await makeCoordinator({ ledgerStore });
    const k = new FakeKernel();
    let probed = 0;
    const error = await rejection(
      coordinator.preflight(setCall("b1", "x"), async () => {
        probed++;
        return { digest: k.digest("b1") };
      }),
    );
    expect(error.code).toBe("write_coordinator_unavailable");
    expect(error.details).toMatchObject({ reason: "ledger_write_failed" });
    expect(probed).toBe(1);
  });
});

describe("WriteCoordinator restarts and deadlines", () => {
  it("a committed receipt replays after a restart; an issued ID of the old process is invalid", async () => {
    const clock = new FakeClock();
    const ledgerStore = new MemoryLedgerStore();
    const reservationStore = new MemoryReservationStore();
    const open = (epoch: string) =>
      createWriteCoordinator({
        clock,
        random: seededRandomSource(1),
        epoch,
        ledgerStore: ledgerStore.reopen(),
        reservationStore: reservationStore.reopen(),
      });
    const c1 = await open("e1");
    const k = new FakeKernel();
    const done = await preflightSet(c1, k, "b1", "x");
    const doneArgs = { requestId: done.requestId, expectedStateHash: done.expectedStateHash };
    await c1.commit(setCall("b1", "x", doneArgs), setHooks(k, "b1", "x"));
    const pending = await preflightSet(c1, k, "b2", "y");
    const c2 = await open("e2");
    const replay = await c2.commit(setCall("b1", "x", doneArgs), setHooks(k, "b1", "x"));
    expect(replay).toMatchObject({ status: "committed", replayed: true, executedNow: false });
    const e = await rejection(
      c2.commit(
        setCall("b2", "y", {
          requestId: pending.requestId,
          expectedStateHash: pending.expectedStateHash,
        }),
        setHooks(k, "b2", "y"),
      ),
    );
    expect(e.code).toBe("preflight_lease_invalid");
    expect(e.details.reason).toBe("other_epoch");
    expect(e.hint).toContain("previous server process");
    expect(e.hint).toContain("new requestId and expectedStateHash");
    // the same seeded random source must not hand out an ID the old process issued
    const fresh = await preflightSet(c2, k, "b3", "z");
    expect([done.requestId, pending.requestId]).not.toContain(fresh.requestId);
    expect(k.writes).toBe(1);
  });

  it("retention: a receipt replays until 7 days after execution, then the ID is dead", async () => {
    const { clock, k, commit } = await preflightedSet();
    const executedAt = clock.now();
    await commit();
    clock.t = executedAt + LEDGER_RETENTION_MS - 1;
    expect(await commit()).toMatchObject({ replayed: true });
    clock.t = executedAt + LEDGER_RETENTION_MS + 1;
    const e = await rejection(commit());
    expect(e.code).toBe("preflight_lease_invalid");
    expect(e.details.reason).toBe("request_id_expired");
    expect(k.writes).toBe(1);
  });

  it("request ID first-execution deadline: -1 ms executes, +1 ms never does", async () => {
    const { coordinator, clock } = await makeCoordinator();
    const k = new FakeKernel();
    const additive = (extra: Record<string, unknown>) =>
      setCall("n", "v", extra, mutationPolicy("none"));
    const a = (await coordinator.preflight(additive({}))) as {
      requestId: string;
      requestIdExpiresAt: number;
    };
    const b = (await coordinator.preflight(additive({}))) as {
      requestId: string;
      requestIdExpiresAt: number;
    };
    const { probe: _p, ...hooks } = setHooks(k, "n", "v");
    clock.t = a.requestIdExpiresAt - 1;
    expect((await coordinator.commit(additive({ requestId: a.requestId }), hooks)).status).toBe(
      "committed",
    );
    clock.t = b.requestIdExpiresAt + 1;
    const e = await rejection(coordinator.commit(additive({ requestId: b.requestId }), hooks));
    expect(e.code).toBe("preflight_lease_invalid");
    expect(e.details.reason).toBe("request_id_expired");
    expect(e.details).not.toHaveProperty("preconditionField");
    expect(k.writes).toBe(1);
  });

  it("an evicted lease is preflight_lease_invalid (evicted), nothing written", async () => {
    const { coordinator } = await makeCoordinator({ limits: { leasesGlobal: 1 } });
    const k = new FakeKernel();
    const p1 = await preflightSet(coordinator, k, "b1", "x");
    await preflightSet(coordinator, k, "b2", "x");
    const e = await rejection(
      coordinator.commit(
        setCall("b1", "x", { requestId: p1.requestId, expectedStateHash: p1.expectedStateHash }),
        setHooks(k, "b1", "x"),
      ),
    );
    expect(e.code).toBe("preflight_lease_invalid");
    expect(e.details.reason).toBe("evicted");
    expect(e.hint).toContain("Newer preflights pushed this lease out");
    expect(k.writes).toBe(0);
  });

  it("lease TTL: -1 ms commits, +1 ms is preflight_lease_invalid (expired)", async () => {
    const { coordinator, clock } = await makeCoordinator();
    const k = new FakeKernel();
    const p1 = await preflightSet(coordinator, k, "b1", "x");
    const p2 = await preflightSet(coordinator, k, "b2", "x");
    clock.t = p1.leaseExpiresAt - 1;
    const ok = await coordinator.commit(
      setCall("b1", "x", { requestId: p1.requestId, expectedStateHash: p1.expectedStateHash }),
      setHooks(k, "b1", "x"),
    );
    expect(ok.status).toBe("committed");
    clock.t = p2.leaseExpiresAt + 1;
    const e = await rejection(
      coordinator.commit(
        setCall("b2", "x", { requestId: p2.requestId, expectedStateHash: p2.expectedStateHash }),
        setHooks(k, "b2", "x"),
      ),
    );
    expect(e.code).toBe("preflight_lease_invalid");
    expect(e.details.reason).toBe("expired");
    expect(e.hint).toMatch(/^The lease expired\./);
    expect(k.writes).toBe(1);
  });
});

describe("WriteCoordinator lane, admission and cancellation", () => {
  it("runs calls one at a time in FIFO order", async () => {
    const { coordinator } = await makeCoordinator();
    const order: string[] = [];
    let active = 0;
    let maxActive = 0;
    const call = setCall("x", "y", {}, EXTERNAL_POLICY);
    const run = (name: string) =>
      coordinator.commit(call, {
        execute: async () => {
          active++;
          maxActive = Math.max(maxActive, active);
          await Promise.resolve();
          await Promise.resolve();
          order.push(name);
          active--;
          return undefined;
        },
      });
    await Promise.all(["a", "b", "c", "d"].map(run));
    expect(order).toEqual(["a", "b", "c", "d"]);
    expect(maxActive).toBe(1);
  });

  it("exclusive runs a body in the same FIFO lane as commits, alone; cancelled while queued, never", async () => {
    const { coordinator } = await makeCoordinator();
    const order: string[] = [];
    let active = 0;
    let maxActive = 0;
    const step = async (name: string) => {
      active++;
      maxActive = Math.max(maxActive, active);
      await Promise.resolve();
      await Promise.resolve();
      order.push(name);
      active--;
    };
    const call = setCall("x", "y", {}, EXTERNAL_POLICY);
    const commit = (name: string) =>
      coordinator.commit(call, { execute: async () => step(name).then(() => undefined) });
    const skipped = new WriteCancellation();
    const all = Promise.all([
      commit("commit 1"),
      coordinator.exclusive(undefined, () => step("preview 1")),
      coordinator.exclusive(skipped, () => step("cancelled preview")),
      commit("commit 2"),
      coordinator.exclusive(undefined, () => step("preview 2")),
    ]);
    expect(coordinator.health().queued).toBe(4);
    expect(skipped.cancel()).toBe(true);
    const answers = await all;
    expect(order).toEqual(["commit 1", "preview 1", "commit 2", "preview 2"]);
    expect(maxActive).toBe(1);
    expect(answers[2]).toMatchObject({ status: "cancelled", writeAttempted: false });
    expect(coordinator.health()).toMatchObject({ inFlight: 0, queued: 0, running: 0 });
  });

  it("refuses the call beyond the admission cap with queue_full and runs nothing", async () => {
    const { coordinator } = await makeCoordinator({ limits: { admission: 3 } });
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let runs = 0;
    const call = setCall("x", "y", {}, EXTERNAL_POLICY);
    const hooks = {
      execute: async () => {
        runs++;
        await gate;
        return undefined;
      },
    };
    const admitted = [
      coordinator.commit(call, hooks),
      coordinator.commit(call, hooks),
      coordinator.commit(call, hooks),
    ];
    expect(coordinator.health()).toMatchObject({ inFlight: 3 });
    const e = await rejection(coordinator.commit(call, hooks));
    expect(e.code).toBe("queue_full");
    expect(e.writeAttempted).toBe(false);
    release();
    await Promise.all(admitted);
    expect(runs).toBe(3);
    expect(coordinator.health()).toMatchObject({ inFlight: 0, queued: 0, running: 0 });
  });

  it("a queued call can be cancelled; a committing one cannot", async () => {
    const { coordinator, k, pre } = await preflightedSet();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const first = new WriteCancellation();
    const hooks = setHooks(k, "b1", "x");
    const running = coordinator.commit(
      {
        ...setCall("b1", "x", {
          requestId: pre.requestId,
          expectedStateHash: pre.expectedStateHash,
        }),
        cancellation: first,
      },
      {
        ...hooks,
        execute: async (ctx) => {
          await gate;
          return hooks.execute(ctx);
        },
      },
    );
    const queued = new WriteCancellation();
    const second = coordinator.commit(
      { ...setCall("x", "y", {}, EXTERNAL_POLICY), cancellation: queued },
      { execute: async () => ({ receipt: { ran: true } }) },
    );
    await settle();
    // The race the test names: the second commit waits in the lane behind the first.
    expect(coordinator.health().queued).toBe(1);
    expect(first.state).toBe("committing");
    expect(first.cancel()).toBe(false);
    expect(queued.cancel()).toBe(true);
    expect(await second).toEqual({
      status: "cancelled",
      writeAttempted: false,
      writeExecuted: false,
    });
    release();
    expect((await running).status).toBe("committed");
    expect(k.writes).toBe(1);
  });

  it("cancellation accepted while probing stops the call before the executing record", async () => {
    const { coordinator, ledgerStore, k, args, commit } = await preflightedSet();
    const cancellation = new WriteCancellation();
    const hooks = setHooks(k, "b1", "x");
    const answer = await coordinator.commit(
      { ...setCall("b1", "x", args), cancellation },
      {
        ...hooks,
        probe: async () => {
          expect(cancellation.cancel()).toBe(true);
          return hooks.probe!();
        },
      },
    );
    expect(answer.status).toBe("cancelled");
    expect(k.writes).toBe(0);
    expect((await ledgerStore.loadAll()).map((e) => e.state)).toEqual(["issued"]);
    // not consumed: the same request ID and credential still commit
    const ok = await commit();
    expect(ok.status).toBe("committed");
  });
});

describe("WriteCoordinator receipts and creation progress", () => {
  it("keeps reserved IDs and stages of a creation that ends unknown, and reports them on replay", async () => {
    const { coordinator } = await makeCoordinator();
    const call = (extra: Record<string, unknown>) =>
      setCall("av", "new", extra, mutationPolicy("none"));
    const pre = (await coordinator.preflight(call({}))) as { requestId: string };
    const hooks = {
      execute: async (ctx: { recordCreation: (p: object) => Promise<void> }) => {
        await ctx.recordCreation({ reservedIds: ["av-1", "blk-1"] });
        await ctx.recordCreation({ confirmedStage: "render" });
        throw new Error("lost response");
      },
      readback: async () => ({ outcome: "unverifiable" as const, reason: "not reached" }),
    };
    const e = await rejection(coordinator.commit(call({ requestId: pre.requestId }), hooks));
    expect(e.code).toBe("outcome_unknown");
    expect(e.details.creation).toEqual({
      reservedIds: ["av-1", "blk-1"],
      confirmedStages: ["render"],
    });
    const replay = await rejection(coordinator.commit(call({ requestId: pre.requestId }), hooks));
    expect(replay.code).toBe("outcome_unknown");
    expect(replay.writeAttempted).toBe(false);
    expect(replay.details.creation?.reservedIds).toEqual(["av-1", "blk-1"]);
  });

  it("an oversized tool receipt is dropped live and on replay alike", async () => {
    const { coordinator, k, args } = await preflightedSet();
    const hooks = setHooks(k, "b1", "x");
    const big = {
      ...hooks,
      execute: async (ctx: Parameters<typeof hooks.execute>[0]) => {
        await hooks.execute(ctx);
        return { receipt: { blob: "z".repeat(10_000) } };
      },
    };
    const live = await coordinator.commit(setCall("b1", "x", args), big);
    expect(live).toMatchObject({ status: "committed", receiptOmitted: true });
    expect(live).not.toHaveProperty("blob");
    const replay = await coordinator.commit(setCall("b1", "x", args), big);
    expect(replay).toEqual({
      ...live,
      replayed: true,
      executedNow: false,
      targetNow: "holds_result",
      replayNote: REPLAY_NOTES.holds_result,
    });
  });

  it("receipt digests are kept complete in the ledger and answered as aliases, live and on replay", async () => {
    const { coordinator, ledgerStore, k, args } = await preflightedSet();
    const hooks = setHooks(k, "b1", "x");
    const relation = stateHash({ relation: "before" });
    const withDigests = {
      ...hooks,
      execute: async (ctx: Parameters<typeof hooks.execute>[0]) => {
        await hooks.execute(ctx);
        return {
          receipt: { [RECEIPT_DIGESTS]: { relationPreimageHash: relation, note: "not a digest" } },
        };
      },
    };
    const live = (await coordinator.commit(setCall("b1", "x", args), withDigests)) as Record<
      string,
      unknown
    >;
    const alias = live["relationPreimageHash"] as string;
    expect(alias).toMatch(/^[0-9a-f]{4,}$/);
    expect(coordinator.aliases.resolve(alias)).toBe(relation);
    expect(live).not.toHaveProperty(RECEIPT_DIGESTS);
    expect(live).not.toHaveProperty("note");
    expect(JSON.stringify(live)).not.toContain(relation);
    const [entry] = await ledgerStore.loadAll();
    expect(JSON.stringify(entry)).toContain(relation);
    const replay = (await coordinator.commit(setCall("b1", "x", args), withDigests)) as Record<
      string,
      unknown
    >;
    expect(replay).toMatchObject({ replayed: true, relationPreimageHash: alias });
  });

  it("state_changed, replay and success hashes are aliases that resolve to complete digests", async () => {
    const { coordinator, ledgerStore, k, commit } = await preflightedSet();
    const r = (await commit()) as {
      previousHash: string;
      resultHash: string;
    };
    expect(coordinator.aliases.resolve(r.resultHash)).toBe(k.digest("b1"));
    const [entry] = await ledgerStore.loadAll();
    expect(entry?.result?.resultDigest).toBe(k.digest("b1"));
    expect(entry?.result?.previousDigest).toBe(coordinator.aliases.resolve(r.previousHash));
    expect(JSON.stringify(entry)).not.toContain('"x"');
  });

  it("drain refuses new calls and resolves once admitted calls settle", async () => {
    const { coordinator } = await makeCoordinator();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const call = setCall("x", "y", {}, EXTERNAL_POLICY);
    const running = coordinator.commit(call, {
      execute: async () => {
        await gate;
        return undefined;
      },
    });
    const queued = coordinator.commit(call, { execute: async () => undefined });
    let drained = false;
    const draining = coordinator.drain().then(() => {
      drained = true;
    });
    const refused = await rejection(coordinator.commit(call, { execute: async () => undefined }));
    expect(refused.code).toBe("write_coordinator_unavailable");
    expect(refused.details.reason).toBe("draining");
    expect(coordinator.health()).toMatchObject({ draining: true, inFlight: 2 });
    await Promise.resolve();
    expect(drained).toBe(false);
    release();
    await Promise.all([running, queued, draining]);
    expect(drained).toBe(true);
    await coordinator.drain();
  });
});

/**
 * @sisyphus/write-safety/testing: contract test suites for the store ports, and fault-injecting
 * store wrappers. Every durable store a runtime writes (Node files, kernel storage) runs these
 * suites against its own factory:
 *
 * ```ts
 * describeLedgerStoreContract("file ledger", async () => { const dir = ...; return { store: open(dir), reopen: () => open(dir) }; });
 * ```
 *
 * Imports vitest's `describe` / `it` / `expect`, so import this entry only from test files.
 */
import { seededRandomSource, stateHash } from "@sisyphus/core-hash";
import { describe, expect, it } from "vitest";
import type { StrictPreflightAnswer } from "./answers.js";
import { createWriteCoordinator } from "./coordinator.js";
import { isWriteSafetyError } from "./errors.js";
import type { LedgerEntry, LedgerStore } from "./ledger.js";
import { mutationPolicy } from "./policy.js";
import { RequestIdRegistry, type ReservationStore } from "./reservations.js";
import { FakeClock } from "./test-support.js";

/** A store under test plus a way to open it again over the same durable data (a restart). */
export interface StoreUnderTest<S> {
  store: S;
  reopen: () => S | Promise<S>;
}

/** Builds a fresh, empty store for each test. */
export type StoreFactory<S> = () => StoreUnderTest<S> | Promise<StoreUnderTest<S>>;

/** Which store operation a fault predicate is asked about. */
export type StoreOperation = "load" | "put" | "delete" | "append";

/**
 * A {@link LedgerStore} wrapper that throws (without touching the inner store) whenever
 * `shouldFail(operation, entry)` answers true; `entry` is the record being put.
 */
export class FaultyLedgerStore implements LedgerStore {
  constructor(
    readonly inner: LedgerStore,
    readonly shouldFail: (operation: StoreOperation, entry?: LedgerEntry) => boolean,
  ) {}
  async loadAll(): Promise<readonly LedgerEntry[]> {
    if (this.shouldFail("load")) throw new Error("injected ledger load failure");
    return this.inner.loadAll();
  }
  async put(entry: LedgerEntry): Promise<void> {
    if (this.shouldFail("put", entry)) throw new Error(`injected ledger failure on ${entry.state}`);
    return this.inner.put(entry);
  }
  async delete(requestIds: readonly string[]): Promise<void> {
    if (this.shouldFail("delete")) throw new Error("injected ledger delete failure");
    return this.inner.delete(requestIds);
  }
}

/** A {@link ReservationStore} wrapper that throws whenever `shouldFail(operation, id)` answers true. */
export class FaultyReservationStore implements ReservationStore {
  constructor(
    readonly inner: ReservationStore,
    readonly shouldFail: (operation: StoreOperation, id?: string) => boolean,
  ) {}
  async loadAll(): Promise<readonly string[]> {
    if (this.shouldFail("load")) throw new Error("injected reservation load failure");
    return this.inner.loadAll();
  }
  async append(id: string): Promise<void> {
    if (this.shouldFail("append", id)) throw new Error("injected reservation append failure");
    return this.inner.append(id);
  }
}

/** A complete, realistic ledger record for store tests (digests are real `stateHash` values). */
export function sampleLedgerEntry(
  requestId: string,
  overrides: Partial<LedgerEntry> = {},
): LedgerEntry {
  const scopeKey = stateHash({ scope: requestId });
  return {
    requestId,
    tool: "block",
    action: "update",
    scopeKey,
    argsDigest: stateHash({ args: requestId }),
    targetIds: ["20260812120000-abcdefg", "20260812120001-hijklmn"],
    precondition: "state",
    state: "committed",
    epoch: "epoch-a",
    issuedAt: 1_786_543_200_000,
    requestIdExpiresAt: 1_786_543_800_000,
    executingAt: 1_786_543_260_000,
    updatedAt: 1_786_543_261_000,
    beforeDigest: stateHash({ before: requestId }),
    result: {
      status: "committed",
      previousDigest: stateHash({ before: requestId }),
      resultDigest: stateHash({ after: requestId }),
      toolReceipt: {
        targetCount: 2,
        ids: ["20260812120000-abcdefg"],
        nested: { ok: true, n: null },
      },
    },
    verdict: "committed",
    resultDigest: stateHash({ after: requestId }),
    creation: { reservedIds: ["r1", "r2"], confirmedStages: ["render"], receipt: { avID: "a" } },
    ...overrides,
  };
}

const byId = (entries: readonly LedgerEntry[]): LedgerEntry[] =>
  [...entries].sort((a, b) => (a.requestId < b.requestId ? -1 : a.requestId > b.requestId ? 1 : 0));

/**
 * The {@link LedgerStore} contract: empty start, exact round trip of every field, upsert by
 * request ID, delete, durability across reopen, isolation from later mutation of the caller's object.
 */
export function describeLedgerStoreContract(
  name: string,
  factory: StoreFactory<LedgerStore>,
): void {
  describe(`LedgerStore contract: ${name}`, () => {
    it("starts empty", async () => {
      const { store } = await factory();
      expect(await store.loadAll()).toEqual([]);
    });

    it("round-trips every field of a record exactly", async () => {
      const { store } = await factory();
      const entry = sampleLedgerEntry("a1b2");
      await store.put(entry);
      expect(await store.loadAll()).toEqual([entry]);
    });

    it("keeps records minimal: an issued record without optional fields stays without them", async () => {
      const { store } = await factory();
      const {
        executingAt: _e,
        beforeDigest: _b,
        result: _r,
        verdict: _v,
        resultDigest: _d,
        creation: _c,
        ...issued
      } = sampleLedgerEntry("c3d4", { state: "issued" });
      await store.put(issued);
      const [loaded] = await store.loadAll();
      expect(loaded).toEqual(issued);
      expect(Object.keys(loaded!).sort()).toEqual(Object.keys(issued).sort());
    });

    it("upserts by request ID: the last put wins", async () => {
      const { store } = await factory();
      await store.put(sampleLedgerEntry("a1b2", { state: "issued" }));
      await store.put(sampleLedgerEntry("a1b2", { state: "executing", updatedAt: 2 }));
      const loaded = await store.loadAll();
      expect(loaded).toHaveLength(1);
      expect(loaded[0]).toMatchObject({ state: "executing", updatedAt: 2 });
    });

    it("deletes the listed records and ignores unknown IDs", async () => {
      const { store } = await factory();
      for (const id of ["aaaa", "bbbb", "cccc"]) await store.put(sampleLedgerEntry(id));
      await store.delete(["bbbb", "ffff"]);
      expect(byId(await store.loadAll()).map((e) => e.requestId)).toEqual(["aaaa", "cccc"]);
    });

    it("is durable: a reopened store sees every put and delete", async () => {
      const { store, reopen } = await factory();
      for (const id of ["aaaa", "bbbb", "cccc"]) await store.put(sampleLedgerEntry(id));
      await store.put(sampleLedgerEntry("bbbb", { state: "unknown", reason: "execute_failed" }));
      await store.delete(["cccc"]);
      const again = await reopen();
      const loaded = byId(await again.loadAll());
      expect(loaded.map((e) => [e.requestId, e.state])).toEqual([
        ["aaaa", "committed"],
        ["bbbb", "unknown"],
      ]);
    });

    it("is isolated from the caller's objects after put", async () => {
      const { store } = await factory();
      const entry = sampleLedgerEntry("a1b2");
      await store.put(entry);
      entry.state = "unknown";
      entry.targetIds.push("mutated");
      expect((await store.loadAll())[0]).toEqual(sampleLedgerEntry("a1b2"));
    });

    it("holds 500 records", async () => {
      const { store, reopen } = await factory();
      const ids = Array.from({ length: 500 }, (_, i) => (0x10000 + i).toString(16));
      for (const id of ids) await store.put(sampleLedgerEntry(id));
      expect(byId(await (await reopen()).loadAll()).map((e) => e.requestId)).toEqual(ids);
    });

    it("offers loadKeys and read together or neither; they agree with loadAll, also after reopen", async () => {
      const { store, reopen } = await factory();
      expect(store.loadKeys === undefined).toBe(store.read === undefined);
      const { executingAt: _e, ...issued } = sampleLedgerEntry("aaaa", { state: "issued" });
      await store.put(issued);
      await store.put(sampleLedgerEntry("bbbb", { state: "issued" }));
      await store.put(sampleLedgerEntry("bbbb", { executingAt: 5, updatedAt: 6 }));
      await store.put(sampleLedgerEntry("cccc"));
      await store.delete(["cccc"]);
      for (const s of [store, await reopen()]) {
        const all = byId(await s.loadAll());
        expect(all).toEqual([issued, sampleLedgerEntry("bbbb", { executingAt: 5, updatedAt: 6 })]);
        if (s.loadKeys === undefined || s.read === undefined) continue;
        const keys = [...(await s.loadKeys())].map(
          ({ requestId, requestIdExpiresAt, executingAt }) => ({
            requestId,
            requestIdExpiresAt,
            executingAt,
          }),
        );
        keys.sort((a, b) => (a.requestId < b.requestId ? -1 : 1));
        expect(keys).toEqual(
          all.map((e) => ({
            requestId: e.requestId,
            requestIdExpiresAt: e.requestIdExpiresAt,
            executingAt: e.executingAt,
          })),
        );
        for (const entry of all) expect(s.read(entry.requestId)).toEqual(entry);
        expect(s.read("cccc")).toBeUndefined();
        expect(s.read("ffff")).toBeUndefined();
      }
    });
  });
}

/**
 * The {@link ReservationStore} contract: empty start, append order, durability across reopen,
 * every ID length 4..64, 10,000 IDs, and a registry over a reopened store never re-issuing an ID.
 */
export function describeReservationStoreContract(
  name: string,
  factory: StoreFactory<ReservationStore>,
): void {
  describe(`ReservationStore contract: ${name}`, () => {
    it("starts empty", async () => {
      const { store } = await factory();
      expect([...(await store.loadAll())]).toEqual([]);
    });

    it("returns appended IDs in order, also after reopen", async () => {
      const { store, reopen } = await factory();
      const ids = ["b72f", "b72f1", "0000", "ffffffff"];
      for (const id of ids) await store.append(id);
      expect([...(await store.loadAll())]).toEqual(ids);
      expect([...(await (await reopen()).loadAll())]).toEqual(ids);
    });

    it("keeps every ID length from 4 to 64 digits", async () => {
      const { store, reopen } = await factory();
      const ids = Array.from({ length: 61 }, (_, i) =>
        "0123456789abcdef".repeat(4).slice(0, i + 4),
      );
      for (const id of ids) await store.append(id);
      expect([...(await (await reopen()).loadAll())]).toEqual(ids);
    });

    it("holds 10,000 IDs", async () => {
      const { store, reopen } = await factory();
      const ids = Array.from({ length: 10_000 }, (_, i) => (0x10000 + i * 7).toString(16));
      for (const id of ids) await store.append(id);
      expect([...(await (await reopen()).loadAll())]).toEqual(ids);
    });

    it("a registry over the reopened store never issues an ID twice", async () => {
      const { store, reopen } = await factory();
      const first = await RequestIdRegistry.open({ store, random: seededRandomSource(42) });
      const issued = new Set<string>();
      for (let i = 0; i < 200; i++) issued.add(await first.issue());
      expect(issued.size).toBe(200);
      const second = await RequestIdRegistry.open({
        store: await reopen(),
        random: seededRandomSource(42),
      });
      for (let i = 0; i < 200; i++) {
        const id = await second.issue();
        expect(issued.has(id)).toBe(false);
        issued.add(id);
      }
    });
  });
}

/**
 * Coordinator behaviour over a real store pair when the ledger store fails: a failed `executing`
 * write fails closed (nothing executes, `write_coordinator_unavailable`); a failed `committed`
 * write after a verified write answers `outcome_unknown`, and neither a replay nor a restart over
 * the same stores ever executes it again; a failed reservation append hands out no ID.
 */
export function describeCoordinatorStoreFailures(
  name: string,
  factory: () =>
    | { ledger: StoreUnderTest<LedgerStore>; reservations: StoreUnderTest<ReservationStore> }
    | Promise<{
        ledger: StoreUnderTest<LedgerStore>;
        reservations: StoreUnderTest<ReservationStore>;
      }>,
): void {
  describe(`coordinator over failing stores: ${name}`, () => {
    const setup = async (failOn: (op: StoreOperation, entry?: LedgerEntry) => boolean) => {
      const stores = await factory();
      const clock = new FakeClock();
      let failing = false;
      const ledgerStore = new FaultyLedgerStore(
        stores.ledger.store,
        (op, entry) => failing && failOn(op, entry),
      );
      const coordinator = await createWriteCoordinator({
        clock,
        random: seededRandomSource(3),
        epoch: "e1",
        ledgerStore,
        reservationStore: stores.reservations.store,
      });
      let value = "old";
      let executions = 0;
      const call = (extra: Record<string, unknown> = {}) => ({
        tool: "kv",
        action: "set",
        policy: mutationPolicy("state"),
        args: { id: "k", value: "new", ...extra },
        targetIds: ["k"],
      });
      const hooks = {
        probe: async () => ({ digest: stateHash({ value }) }),
        execute: async () => {
          executions++;
          value = "new";
          return undefined;
        },
        readback: async () => ({ outcome: "applied" as const, digest: stateHash({ value }) }),
      };
      const pre = (await coordinator.preflight(call(), hooks.probe)) as StrictPreflightAnswer;
      failing = true;
      const args = { requestId: pre.requestId, expectedStateHash: pre.expectedStateHash };
      return {
        stores,
        clock,
        coordinator,
        call,
        hooks,
        args,
        executions: () => executions,
        stopFailing: () => {
          failing = false;
        },
      };
    };

    it("fails closed when the executing record cannot be written", async () => {
      const t = await setup((op, entry) => op === "put" && entry?.state === "executing");
      const error = await t.coordinator.commit(t.call(t.args), t.hooks).catch((e: unknown) => e);
      expect(isWriteSafetyError(error) && error.code).toBe("write_coordinator_unavailable");
      expect(isWriteSafetyError(error) && error.writeAttempted).toBe(false);
      expect(t.executions()).toBe(0);
      t.stopFailing();
      const retried = await t.coordinator.commit(t.call(t.args), t.hooks);
      expect(retried.status).toBe("committed");
      expect(t.executions()).toBe(1);
    });

    it("answers outcome_unknown when the committed record cannot be written, and never re-executes", async () => {
      const t = await setup((op, entry) => op === "put" && entry?.state !== "executing");
      const error = await t.coordinator.commit(t.call(t.args), t.hooks).catch((e: unknown) => e);
      expect(isWriteSafetyError(error) && error.code).toBe("outcome_unknown");
      expect(isWriteSafetyError(error) && error.details.observedVerdict).toBe("committed");
      expect(t.executions()).toBe(1);
      t.stopFailing();
      const replay = await t.coordinator.commit(t.call(t.args), t.hooks).catch((e: unknown) => e);
      expect(isWriteSafetyError(replay) && replay.code).toBe("outcome_unknown");
      const restarted = await createWriteCoordinator({
        clock: t.clock,
        random: seededRandomSource(3),
        epoch: "e2",
        ledgerStore: await t.stores.ledger.reopen(),
        reservationStore: await t.stores.reservations.reopen(),
      });
      const afterRestart = await restarted.commit(t.call(t.args), t.hooks).catch((e: unknown) => e);
      expect(isWriteSafetyError(afterRestart) && afterRestart.code).toBe("outcome_unknown");
      expect(isWriteSafetyError(afterRestart) && afterRestart.details.ledgerState).toBe(
        "executing",
      );
      expect(t.executions()).toBe(1);
    });

    it("hands out no request ID when its reservation cannot be appended", async () => {
      const stores = await factory();
      let failing = true;
      const coordinator = await createWriteCoordinator({
        clock: new FakeClock(),
        random: seededRandomSource(5),
        epoch: "e1",
        ledgerStore: stores.ledger.store,
        reservationStore: new FaultyReservationStore(
          stores.reservations.store,
          (op) => failing && op === "append",
        ),
      });
      const call = {
        tool: "kv",
        action: "add",
        policy: mutationPolicy("none"),
        args: { value: "x" },
        targetIds: [],
      };
      const error = await coordinator.preflight(call).catch((e: unknown) => e);
      expect(isWriteSafetyError(error) && error.code).toBe("write_coordinator_unavailable");
      expect([...(await (await stores.reservations.reopen()).loadAll())]).toEqual([]);
      failing = false;
      const ok = await coordinator.preflight(call);
      expect(ok).toMatchObject({ writeAttempted: false });
    });
  });
}

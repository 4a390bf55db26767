import { stateHash } from "@sisyphus/core-hash";
import { describe, expect, it } from "vitest";
import { LEDGER_RETENTION_MS } from "./constants.js";
import {
  Ledger,
  type LedgerEntry,
  type LedgerKey,
  type MemoryLedgerBacking,
  MemoryLedgerStore,
} from "./ledger.js";
import { leaseScope } from "./scope.js";
import { FakeClock } from "./test-support.js";
import { FaultyLedgerStore } from "./testing.js";

const scope = leaseScope({ tool: "kv", action: "set", args: { v: 1 }, targetIds: ["k"] });

async function open(store = new MemoryLedgerStore(), clock = new FakeClock()) {
  const ledger = await Ledger.open({ store, clock });
  const issue = (requestId: string) =>
    ledger.recordIssued({
      requestId,
      scope,
      precondition: "state",
      epoch: "e1",
      issuedAt: clock.now(),
      requestIdExpiresAt: clock.now() + 600_000,
    });
  return { ledger, store, clock, issue };
}

describe("Ledger", () => {
  it("walks issued → executing → committed and keeps full digests, never bodies", async () => {
    const { ledger, store, issue } = await open();
    await issue("aaaa");
    await ledger.recordExecuting("aaaa", { beforeDigest: stateHash(1) });
    await ledger.recordCommitted("aaaa", {
      status: "committed",
      previousDigest: stateHash(1),
      resultDigest: stateHash(2),
    });
    const [stored] = await store.loadAll();
    expect(stored).toMatchObject({
      state: "committed",
      beforeDigest: stateHash(1),
      resultDigest: stateHash(2),
      targetIds: ["k"],
      scopeKey: scope.key,
    });
    expect(ledger.get("aaaa")).toEqual(stored);
  });

  it("refuses illegal transitions (programming errors)", async () => {
    const { ledger, issue } = await open();
    await issue("aaaa");
    await expect(
      ledger.recordCommitted("aaaa", { status: "committed", resultDigest: stateHash(1) }),
    ).rejects.toThrow(TypeError);
    await expect(issue("aaaa")).rejects.toThrow(TypeError);
    await ledger.recordExecuting("aaaa");
    await expect(ledger.recordExecuting("aaaa")).rejects.toThrow(TypeError);
    await ledger.recordUnknown("aaaa", { verdict: "outcome_unknown", reason: "x" });
    await expect(ledger.recordExecuting("aaaa")).rejects.toThrow(TypeError);
  });

  it("a failed store write leaves the previous state in force", async () => {
    let fail = false;
    const inner = new MemoryLedgerStore();
    const { ledger, issue } = await open(
      new FaultyLedgerStore(inner, (op) => fail && op === "put") as never,
    );
    await issue("aaaa");
    fail = true;
    await expect(ledger.recordExecuting("aaaa")).rejects.toThrow();
    expect(ledger.get("aaaa")?.state).toBe("issued");
    expect((await inner.loadAll())[0]?.state).toBe("issued");
  });

  it("merges creation progress durably while executing", async () => {
    const { ledger, store, issue } = await open();
    await issue("aaaa");
    await ledger.recordExecuting("aaaa");
    await ledger.recordCreationProgress("aaaa", { reservedIds: ["av1", "blk1"] });
    await ledger.recordCreationProgress("aaaa", { confirmedStage: "render" });
    await ledger.recordCreationProgress("aaaa", {
      confirmedStage: "render",
      receipt: { avID: "av1" },
    });
    const reopened = await Ledger.open({ store: store.reopen(), clock: new FakeClock() });
    expect(reopened.get("aaaa")?.creation).toEqual({
      reservedIds: ["av1", "blk1"],
      confirmedStages: ["render"],
      receipt: { avID: "av1" },
    });
  });

  it("drops issued records at their deadline and executed ones after retention, in memory and store", async () => {
    const { ledger, store, clock, issue } = await open();
    const t0 = clock.now();
    await issue("dead");
    await issue("done");
    await ledger.recordExecuting("done");
    await ledger.recordCommitted("done", { status: "committed", resultDigest: stateHash(1) });
    clock.t = t0 + 600_000 - 1;
    expect(ledger.get("dead")?.state).toBe("issued");
    clock.t = t0 + 600_000;
    expect(ledger.get("dead")).toBeUndefined();
    expect(await ledger.prune()).toBe(1);
    expect((await store.loadAll()).map((e) => e.requestId)).toEqual(["done"]);
    clock.t = t0 + LEDGER_RETENTION_MS - 1;
    expect(ledger.get("done")?.state).toBe("committed");
    clock.t = t0 + LEDGER_RETENTION_MS;
    expect(ledger.size).toBe(0);
    await ledger.prune();
    expect(store.size).toBe(0);
  });

  it("on load, skips and deletes records already past their deadline", async () => {
    const { ledger, store, clock, issue } = await open();
    await issue("aaaa");
    await issue("bbbb");
    await ledger.recordExecuting("bbbb");
    clock.advance(600_000);
    const reopened = await Ledger.open({ store: store.reopen(), clock });
    expect(reopened.get("aaaa")).toBeUndefined();
    expect(reopened.get("bbbb")?.state).toBe("executing");
    await reopened.prune();
    expect(store.size).toBe(1);
  });

  it("over a store with loadKeys/read: opens from the keys and reads a record once, on lookup", async () => {
    const counting = new CountingStore();
    const { ledger, clock, issue } = await open(counting);
    await issue("aaaa");
    await issue("bbbb");
    await ledger.recordExecuting("bbbb");
    await ledger.recordCommitted("bbbb", { status: "committed", resultDigest: stateHash(2) });
    await issue("cccc");
    clock.advance(600_000); // aaaa and cccc (issued only) are past their deadline
    const again = counting.reopen();
    const reopened = await Ledger.open({ store: again, clock });
    expect(again.calls).toEqual({ loadAll: 0, loadKeys: 1, read: 0 });
    expect(reopened.size).toBe(1);
    expect(reopened.get("aaaa")).toBeUndefined();
    expect(again.calls.read).toBe(0);
    const committed = reopened.get("bbbb");
    expect(committed).toMatchObject({ state: "committed", resultDigest: stateHash(2) });
    expect(Object.isFrozen(committed?.result)).toBe(true);
    expect(reopened.get("bbbb")).toBe(committed);
    expect(again.calls.read).toBe(1);
    expect(await reopened.prune()).toBe(2);
    expect((await counting.loadAll()).map((e) => e.requestId)).toEqual(["bbbb"]);
  });

  it("over a store with loadKeys/read: keeps only the key of a committed record and reads it back", async () => {
    const counting = new CountingStore();
    const { ledger, issue } = await open(counting);
    await issue("aaaa");
    await ledger.recordExecuting("aaaa");
    const written = await ledger.recordCommitted("aaaa", {
      status: "committed",
      resultDigest: stateHash(3),
      toolReceipt: { n: 1 },
    });
    expect(counting.calls.read).toBe(0);
    expect(ledger.get("aaaa")).toEqual(written);
    expect(counting.calls.read).toBe(1);
    await expect(ledger.recordExecuting("aaaa")).rejects.toThrow(TypeError);
  });

  it("fails closed when the store cannot read a record on lookup", async () => {
    const counting = new CountingStore();
    const { ledger, clock, issue } = await open(counting);
    await issue("aaaa");
    const again = counting.reopen();
    const reopened = await Ledger.open({ store: again, clock });
    again.failRead = true;
    expect(() => reopened.get("aaaa")).toThrow("injected read failure");
    await expect(reopened.recordExecuting("aaaa")).rejects.toThrow("injected read failure");
    again.failRead = false;
    again.loseRecords = true;
    expect(() => reopened.get("aaaa")).toThrow("lost the record");
    again.loseRecords = false;
    expect(reopened.get("aaaa")?.state).toBe("issued");
    expect(ledger.get("aaaa")?.state).toBe("issued");
  });
});

/** A lazy store (loadKeys + read) over one shared backing that counts what the ledger calls. */
class CountingStore extends MemoryLedgerStore {
  calls = { loadAll: 0, loadKeys: 0, read: 0 };
  failRead = false;
  loseRecords = false;
  readonly #backing: MemoryLedgerBacking;
  constructor(backing: MemoryLedgerBacking = new Map()) {
    super(backing);
    this.#backing = backing;
  }
  override reopen(): CountingStore {
    return new CountingStore(this.#backing);
  }
  override async loadAll(): Promise<readonly LedgerEntry[]> {
    this.calls.loadAll++;
    return super.loadAll();
  }
  override async loadKeys(): Promise<readonly LedgerKey[]> {
    this.calls.loadKeys++;
    return (await super.loadAll()).map(({ requestId, requestIdExpiresAt, executingAt }) => ({
      requestId,
      requestIdExpiresAt,
      executingAt,
    }));
  }
  override read(requestId: string): LedgerEntry | undefined {
    this.calls.read++;
    if (this.failRead) throw new Error("injected read failure");
    return this.loseRecords ? undefined : super.read(requestId);
  }
}

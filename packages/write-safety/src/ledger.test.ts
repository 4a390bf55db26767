import { stateHash } from "@sisyphus/core-hash";
import { describe, expect, it } from "vitest";
import { LEDGER_RETENTION_MS } from "./constants.js";
import { Ledger, MemoryLedgerStore } from "./ledger.js";
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
});

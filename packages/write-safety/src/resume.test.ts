/**
 * Resumable creations: a staged additive write records its reserved IDs and confirmed stages, and
 * a replay of the same request after a crash (a new process over the same ledger store) or a
 * failure between stages continues from that progress instead of answering `outcome_unknown`,
 * never repeating a confirmed stage. Fake clock, in-memory stores.
 */
import { seededRandomSource, stateHash } from "@sisyphus/core-hash";
import { describe, expect, it } from "vitest";
import { REQUEST_ID_FIRST_EXECUTION_TTL_MS } from "./constants.js";
import { createWriteCoordinator, type WriteCoordinator } from "./coordinator.js";
import { isWriteSafetyError, type WriteSafetyError } from "./errors.js";
import type { CommitHooks, ExecuteContext } from "./hooks.js";
import { Ledger, MemoryLedgerStore } from "./ledger.js";
import { mutationPolicy } from "./policy.js";
import { MemoryReservationStore } from "./reservations.js";
import { leaseScope } from "./scope.js";
import { FakeClock, setCall } from "./test-support.js";

const STAGES = ["block", "file", "name"] as const;
type Stage = (typeof STAGES)[number];

/** A kernel of stage → ID; `writes` counts every stage write that reached it. */
class StageKernel {
  readonly made = new Map<Stage, string>();
  writes = 0;
}

/**
 * A staged creation: reserve an ID (recorded before any write), then each stage not yet
 * confirmed — written only when the kernel does not show it already — confirmed durably, then the
 * complete receipt. `stop(stage)` runs after a stage is confirmed: it may hang (a crash) or throw
 * (a lost response).
 */
function creationHooks(
  kernel: StageKernel,
  stop: (stage: Stage) => Promise<void> = async () => {},
  probe: CommitHooks["probe"] = async () => ({ digest: stateHash("anchor") }),
): CommitHooks & { seen: Array<ExecuteContext["resumed"]> } {
  const seen: Array<ExecuteContext["resumed"]> = [];
  return {
    resumable: true,
    seen,
    probe,
    execute: async (ctx) => {
      seen.push(ctx.resumed);
      const id = ctx.resumed?.reservedIds[0] ?? `new-${kernel.writes}`;
      if (ctx.resumed?.reservedIds[0] === undefined)
        await ctx.recordCreation({ reservedIds: [id] });
      const port = ctx.writes({
        make: async (stage: Stage) => {
          kernel.writes++;
          kernel.made.set(stage, id);
        },
      });
      for (const stage of STAGES) {
        if (ctx.resumed?.confirmedStages.includes(stage)) continue;
        if (kernel.made.get(stage) !== id) await port.make(stage);
        await ctx.recordCreation({ confirmedStage: stage });
        await stop(stage);
      }
      const receipt = { id, stages: STAGES.length };
      await ctx.recordCreation({ receipt });
      return { receipt };
    },
    readback: async () =>
      STAGES.every((s) => kernel.made.has(s))
        ? { outcome: "applied", digest: stateHash([...kernel.made]) }
        : { outcome: "unverifiable", reason: "stages missing" },
  };
}

const createCall = (extra: Record<string, unknown> = {}) =>
  setCall("anchor", "db", extra, mutationPolicy("none"));

async function rejection(p: Promise<unknown>): Promise<WriteSafetyError> {
  try {
    await p;
  } catch (e) {
    if (isWriteSafetyError(e)) return e;
    throw e;
  }
  throw new Error("expected a rejection");
}

/** Processes over one durable ledger: `open` starts one (a restart after a crash). */
function processes() {
  const clock = new FakeClock();
  const ledgerStore = new MemoryLedgerStore();
  const reservationStore = new MemoryReservationStore();
  let epochs = 0;
  const open = () =>
    createWriteCoordinator({
      clock,
      random: seededRandomSource(epochs + 3),
      epoch: `epoch-${++epochs}`,
      ledgerStore: ledgerStore.reopen(),
      reservationStore: reservationStore.reopen(),
    });
  return { clock, ledgerStore, open };
}

async function preflight(c: WriteCoordinator): Promise<string> {
  const pre = (await c.preflight(createCall(), async () => ({ digest: stateHash("anchor") }))) as {
    requestId: string;
  };
  return pre.requestId;
}

/**
 * The crashed process's hang: `hang()` never settles and marks the commit as hung, `hung` resolves
 * once it did, so a test goes on when the commit reached its crash point (not after a guessed time).
 */
function crashPoint(): { hang: () => Promise<never>; hung: Promise<void> } {
  let reached = () => {};
  const hung = new Promise<void>((resolve) => {
    reached = resolve;
  });
  return {
    hung,
    hang: () => {
      reached();
      return new Promise<never>(() => {});
    },
  };
}

describe("resumable creations", () => {
  for (const crashAt of STAGES) {
    it(`a crash after stage ${crashAt} resumes in a new process, each stage written once`, async () => {
      const { ledgerStore, open } = processes();
      const kernel = new StageKernel();
      const c1 = await open();
      const requestId = await preflight(c1);
      const crash = crashPoint();
      const hang = creationHooks(kernel, (s) => (s === crashAt ? crash.hang() : Promise.resolve()));
      void c1.commit(createCall({ requestId }), hang);
      await crash.hung;
      const [stored] = await ledgerStore.loadAll();
      expect(stored?.state).toBe("executing");
      expect(stored?.creation?.confirmedStages).toEqual(
        STAGES.slice(0, STAGES.indexOf(crashAt) + 1),
      );

      const c2 = await open();
      const hooks = creationHooks(kernel);
      const answer = await c2.commit(createCall({ requestId }), hooks);
      expect(answer).toMatchObject({ status: "committed", resumed: true, id: "new-0", stages: 3 });
      expect(hooks.seen[0]?.reservedIds).toEqual(["new-0"]);
      expect(kernel.writes).toBe(3);
      expect([...kernel.made.values()]).toEqual(["new-0", "new-0", "new-0"]);
      const again = await c2.commit(createCall({ requestId }), creationHooks(kernel));
      expect(again).toMatchObject({ replayed: true, executedNow: false, id: "new-0" });
      expect(kernel.writes).toBe(3);
    });
  }

  it("a crash after the complete receipt resumes without writing and answers it", async () => {
    const { open } = processes();
    const kernel = new StageKernel();
    const c1 = await open();
    const requestId = await preflight(c1);
    const hooks1 = creationHooks(kernel);
    const execute = hooks1.execute;
    const crash = crashPoint();
    void c1.commit(createCall({ requestId }), {
      ...hooks1,
      execute: async (ctx) => {
        await execute(ctx);
        return crash.hang();
      },
    });
    await crash.hung;
    const c2 = await open();
    const hooks = creationHooks(kernel);
    const answer = await c2.commit(createCall({ requestId }), hooks);
    expect(hooks.seen[0]?.receipt).toEqual({ id: "new-0", stages: 3 });
    expect(answer).toMatchObject({
      status: "committed",
      resumed: true,
      executedNow: false,
      id: "new-0",
    });
    expect(kernel.writes).toBe(3);
  });

  it("a failure between stages (unknown) resumes in the same process, past the first-execution deadline", async () => {
    const { clock, ledgerStore, open } = processes();
    const kernel = new StageKernel();
    const c = await open();
    const requestId = await preflight(c);
    const lost = creationHooks(kernel, async (s) => {
      if (s === "file") throw new Error("socket hang up");
    });
    const e = await rejection(c.commit(createCall({ requestId }), lost));
    expect(e.code).toBe("outcome_unknown");
    expect(e.details.creation).toEqual({
      reservedIds: ["new-0"],
      confirmedStages: ["block", "file"],
    });
    clock.advance(REQUEST_ID_FIRST_EXECUTION_TTL_MS + 1);
    const answer = await c.commit(createCall({ requestId }), creationHooks(kernel));
    expect(answer).toMatchObject({ status: "committed", resumed: true, executedNow: true });
    expect(kernel.writes).toBe(3);
    const [stored] = await ledgerStore.loadAll();
    expect(stored).toMatchObject({ state: "committed" });
    expect(stored?.verdict).toBe("committed");
    expect(stored?.reason).toBeUndefined();
  });

  it("a crash before any progress was recorded resumes from nothing", async () => {
    const { open } = processes();
    const kernel = new StageKernel();
    const c1 = await open();
    const requestId = await preflight(c1);
    const crash = crashPoint();
    void c1.commit(createCall({ requestId }), {
      ...creationHooks(kernel),
      execute: () => crash.hang(),
    });
    await crash.hung;
    const c2 = await open();
    const hooks = creationHooks(kernel);
    await c2.commit(createCall({ requestId }), hooks);
    expect(hooks.seen[0]).toEqual({ reservedIds: [], confirmedStages: [] });
    expect(kernel.writes).toBe(3);
  });

  it("a resumed executor that fails is recorded unknown, never failed_before_execute", async () => {
    const { ledgerStore, open } = processes();
    const kernel = new StageKernel();
    const c = await open();
    const requestId = await preflight(c);
    await rejection(
      c.commit(
        createCall({ requestId }),
        creationHooks(kernel, async (s) => {
          if (s === "block") throw new Error("lost");
        }),
      ),
    );
    const refused = Object.assign(new Error("ECONNREFUSED"), { writeDispatched: false });
    const e = await rejection(
      c.commit(createCall({ requestId }), {
        ...creationHooks(kernel),
        execute: async () => {
          throw refused;
        },
      }),
    );
    expect(e.code).toBe("outcome_unknown");
    expect(e.details.creation?.confirmedStages).toEqual(["block"]);
    expect((await ledgerStore.loadAll())[0]?.state).toBe("unknown");
  });

  it("a resume whose probe fails answers outcome_unknown with the progress and leaves the record", async () => {
    const { ledgerStore, open } = processes();
    const kernel = new StageKernel();
    const c = await open();
    const requestId = await preflight(c);
    await rejection(
      c.commit(
        createCall({ requestId }),
        creationHooks(kernel, async (s) => {
          if (s === "name") throw new Error("lost");
        }),
      ),
    );
    const before = await ledgerStore.loadAll();
    const e = await rejection(
      c.commit(
        createCall({ requestId }),
        creationHooks(kernel, undefined, async () => {
          throw new Error("anchor gone");
        }),
      ),
    );
    expect(e.code).toBe("outcome_unknown");
    expect(e.writeAttempted).toBe(false);
    expect(e.details.reason).toBe("resume_probe_failed");
    expect(e.details.creation?.confirmedStages).toEqual(["block", "file", "name"]);
    expect(await ledgerStore.loadAll()).toEqual(before);
    expect(kernel.writes).toBe(3);
  });

  it("other arguments under the same request ID still conflict; hooks that are not resumable stay unknown", async () => {
    const { open } = processes();
    const kernel = new StageKernel();
    const c = await open();
    const requestId = await preflight(c);
    await rejection(
      c.commit(
        createCall({ requestId }),
        creationHooks(kernel, async () => {
          throw new Error("lost");
        }),
      ),
    );
    const other = setCall("anchor", "other", { requestId }, mutationPolicy("none"));
    expect((await rejection(c.commit(other, creationHooks(kernel)))).code).toBe(
      "idempotency_conflict",
    );
    const plain = { ...creationHooks(kernel), resumable: false };
    const e = await rejection(c.commit(createCall({ requestId }), plain));
    expect(e.code).toBe("outcome_unknown");
    expect(e.details.reason).toBe("execute_failed");
    expect(kernel.writes).toBe(1);
  });

  it("a re-execution after failed_before_execute starts without the failed attempt's progress", async () => {
    const { ledgerStore, open } = processes();
    const kernel = new StageKernel();
    const c = await open();
    const requestId = await preflight(c);
    const refused = Object.assign(new Error("ECONNREFUSED"), { writeDispatched: false });
    await expect(
      c.commit(createCall({ requestId }), {
        ...creationHooks(kernel),
        execute: async (ctx) => {
          await ctx.recordCreation({ reservedIds: ["never-used"] });
          throw refused;
        },
      }),
    ).rejects.toBe(refused);
    expect((await ledgerStore.loadAll())[0]?.state).toBe("failed_before_execute");
    const hooks = creationHooks(kernel);
    await c.commit(createCall({ requestId }), hooks);
    expect(hooks.seen[0]).toBeUndefined();
    expect((await ledgerStore.loadAll())[0]?.creation?.reservedIds).toEqual(["new-0"]);
  });

  it("a precondition action never resumes, even with resumable hooks", async () => {
    const { open } = processes();
    const c = await open();
    const call = (extra: Record<string, unknown>) => setCall("b1", "x", extra);
    const pre = (await c.preflight(call({}), async () => ({ digest: stateHash(0) }))) as {
      requestId: string;
      expectedStateHash: string;
    };
    const args = { requestId: pre.requestId, expectedStateHash: pre.expectedStateHash };
    let runs = 0;
    const hooks: CommitHooks = {
      resumable: true,
      probe: async () => ({ digest: stateHash(0) }),
      execute: async () => {
        runs++;
        throw new Error("lost");
      },
      readback: async () => ({ outcome: "unverifiable", reason: "n/a" }),
    };
    await rejection(c.commit(call(args), hooks));
    const e = await rejection(c.commit(call(args), hooks));
    expect(e.code).toBe("outcome_unknown");
    expect(runs).toBe(1);
  });
});

describe("Ledger.recordResuming", () => {
  const scope = leaseScope({ tool: "av", action: "create", args: {}, targetIds: ["a"] });

  it("turns executing or unknown back to executing, keeping executingAt and the progress", async () => {
    const clock = new FakeClock();
    const store = new MemoryLedgerStore();
    const ledger = await Ledger.open({ store, clock });
    await ledger.recordIssued({
      requestId: "aaaa",
      scope,
      precondition: "none",
      epoch: "e1",
      issuedAt: clock.now(),
      requestIdExpiresAt: clock.now() + 600_000,
    });
    const t0 = clock.now();
    await ledger.recordExecuting("aaaa");
    await ledger.recordCreationProgress("aaaa", { reservedIds: ["x"], confirmedStage: "block" });
    await ledger.recordUnknown("aaaa", { verdict: "outcome_unknown", reason: "lost" });
    clock.advance(60_000);
    await ledger.recordResuming("aaaa");
    const reopened = await Ledger.open({ store: store.reopen(), clock });
    const entry = reopened.get("aaaa");
    expect(entry).toMatchObject({ state: "executing", executingAt: t0, updatedAt: t0 + 60_000 });
    expect(entry?.creation).toEqual({ reservedIds: ["x"], confirmedStages: ["block"] });
    expect(entry?.verdict).toBeUndefined();
    expect(entry?.reason).toBeUndefined();
    await reopened.recordResuming("aaaa");
    expect(reopened.get("aaaa")?.state).toBe("executing");
  });

  it("refuses an issued or committed record", async () => {
    const clock = new FakeClock();
    const ledger = await Ledger.open({ store: new MemoryLedgerStore(), clock });
    await ledger.recordIssued({
      requestId: "bbbb",
      scope,
      precondition: "none",
      epoch: "e1",
      issuedAt: clock.now(),
      requestIdExpiresAt: clock.now() + 600_000,
    });
    await expect(ledger.recordResuming("bbbb")).rejects.toThrow(TypeError);
    await ledger.recordExecuting("bbbb");
    await ledger.recordCommitted("bbbb", { status: "committed", resultDigest: stateHash(1) });
    await expect(ledger.recordResuming("bbbb")).rejects.toThrow(TypeError);
  });
});

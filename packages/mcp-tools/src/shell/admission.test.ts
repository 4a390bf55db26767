import { describe, expect, it } from "vitest";
import { Admission } from "./admission.js";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
const noPrep = async () => ({ go: undefined });

describe("Admission", () => {
  it("admits writes without serialising them (the coordinator's lane does) and counts them", async () => {
    const a = new Admission();
    const gate = deferred();
    const started: number[] = [];
    const writes = [1, 2, 3].map((n) =>
      a.admit("write", undefined, noPrep, async () => {
        started.push(n);
        await gate.promise;
      }),
    );
    await new Promise((r) => setImmediate(r));
    // All three run at once: a second FIFO lane here would have started only the first.
    expect(started).toEqual([1, 2, 3]);
    expect(a.counts()).toMatchObject({ inFlight: 3, writesAdmitted: 3, readsRunning: 0 });
    gate.resolve();
    await Promise.all(writes);
    expect(a.counts()).toMatchObject({ inFlight: 0, writesAdmitted: 0 });
  });

  it("runs at most four reads at once", async () => {
    const a = new Admission();
    const gate = deferred();
    let peak = 0;
    let now = 0;
    const calls = Array.from({ length: 7 }, () =>
      a.admit("read", undefined, noPrep, async () => {
        now += 1;
        peak = Math.max(peak, now);
        await gate.promise;
        now -= 1;
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(a.counts().readsRunning).toBe(4);
    gate.resolve();
    await Promise.all(calls);
    expect(peak).toBe(4);
  });

  it("refuses the call beyond the cap with queue_full without running it", async () => {
    const a = new Admission({ cap: 3 });
    const gate = deferred();
    let ran = 0;
    const held = [0, 1, 2].map(() =>
      a.admit("write", undefined, noPrep, async () => {
        ran += 1;
        await gate.promise;
      }),
    );
    const refused = await a.admit("read", undefined, noPrep, async () => {
      ran += 100;
    });
    expect(refused).toEqual({ refused: "queue_full" });
    gate.resolve();
    await Promise.all(held);
    expect(ran).toBe(3);
  });

  it("drops a queued read whose signal aborts before it runs, and a write whose signal aborted while it prepared", async () => {
    const a = new Admission({ reads: 1 });
    const gate = deferred();
    const first = a.admit("read", undefined, noPrep, () => gate.promise);
    const ctl = new AbortController();
    let ran = false;
    const second = a.admit("read", ctl.signal, noPrep, async () => {
      ran = true;
    });
    await new Promise((r) => setImmediate(r));
    ctl.abort();
    expect(await second).toEqual({ refused: "cancelled" });
    const writeCtl = new AbortController();
    const write = a.admit(
      "write",
      writeCtl.signal,
      async () => {
        writeCtl.abort();
        return { go: undefined };
      },
      async () => {
        ran = true;
      },
    );
    expect(await write).toEqual({ refused: "cancelled" });
    gate.resolve();
    await first;
    expect(ran).toBe(false);
    expect(a.counts().inFlight).toBe(0);
  });

  it("counts a running read cancelled until it settles, in its slot", async () => {
    const a = new Admission();
    const gate = deferred();
    const controller = new AbortController();
    const read = a.admit("read", controller.signal, noPrep, async () => {
      await gate.promise;
      return "done";
    });
    await new Promise((r) => setImmediate(r));
    expect(a.counts()).toMatchObject({ readsRunning: 1, readsCancelledRunning: 0 });
    controller.abort();
    expect(a.counts()).toMatchObject({ readsRunning: 1, readsCancelledRunning: 1 });
    gate.resolve();
    expect(await read).toBe("done");
    expect(a.counts()).toMatchObject({ readsRunning: 0, readsCancelledRunning: 0, inFlight: 0 });
  });
});

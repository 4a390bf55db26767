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
  it("runs writes one at a time in FIFO order", async () => {
    const a = new Admission();
    const order: string[] = [];
    const gate = deferred();
    const first = a.admit("write", undefined, noPrep, async () => {
      order.push("1-start");
      await gate.promise;
      order.push("1-end");
    });
    const second = a.admit("write", undefined, noPrep, async () => void order.push("2"));
    const third = a.admit("write", undefined, noPrep, async () => void order.push("3"));
    await new Promise((r) => setImmediate(r));
    expect(a.counts().writesRunning).toBe(1);
    expect(a.counts().writesQueued).toBe(2);
    gate.resolve();
    await Promise.all([first, second, third]);
    expect(order).toEqual(["1-start", "1-end", "2", "3"]);
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

  it("drops a queued call whose signal aborts before it runs", async () => {
    const a = new Admission();
    const gate = deferred();
    const first = a.admit("write", undefined, noPrep, () => gate.promise);
    const ctl = new AbortController();
    let ran = false;
    const second = a.admit("write", ctl.signal, noPrep, async () => {
      ran = true;
    });
    await new Promise((r) => setImmediate(r));
    ctl.abort();
    expect(await second).toEqual({ refused: "cancelled" });
    gate.resolve();
    await first;
    expect(ran).toBe(false);
    expect(a.counts().inFlight).toBe(0);
  });
});

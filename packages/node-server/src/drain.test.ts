import { describe, expect, it } from "vitest";
import { DrainGate, type DrainPhase, type DrainTicket } from "./drain.js";

/** A promise with its resolver, for driving calls and the grace by hand (no timers). */
function deferred<T = void>() {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const cutOff = (phase: DrainPhase) => `cut-${phase}`;

describe("DrainGate", () => {
  it("resolves the drain once every tracked call settled by itself", async () => {
    const gate = new DrainGate();
    const work = deferred<string>();
    const call = gate.track(async (t) => {
      t.running();
      return work.promise;
    }, cutOff);
    expect(gate.pending).toBe(1);
    const grace = deferred();
    let drained = false;
    const drain = gate.drain(grace.promise).then((r) => {
      drained = true;
      return r;
    });
    expect(gate.draining).toBe(true);
    await Promise.resolve();
    expect(drained).toBe(false);
    work.resolve("own answer");
    expect(await call).toBe("own answer");
    expect(await drain).toEqual({ settled: true, cutOff: 0 });
    expect(gate.pending).toBe(0);
  });

  it("waits for alsoAwait too", async () => {
    const gate = new DrainGate();
    const other = deferred();
    const grace = deferred();
    let drained = false;
    const drain = gate.drain(grace.promise, other.promise).then((r) => {
      drained = true;
      return r;
    });
    await Promise.resolve();
    expect(drained).toBe(false);
    other.resolve();
    expect(await drain).toEqual({ settled: true, cutOff: 0 });
  });

  it("answers pending calls by phase when the grace ends, and aborts their signal", async () => {
    const gate = new DrainGate();
    const tickets: DrainTicket[] = [];
    const never = new Promise<string>(() => undefined);
    const running = gate.track(async (t) => {
      tickets.push(t);
      t.running();
      return never;
    }, cutOff);
    const waiting = gate.track(async (t) => {
      tickets.push(t);
      return never;
    }, cutOff);
    const grace = deferred();
    const drain = gate.drain(grace.promise);
    grace.resolve();
    expect(await drain).toEqual({ settled: false, cutOff: 2 });
    expect(await running).toBe("cut-running");
    expect(await waiting).toBe("cut-waiting");
    expect(tickets.map((t) => t.signal.aborted)).toEqual([true, true]);
  });

  it("reports a grace ending with nothing tracked but alsoAwait still pending as not settled", async () => {
    const gate = new DrainGate();
    const grace = deferred();
    const drain = gate.drain(grace.promise, new Promise(() => undefined));
    grace.resolve();
    expect(await drain).toEqual({ settled: false, cutOff: 0 });
  });
});

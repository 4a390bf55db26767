import { describe, expect, it } from "vitest";
import { DrainGate, type DrainTicket } from "./admission.js";

/** A promise with its resolver, for driving calls and the grace by hand (no timers). */
function deferred<T = void>() {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const cutOff = () => "cut";

describe("DrainGate", () => {
  it("resolves the drain once every tracked call settled by itself", async () => {
    const gate = new DrainGate();
    const work = deferred<string>();
    const call = gate.track(async () => work.promise, cutOff);
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

  it("answers pending calls by their cut-off when the grace ends, asked after their signal aborted", async () => {
    const gate = new DrainGate();
    const tickets: DrainTicket[] = [];
    const never = new Promise<string>(() => undefined);
    // The cut-off sees the abort already delivered: the gateway decides from what it achieved.
    const sawAbort = (t: () => DrainTicket | undefined) => () => `cut-${t()?.signal.aborted}`;
    const first = gate.track(
      async (t) => {
        tickets.push(t);
        return never;
      },
      sawAbort(() => tickets[0]),
    );
    const second = gate.track(
      async (t) => {
        tickets.push(t);
        return never;
      },
      sawAbort(() => tickets[1]),
    );
    const grace = deferred();
    const drain = gate.drain(grace.promise);
    grace.resolve();
    expect(await drain).toEqual({ settled: false, cutOff: 2 });
    expect(await first).toBe("cut-true");
    expect(await second).toBe("cut-true");
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

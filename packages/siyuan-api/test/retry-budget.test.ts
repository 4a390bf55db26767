/** Read retry policy (bounded, jittered, configurable) and the call/byte budget hook. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createCallBudget,
  createSiyuanClient,
  resolveReadRetry,
  undiciTransport,
} from "../src/index.js";
import { failure } from "./support/failure.js";
import { ok, startWireServer, type WireServer } from "./support/wire-server.js";

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(async () => {
  await server.stop();
});

describe("read retry policy", () => {
  it("waits random × min(max, base × 2^(n−1)) between attempts and stops at maxAttempts", async () => {
    const sleeps: number[] = [];
    const client = createSiyuanClient({
      transport: undiciTransport({ baseUrl: server.url }),
      readRetry: { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 300 },
      random: () => 0.5,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    server.handle(() => ({ kind: "raw", status: 504, body: "gateway" }));
    const e = await failure(
      client.filetree.listDocsByPath({ notebook: "20260101120000-abcdefg", path: "/" }),
    );
    expect(e.code).toBe("outcome_unknown");
    expect(e.details.attempts).toBe(5);
    expect(server.requests).toHaveLength(5);
    expect(sleeps).toEqual([50, 100, 150, 150]);
    await client.close();
  });

  it("does not retry kernel rejections, decode errors or a write", async () => {
    const client = createSiyuanClient({
      transport: undiciTransport({ baseUrl: server.url }),
      sleep: async () => {},
    });
    server.handle(() => ({
      kind: "json",
      body: { code: -1, msg: "invalid ID argument", data: null },
    }));
    expect((await failure(client.block.getBlockInfo({ id: "bad" }))).code).toBe("kernel_rejected");
    server.handle(() => ok(42));
    expect((await failure(client.system.version())).code).toBe("decode");
    server.handle(() => ({ kind: "raw", status: 502, body: "x" }));
    expect(
      (
        await failure(
          client.block.moveBlock({
            id: "20260101120000-abcdefg",
            parentID: "20260101120000-bbbbbbb",
          }),
        )
      ).code,
    ).toBe("outcome_unknown");
    expect(server.requests).toHaveLength(3);
    await client.close();
  });

  it("getBlockInfo's code 3 (indexing) is retried; other reads' kernel codes are not", async () => {
    const client = createSiyuanClient({
      transport: undiciTransport({ baseUrl: server.url }),
      sleep: async () => {},
    });
    const indexing = { kind: "json" as const, body: { code: 3, msg: "indexing", data: null } };
    const info = { box: "20260101120000-boxaaaa", path: "/x.sy", rootID: "20260101120000-rootaaa" };
    server.handle((_r, i) => (i < 2 ? indexing : ok(info)));
    expect((await client.block.getBlockInfo({ id: "20260101120000-abcdefg" })).rootID).toBe(
      info.rootID,
    );
    expect(server.requests).toHaveLength(3);
    server.handle(() => indexing);
    const e = await failure(client.block.getBlockInfo({ id: "20260101120000-abcdefg" }));
    expect(e.code).toBe("kernel_rejected");
    expect(e.details.kernelCode).toBe(3);
    expect(e.details.attempts).toBe(3);
    expect(server.requests).toHaveLength(6);
    expect(await client.filetree.getDoc({ id: "20260101120000-abcdefg" })).toBeNull();
    expect(server.requests).toHaveLength(7);
    await client.close();
  });

  it("clamps the configured policy to 1..10 attempts", () => {
    expect(resolveReadRetry({ maxAttempts: 0 }).maxAttempts).toBe(1);
    expect(resolveReadRetry({ maxAttempts: 1000 }).maxAttempts).toBe(10);
    expect(resolveReadRetry().maxAttempts).toBe(3);
  });
});

describe("call budget and counters", () => {
  it("refuses calls beyond maxCalls before sending anything", async () => {
    const budget = createCallBudget({ maxCalls: 2 });
    const client = createSiyuanClient({
      transport: undiciTransport({ baseUrl: server.url }),
      budget,
    });
    server.handle(() => ok("3.7.3"));
    await client.system.version();
    await client.system.version();
    const e = await failure(client.block.deleteBlock({ id: "20260101120000-abcdefg" }));
    expect(e.code).toBe("budget_exceeded");
    expect(e.writeDispatched).toBe(false);
    expect(e.details.budget).toBe("calls");
    expect(server.requests).toHaveLength(2);
    expect(budget.usage().calls).toBe(2);
    await client.close();
  });

  it("fails a read whose answer exceeds the byte budget, but never hides a write's result", async () => {
    const budget = createCallBudget({ maxDecodedBytes: 100 });
    const client = createSiyuanClient({
      transport: undiciTransport({ baseUrl: server.url }),
      budget,
    });
    server.handle(() => ok([{ content: "x".repeat(200) }]));
    const e = await failure(client.query.sql({ stmt: "select content from blocks" }));
    expect(e.code).toBe("budget_exceeded");
    expect(e.details.budget).toBe("bytes");
    expect(e.writeDispatched).toBe(true);
    server.handle(() => ok({ id: "msg1" }));
    expect(await client.notification.pushMsg({ msg: "over budget but written" })).toBe("msg1");
    expect(budget.usage().bytes).toBeGreaterThan(200);
    await client.close();
  });

  it("withBudget: a view charged to its own budget (retries too, when it asks), sharing the counters", async () => {
    const client = createSiyuanClient({
      transport: undiciTransport({ baseUrl: server.url }),
      sleep: async () => {},
    });
    let calls = 0;
    let retries = 0;
    const perCall = {
      reserveCall: () => ++calls <= 2,
      recordBytes: () => true,
      reserveRetry: () => ++retries <= 0,
    };
    const view = client.withBudget(perCall);
    // The first answer is a 503: the read would be retried, but the budget refuses the retry.
    server.handle((_r, i) =>
      i === 0 ? { kind: "raw", status: 503, body: "" } : ok(1_700_000_000_000),
    );
    const e = await failure(view.system.currentTime());
    expect(e.code).toBe("budget_exceeded");
    expect(e.details.budget).toBe("calls");
    expect(server.requests).toHaveLength(1);
    expect(await view.system.currentTime()).toBe(1_700_000_000_000);
    expect((await failure(view.system.currentTime())).code).toBe("budget_exceeded");
    // The parent is not charged to the view's budget, and sees the view's calls in its counters.
    expect(await client.system.currentTime()).toBe(1_700_000_000_000);
    expect(client.stats().calls).toEqual({ "/api/system/currentTime": 3 });
    // A parent budget is charged as well: the view cannot escape it.
    const capped = createSiyuanClient({
      transport: undiciTransport({ baseUrl: server.url }),
      budget: createCallBudget({ maxCalls: 1 }),
    });
    const generous = createCallBudget({ maxCalls: 10 });
    await capped.withBudget(generous).system.currentTime();
    expect((await failure(capped.withBudget(generous).system.currentTime())).code).toBe(
      "budget_exceeded",
    );
    await capped.close();
    await client.close();
  });

  it("withReadRetry: a view whose reads make the given number of attempts, sharing the counters", async () => {
    const client = createSiyuanClient({
      transport: undiciTransport({ baseUrl: server.url }),
      sleep: async () => {},
    });
    server.handle((_r, i) =>
      i < 2 ? { kind: "raw", status: 503, body: "" } : ok(1_700_000_000_000),
    );
    const once = client.withReadRetry({ maxAttempts: 1 });
    expect((await failure(once.system.currentTime())).details.attempts).toBe(1);
    expect(server.requests).toHaveLength(1);
    // The parent keeps its own policy (3 attempts): its 503 is retried.
    expect(await client.system.currentTime()).toBe(1_700_000_000_000);
    expect(server.requests).toHaveLength(3);
    expect(client.stats().attempts).toEqual({ "/api/system/currentTime": 3 });
    await client.close();
  });

  it("counts calls and attempts per endpoint, and bytes; resetStats clears them", async () => {
    const client = createSiyuanClient({
      transport: undiciTransport({ baseUrl: server.url }),
      sleep: async () => {},
    });
    server.handle((_r, i) =>
      i === 0 ? { kind: "raw", status: 503, body: "" } : ok(1_700_000_000_000),
    );
    await client.system.currentTime();
    await client.system.currentTime();
    const s = client.stats();
    expect(s.calls).toEqual({ "/api/system/currentTime": 2 });
    expect(s.attempts).toEqual({ "/api/system/currentTime": 3 });
    expect(s.totalCalls).toBe(2);
    expect(s.totalAttempts).toBe(3);
    expect(s.decodedBytes).toBeGreaterThan(0);
    client.resetStats();
    expect(client.stats().totalCalls).toBe(0);
    await client.close();
  });

  it("callRaw sends unclassified endpoints once (as writes) and returns data", async () => {
    const client = createSiyuanClient({
      transport: undiciTransport({ baseUrl: server.url }),
      sleep: async () => {},
    });
    server.handle(() => ({ kind: "raw", status: 503, body: "" }));
    expect(
      (
        await failure(
          client.callRaw({ endpoint: "/api/filetree/setDocSortMode", body: { id: "x" } }),
        )
      ).details.attempts,
    ).toBe(1);
    server.handle(() => ok({ any: "thing" }));
    expect(await client.callRaw({ endpoint: "/api/x/y", kind: "read" })).toEqual({ any: "thing" });
    await client.close();
  });
});

import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORRUPTION_MARKER, DEMO_IDS as I, type Sandbox } from "../src/index.js";
import { waitFor } from "../src/testing.js";
import { flush, kramdown, ok, post, start, TOKEN } from "./helpers.js";

const UPDATE = "/api/block/updateBlock";
let sb: Sandbox;
beforeAll(async () => {
  sb = await start({ flushIntervalMs: 60_000, controlRoute: true });
});
afterAll(() => sb.stop());

const update = (text: string) =>
  post(sb, UPDATE, { id: I.paragraphJournal, dataType: "markdown", data: text });
const text = async () => (await kramdown(sb, I.paragraphJournal)).split("\n")[0];

describe("faults, observed from a plain HTTP client", () => {
  it("refuse: the connection is dropped and nothing is applied", async () => {
    sb.control.armFault({ endpoint: UPDATE, kind: "refuse" });
    await expect(update("refused")).rejects.toThrow();
    await flush(sb);
    expect(await text()).not.toBe("refused");
    expect(sb.control.log().find((e) => e.faults.includes("refuse"))).toMatchObject({
      path: UPDATE,
      status: 0,
    });
  });

  it("refuseConnections: new connections get ECONNREFUSED until resumed", async () => {
    await sb.control.refuseConnections(true);
    try {
      const code = await new Promise<string>((resolve) => {
        const s = connect(sb.port, "127.0.0.1");
        s.on("connect", () => {
          s.destroy();
          resolve("connected");
        });
        s.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "?"));
      });
      expect(code).toBe("ECONNREFUSED");
    } finally {
      await sb.control.refuseConnections(false);
    }
    expect((await post(sb, "/api/system/version")).body.data).toBe("3.7.3");
  });

  it("http5xx: answers the status before applying", async () => {
    sb.control.armFault({ endpoint: UPDATE, kind: "http5xx", status: 503 });
    const r = await fetch(sb.url + UPDATE, {
      method: "POST",
      headers: { authorization: `Token ${TOKEN}` },
      body: JSON.stringify({ id: I.paragraphJournal, dataType: "markdown", data: "five hundred" }),
    });
    expect(r.status).toBe(503);
    await flush(sb);
    expect(await text()).not.toBe("five hundred");
  });

  it("resetAfterApply: the write is applied but the caller never sees the answer", async () => {
    sb.control.armFault({ endpoint: UPDATE, kind: "resetAfterApply" });
    await expect(update("applied but lost")).rejects.toThrow();
    expect(await text()).toBe("applied but lost");
  });

  it("silentDrop: code 0 with a transaction, nothing applied", async () => {
    sb.control.armFault({ endpoint: UPDATE, kind: "silentDrop" });
    const r = await update("silently dropped");
    expect(r.body.code).toBe(0);
    expect(Array.isArray(r.body.data)).toBe(true);
    await flush(sb);
    expect(await text()).toBe("applied but lost");
  });

  it("silentDrop on setBlockAttrs: code 0, attribute unchanged", async () => {
    sb.control.armFault({ endpoint: "/api/attr/setBlockAttrs", kind: "silentDrop" });
    const r = await post(sb, "/api/attr/setBlockAttrs", {
      id: I.paragraphJournal,
      attrs: { "custom-x": "1" },
    });
    expect(r.body).toEqual({ code: 0, msg: "", data: null });
    expect(
      (await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", { id: I.paragraphJournal }))[
        "custom-x"
      ],
    ).toBeUndefined();
  });

  it("corrupt: the written content is altered", async () => {
    sb.control.armFault({ endpoint: UPDATE, kind: "corrupt" });
    expect((await update("clean")).body.code).toBe(0);
    await flush(sb);
    expect(await text()).toBe(`clean${CORRUPTION_MARKER}`);
  });

  it("holdQueue: flushTransaction waits until the queue is released", async () => {
    sb.control.armFault({ endpoint: UPDATE, kind: "holdQueue" });
    expect((await update("held")).body.code).toBe(0);
    let flushed = false;
    const f = flush(sb).then(() => {
      flushed = true;
    });
    expect(await text()).not.toBe("held");
    expect(await ok(sb, "/api/block/checkBlockExist", { id: I.paragraphJournal })).toBe(true);
    expect(flushed).toBe(false);
    expect(sb.control.pendingTransactions()).toBe(1);
    sb.control.releaseQueue();
    await f;
    expect(await text()).toBe("held");
  });

  it("delay: the delayed call answers after a later undelayed one", async () => {
    sb.control.armFault({ endpoint: "/api/block/getBlockKramdown", kind: "delay", delayMs: 300 });
    const order: string[] = [];
    const before = sb.control.count("/api/block/getBlockKramdown");
    const slow = post(sb, "/api/block/getBlockKramdown", { id: I.headingJournal }).then((r) => {
      order.push("slow");
      return r;
    });
    // The slow call reached the kernel (and took its delay) before the fast one is sent.
    await waitFor(() => sb.control.count("/api/block/getBlockKramdown") > before);
    const fast = post(sb, "/api/attr/getBlockAttrs", { id: I.headingJournal }).then(() =>
      order.push("fast"),
    );
    const [s] = await Promise.all([slow, fast]);
    expect(s.body.code).toBe(0);
    expect(order).toEqual(["fast", "slow"]);
  });

  it("hold: the call waits, holding its path, until releaseHeld; held() counts it", async () => {
    sb.control.armFault({ endpoint: UPDATE, kind: "hold" });
    const order: string[] = [];
    const held = update("held by a hold fault").then((r) => {
      order.push("held");
      return r;
    });
    await waitFor(() => sb.control.held() === 1, { what: "the update to be held" });
    // The same path waits behind it; another path answers meanwhile.
    const behind = update("after the held one").then(() => order.push("behind"));
    await post(sb, "/api/attr/getBlockAttrs", { id: I.headingJournal });
    order.push("other path");
    expect(sb.control.releaseHeld()).toBe(1);
    expect(sb.control.held()).toBe(0);
    expect((await held).body.code).toBe(0);
    await behind;
    expect(order).toEqual(["other path", "held", "behind"]);
    await flush(sb);
    expect(await text()).toBe("after the held one");
  });

  it("hold over the control route: faults/held counts, faults/release-held releases", async () => {
    const control = (op: string, body: unknown = {}) =>
      ok<Record<string, unknown>>(sb, `/__sandbox/${op}`, body);
    await control("faults/arm", { endpoint: UPDATE, kind: "hold" });
    const held = update("held over the route");
    await waitFor(async () => (await control("faults/held"))["held"] === 1);
    expect(await control("faults/release-held")).toEqual({ released: 1 });
    expect((await held).body.code).toBe(0);
  });

  it("skip and times pick the call count", async () => {
    sb.control.armFault({ endpoint: UPDATE, kind: "http5xx", skip: 1, times: 2 });
    expect((await update("one")).status).toBe(200);
    await expect(update("two")).rejects.toThrow(); // 500 body is not JSON
    await expect(update("three")).rejects.toThrow();
    expect((await update("four")).status).toBe(200);
    const f = sb.control.faults().find((x) => x.skip === 1)!;
    expect(f).toMatchObject({ seen: 4, fired: 2 });
  });

  it("per-endpoint counters and the request log", async () => {
    sb.control.resetLog();
    await kramdown(sb, I.headingJournal);
    await kramdown(sb, I.headingJournal);
    await post(sb, "/api/attr/getBlockAttrs", { id: I.headingJournal }, { token: null });
    expect(sb.control.counts()).toEqual({
      "/api/block/getBlockKramdown": 2,
      "/api/attr/getBlockAttrs": 1,
    });
    expect(sb.control.count("/api/block/getBlockKramdown")).toBe(2);
    expect(sb.control.log().map((e) => [e.path, e.status, e.code])).toEqual([
      ["/api/block/getBlockKramdown", 200, 0],
      ["/api/block/getBlockKramdown", 200, 0],
      ["/api/attr/getBlockAttrs", 401, -1],
    ]);
  });
});

describe("external writer and control route", () => {
  it("an external change between two calls is seen by the second", async () => {
    const before = await kramdown(sb, I.paragraphDecision);
    sb.control.external.updateBlock(
      I.paragraphDecision,
      'Changed in the UI\n{: custom-priority="low"}',
    );
    const after = await kramdown(sb, I.paragraphDecision);
    expect(after).not.toBe(before);
    expect(after).toMatch(
      /^Changed in the UI\n\{: id="20260101120201-pdecisn" updated="\d{14}" custom-priority="low"\}$/,
    );
    sb.control.external.setBlockAttrs(I.paragraphDecision, { "custom-priority": "mid" });
    expect(
      (
        await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", { id: I.paragraphDecision })
      )["custom-priority"],
    ).toBe("mid");
    sb.control.external.renameDoc(I.docMeeting, "Minutes");
    expect(await ok(sb, "/api/filetree/getHPathByID", { id: I.paragraphDecision })).toBe(
      "/Minutes",
    );
    sb.control.external.renameNotebook(I.notebookPersonal, "Private");
    const nbs = await ok<{ notebooks: Array<{ name: string }> }>(
      sb,
      "/api/notebook/lsNotebooks",
      {},
    );
    expect(nbs.notebooks.map((b) => b.name)).toContain("Private");
  });

  it("the /__sandbox route needs the token and drives faults and the external writer", async () => {
    const unauth = await post(sb, "/__sandbox/counts", {}, { token: null });
    expect(unauth.status).toBe(401);
    const armed = await ok<{ id: string }>(sb, "/__sandbox/faults/arm", {
      endpoint: UPDATE,
      kind: "http5xx",
      status: 502,
    });
    expect(armed.id).toMatch(/^fault-/);
    const r = await fetch(sb.url + UPDATE, {
      method: "POST",
      headers: { authorization: `Token ${TOKEN}` },
      body: "{}",
    });
    expect(r.status).toBe(502);
    await ok(sb, "/__sandbox/external/setBlockAttrs", {
      args: [I.codeJournal, { "custom-via": "http" }],
    });
    expect(
      (await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", { id: I.codeJournal }))[
        "custom-via"
      ],
    ).toBe("http");
    const counts = await ok<Record<string, number>>(sb, "/__sandbox/counts", {});
    expect(counts[UPDATE]).toBeGreaterThan(0);
  });

  it("the control route is off unless enabled", async () => {
    const plain = await start();
    try {
      const r = await fetch(`${plain.url}/__sandbox/counts`, {
        method: "POST",
        headers: { authorization: `Token ${TOKEN}` },
        body: "{}",
      });
      expect(r.status).toBe(404);
    } finally {
      await plain.stop();
    }
  });
});

describe("per-path serialisation", () => {
  it("two concurrent writes to the same path run one after the other; exempt reads do not wait", async () => {
    sb.control.armFault({ endpoint: "/api/attr/setBlockAttrs", kind: "hold" });
    const order: string[] = [];
    const first = post(sb, "/api/attr/setBlockAttrs", {
      id: I.headingJournal,
      attrs: { "custom-o": "1" },
    }).then(() => order.push("first"));
    // The first write holds the path (held inside its lock) before the second is sent.
    await waitFor(() => sb.control.held() === 1);
    const second = post(sb, "/api/attr/setBlockAttrs", {
      id: I.headingJournal,
      attrs: { "custom-o": "2" },
    }).then(() => order.push("second"));
    const read = post(sb, "/api/attr/getBlockAttrs", { id: I.headingJournal }).then(() =>
      order.push("read"),
    );
    // The exempt read answers while the path is held; the second write waits for the first.
    await read;
    expect(order).toEqual(["read"]);
    expect(sb.control.releaseHeld()).toBe(1);
    await Promise.all([first, second, read]);
    expect(order[0]).toBe("read");
    expect(order.slice(1)).toEqual(["first", "second"]);
    expect(
      (await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", { id: I.headingJournal }))[
        "custom-o"
      ],
    ).toBe("2");
  });
});

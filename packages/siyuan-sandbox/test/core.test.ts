import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_IDS as I, KERNEL_VERSION, type Sandbox } from "../src/index.js";
import { flush, kramdown, ok, post, start, TOKEN } from "./helpers.js";

let sb: Sandbox;
beforeAll(async () => {
  // a long interval: only flushTransaction (or an explicit flush) applies queued writes
  sb = await start({ flushIntervalMs: 60_000 });
});
afterAll(() => sb.stop());

describe("auth and envelope", () => {
  it("answers 401 JSON without a token, with a wrong token, and with a wrong query token", async () => {
    const none = await post(sb, "/api/notebook/lsNotebooks", {}, { token: null });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ code: -1, msg: "Auth failed [session]" });
    const wrong = await post(sb, "/api/notebook/lsNotebooks", {}, { token: "nope" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.msg).toBe("Auth failed [header: Authorization]");
    const q = await fetch(`${sb.url}/api/notebook/lsNotebooks?token=bad`, {
      method: "POST",
      body: "{}",
    });
    expect(q.status).toBe(401);
    expect(((await q.json()) as { msg: string }).msg).toBe("Auth failed [query: token]");
    const good = await fetch(`${sb.url}/api/notebook/lsNotebooks?token=${TOKEN}`, {
      method: "POST",
      body: "{}",
    });
    expect(good.status).toBe(200);
  });

  it("accepts Token, token, Bearer and bearer schemes", async () => {
    for (const scheme of ["Token", "token", "Bearer", "bearer"]) {
      const r = await fetch(`${sb.url}/api/system/bootProgress`, {
        method: "POST",
        headers: { authorization: `${scheme} ${TOKEN}` },
      });
      expect(r.status).toBe(200);
      const r2 = await fetch(`${sb.url}/api/block/getBlockKramdown`, {
        method: "POST",
        headers: { authorization: `${scheme} ${TOKEN}` },
        body: JSON.stringify({ id: I.paragraphGoals }),
      });
      expect(((await r2.json()) as { code: number }).code).toBe(0);
    }
  });

  it("serves version, currentTime and bootProgress without auth", async () => {
    const v = await fetch(`${sb.url}/api/system/version`);
    expect(await v.json()).toEqual({ code: 0, msg: "", data: KERNEL_VERSION });
    const t = await post<number>(sb, "/api/system/currentTime", undefined, { token: null });
    expect(typeof t.body.data).toBe("number");
    const b = await post<{ progress: number }>(sb, "/api/system/bootProgress", undefined, {
      token: null,
    });
    expect(b.body.data.progress).toBe(100);
  });

  it("answers -1 'Parses request' for an empty or non-object body", async () => {
    const empty = await post(sb, "/api/block/getBlockKramdown", undefined, { rawBody: "" });
    expect(empty.status).toBe(200);
    expect(empty.body.code).toBe(-1);
    expect(empty.body.msg).toBe(
      "Parses request [/api/block/getBlockKramdown] failed: the request body is empty or truncated (EOF)",
    );
    const arr = await post(sb, "/api/block/getBlockKramdown", undefined, { rawBody: "[1]" });
    expect(arr.body.code).toBe(-1);
    expect(arr.body.msg).toMatch(/^Parses request \[\/api\/block\/getBlockKramdown\] failed: /);
  });

  it("lsNotebooks tolerates a non-JSON body", async () => {
    const r = await post<{ notebooks: unknown[] }>(sb, "/api/notebook/lsNotebooks", undefined, {
      rawBody: "x",
    });
    expect(r.body.code).toBe(0);
    expect(r.body.data.notebooks.length).toBeGreaterThanOrEqual(2);
  });

  it("answers a missing id like the kernel's recovered panic (code 0, data null)", async () => {
    const r = await post(sb, "/api/block/getBlockKramdown", {});
    expect(r.body).toEqual({ code: 0, msg: "", data: null });
  });

  it("answers -1 invalid ID argument for a malformed ID", async () => {
    const r = await post(sb, "/api/block/getBlockKramdown", { id: "nope" });
    expect(r.body).toEqual({ code: -1, msg: "invalid ID argument", data: null });
  });

  it("answers 404 for unknown routes and 204 to OPTIONS", async () => {
    const nope = await fetch(`${sb.url}/api/nope/nope`, { method: "POST", body: "{}" });
    expect(nope.status).toBe(404);
    expect(await nope.text()).toBe("404 page not found");
    const get = await fetch(`${sb.url}/api/block/getBlockKramdown`, {
      headers: { authorization: `Token ${TOKEN}` },
    });
    expect(get.status).toBe(404);
    const o = await fetch(`${sb.url}/api/block/updateBlock`, { method: "OPTIONS" });
    expect(o.status).toBe(204);
    expect(o.headers.get("access-control-allow-headers")).toContain("Authorization");
  });
});

describe("block reads", () => {
  it("getBlockKramdown: found (IAL lines), unknown (code 0, empty), invalid mode", async () => {
    const k = await kramdown(sb, I.paragraphGoals);
    expect(k).toBe(
      `Ship the **sandbox** with *faithful* behaviour; see ((${I.paragraphDecision} "the decision")).\n{: id="${I.paragraphGoals}" updated="20260101120102"}`,
    );
    const unknown = await post(sb, "/api/block/getBlockKramdown", { id: "20200101000000-zzzzzzz" });
    expect(unknown.body).toEqual({
      code: 0,
      msg: "",
      data: { id: "20200101000000-zzzzzzz", kramdown: "" },
    });
    const bad = await post(sb, "/api/block/getBlockKramdown", { id: I.paragraphGoals, mode: "x" });
    expect(bad.body.code).toBe(-1);
    expect(bad.body.msg).toBe("Invalid mode");
  });

  it("getBlockKramdown textmark mode renders inline marks as spans", async () => {
    const r = await ok<{ kramdown: string }>(sb, "/api/block/getBlockKramdown", {
      id: I.paragraphGoals,
      mode: "textmark",
    });
    expect(r.kramdown).toContain('<span data-type="strong">sandbox</span>');
    expect(r.kramdown).toContain(`{: id="${I.paragraphGoals}"`);
  });

  it("getBlockKramdown of a document ends with the document IAL", async () => {
    const k = await kramdown(sb, I.docMeeting);
    expect(k.split("\n").pop()).toMatch(
      new RegExp(`^\\{: id="${I.docMeeting}" title="Meeting Notes" type="doc" updated="\\d{14}"`),
    );
    expect(k).toContain(
      `> Faithful beats *fast*, but both are ==nice==.\n> {: id="${I.paragraphQuote}"`,
    );
  });

  it("list kramdown puts item IALs after the marker", async () => {
    const k = await kramdown(sb, I.listTasks);
    // SiYuan 3.7.3 writes `-` for bullet and task items (kernel-probes block.reads)
    expect(k.split("\n")[0]).toBe(
      `- {: id="${I.itemTaskParser}" updated="20260101120105"}[ ] Write the **parser**`,
    );
    expect(k.split("\n").pop()).toBe(`{: id="${I.listTasks}" updated="20260101120104"}`);
  });

  it("getBlockKramdowns maps found IDs", async () => {
    const m = await ok<Record<string, string>>(sb, "/api/block/getBlockKramdowns", {
      ids: [I.headingGoals, "20200101000000-zzzzzzz"],
    });
    expect(Object.keys(m)).toEqual([I.headingGoals]);
    expect(m[I.headingGoals]).toMatch(/^# Goals\n\{: id=/);
  });

  it("getBlockDOM renders data-node-id, data-type, class, IAL attrs and inline spans", async () => {
    const d = await ok<{ id: string; dom: string }>(sb, "/api/block/getBlockDOM", {
      id: I.paragraphGoals,
    });
    expect(
      d.dom.startsWith(
        `<div data-node-id="${I.paragraphGoals}" data-node-index="1" data-type="NodeParagraph" class="p" updated="20260101120102">`,
      ),
    ).toBe(true);
    expect(d.dom).toContain('<span data-type="strong">sandbox</span>');
    expect(d.dom).toContain('<span data-type="em">faithful</span>');
    expect(d.dom).toContain(
      `<span data-type="block-ref" data-subtype="s" data-id="${I.paragraphDecision}">the decision</span>`,
    );
    const h = await ok<{ dom: string }>(sb, "/api/block/getBlockDOM", { id: I.headingGoals });
    expect(
      h.dom.startsWith(
        `<div data-subtype="h1" data-node-id="${I.headingGoals}" data-node-index="1" data-type="NodeHeading" class="h1"`,
      ),
    ).toBe(true);
    const doc = await ok<{ dom: string }>(sb, "/api/block/getBlockDOM", { id: I.docPlan });
    expect(doc.dom).toContain(`data-node-id="${I.headingGoals}" data-node-index="1"`);
    const unknown = await post(sb, "/api/block/getBlockDOM", { id: "20200101000000-zzzzzzz" });
    expect(unknown.body).toEqual({
      code: 0,
      msg: "",
      data: { id: "20200101000000-zzzzzzz", dom: "" },
    });
    const many = await ok<Record<string, string>>(sb, "/api/block/getBlockDOMs", {
      ids: [I.headingGoals],
    });
    expect(Object.keys(many)).toEqual([I.headingGoals]);
  });

  it("getChildBlocks: doc children, heading section, leaf and unknown give []", async () => {
    const kids = await ok<Array<{ id: string; type: string; subType?: string }>>(
      sb,
      "/api/block/getChildBlocks",
      { id: I.docPlan },
    );
    expect(kids.map((k) => k.id)).toEqual([
      I.headingGoals,
      I.paragraphGoals,
      I.headingTasks,
      I.listTasks,
      I.paragraphStatus,
    ]);
    expect(kids[0]).toMatchObject({ type: "h", subType: "h1" });
    const section = await ok<Array<{ id: string }>>(sb, "/api/block/getChildBlocks", {
      id: I.headingTasks,
    });
    expect(section.map((k) => k.id)).toEqual([I.listTasks, I.paragraphStatus]);
    expect(await ok(sb, "/api/block/getChildBlocks", { id: I.paragraphGoals })).toEqual([]);
    expect(await ok(sb, "/api/block/getChildBlocks", { id: "20200101000000-zzzzzzz" })).toEqual([]);
  });

  it("getBlockInfo: found and unknown", async () => {
    const info = await ok(sb, "/api/block/getBlockInfo", { id: I.paragraphTaskParser });
    expect(info).toEqual({
      box: I.notebookResearch,
      path: `/${I.docPlan}.sy`,
      rootID: I.docPlan,
      rootTitle: "Project Plan",
      rootTitleEmpty: false,
      // the kernel walks parent IDs up to the document (kernel-probes block.reads)
      rootChildID: I.docPlan,
      rootIcon: "",
    });
    const r = await post(sb, "/api/block/getBlockInfo", { id: "20200101000000-zzzzzzz" });
    expect(r.body.code).toBe(-1);
    expect(r.body.msg).toBe("Content block with id [20200101000000-zzzzzzz] not found");
  });

  it("checkBlockExist", async () => {
    expect(await ok(sb, "/api/block/checkBlockExist", { id: I.paragraphGoals })).toBe(true);
    expect(await ok(sb, "/api/block/checkBlockExist", { id: "20200101000000-zzzzzzz" })).toBe(
      false,
    );
  });
});

describe("the asynchronous write queue", () => {
  it("a read straight after updateBlock sees the old state; after flushTransaction the new one", async () => {
    const before = await kramdown(sb, I.paragraphJournal);
    const tx = await ok<
      Array<{ doOperations: Array<Record<string, unknown>>; undoOperations: null }>
    >(sb, "/api/block/updateBlock", {
      id: I.paragraphJournal,
      dataType: "markdown",
      data: "Queued **edit**",
    });
    expect(tx).toHaveLength(1);
    expect(tx[0]!.undoOperations).toBeNull();
    const op = tx[0]!.doOperations[0]!;
    expect(op.action).toBe("update");
    expect(op.id).toBe(I.paragraphJournal);
    expect(op.data).toContain('<span data-type="strong">edit</span>');
    expect(Object.keys(op)).toHaveLength(29);
    expect(await kramdown(sb, I.paragraphJournal)).toBe(before);
    expect(sb.control.pendingTransactions()).toBe(1);
    await flush(sb);
    expect(await kramdown(sb, I.paragraphJournal)).toMatch(
      /^Queued \*\*edit\*\*\n\{: id="20260101120402-pjrnl01" updated="\d{14}"\}$/,
    );
  });

  it("the SQL index lags the tree until flushed", async () => {
    await ok(sb, "/api/attr/setBlockAttrs", {
      id: I.paragraphDecision,
      attrs: { "custom-lag": "yes" },
    });
    const attrsNow = await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", {
      id: I.paragraphDecision,
    });
    expect(attrsNow["custom-lag"]).toBe("yes");
    const stmt = `SELECT value FROM attributes WHERE block_id='${I.paragraphDecision}' AND name='custom-lag'`;
    expect(await ok(sb, "/api/query/sql", { stmt })).toEqual([]);
    await flush(sb);
    expect(await ok(sb, "/api/query/sql", { stmt })).toEqual([{ value: "yes" }]);
  });

  it("an insert at an unknown anchor answers code 0 and fails only asynchronously", async () => {
    const failuresBefore = sb.control.transactionFailures().length;
    const r = await post<unknown[]>(sb, "/api/block/insertBlock", {
      dataType: "markdown",
      data: "orphan",
      previousID: "20200101000000-zzzzzzz",
    });
    expect(r.body.code).toBe(0);
    await flush(sb);
    const failures = sb.control.transactionFailures();
    expect(failures.length).toBe(failuresBefore + 1);
    expect(failures.at(-1)!.message).toContain("block not found");
  });

  it("an external delete between the queued update and its application: code 0, async failure, nothing written", async () => {
    const [id] = sb.control.external.appendBlock(I.docReading, "target");
    const r = await post(sb, "/api/block/updateBlock", {
      id,
      dataType: "markdown",
      data: "lost update",
    });
    expect(r.body.code).toBe(0);
    sb.control.external.deleteBlock(id!);
    const before = sb.control.transactionFailures().length;
    await flush(sb);
    expect(sb.control.transactionFailures().length).toBe(before + 1);
    expect(await ok(sb, "/api/block/checkBlockExist", { id })).toBe(false);
  });

  it("setBlockAttrs waits for the write queue first: a queued update of the block lands before the attributes", async () => {
    const [id] = sb.control.external.appendBlock(I.docReading, "plain");
    await ok(sb, "/api/block/updateBlock", { id, dataType: "markdown", data: "> quoted" });
    expect(await kramdown(sb, id!)).toMatch(/^plain\n/);
    await ok(sb, "/api/attr/setBlockAttrs", { id, attrs: { "custom-kept": "yes" } });
    const k = await kramdown(sb, id!);
    expect(k).toMatch(/^> quoted\n/);
    expect(k).toContain('custom-kept="yes"');
  });

  it("deleteBlock is queued: the block is still readable until flushed", async () => {
    const [id] = sb.control.external.appendBlock(I.docReading, "to be deleted");
    const tx = await ok<Array<{ doOperations: Array<{ action: string; data: unknown }> }>>(
      sb,
      "/api/block/deleteBlock",
      { id },
    );
    expect(tx[0]!.doOperations[0]).toMatchObject({ action: "delete", data: null });
    expect(await ok(sb, "/api/block/checkBlockExist", { id })).toBe(true);
    await flush(sb);
    expect(await ok(sb, "/api/block/checkBlockExist", { id })).toBe(false);
  });
});

describe("flushBeforeReply (kernel-exact replies)", () => {
  it("block writes answer after the queue is applied, deleteBlock still does not wait", async () => {
    const exact = await start({ flushIntervalMs: 60_000, flushBeforeReply: true });
    try {
      await ok(exact, "/api/block/updateBlock", {
        id: I.paragraphQuote,
        dataType: "markdown",
        data: "now visible",
      });
      expect(await kramdown(exact, I.paragraphQuote)).toMatch(/^now visible\n/);
      await ok(exact, "/api/block/deleteBlock", { id: I.paragraphQuote });
      expect(await ok(exact, "/api/block/checkBlockExist", { id: I.paragraphQuote })).toBe(true);
      await flush(exact);
      expect(await ok(exact, "/api/block/checkBlockExist", { id: I.paragraphQuote })).toBe(false);
    } finally {
      await exact.stop();
    }
  });
});

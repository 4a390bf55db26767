import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_IDS as I, type Sandbox } from "../src/index.js";
import { flush, kramdown, ok, post, start } from "./helpers.js";

type Tx = Array<{
  timestamp: number;
  doOperations: Array<Record<string, unknown>>;
  undoOperations: null;
}>;
const UNKNOWN = "20200101000000-zzzzzzz";

let sb: Sandbox;
beforeAll(async () => {
  sb = await start({ flushIntervalMs: 60_000 });
});
afterAll(() => sb.stop());

async function children(id: string): Promise<string[]> {
  return (await ok<Array<{ id: string }>>(sb, "/api/block/getChildBlocks", { id })).map(
    (c) => c.id,
  );
}

describe("insert / prepend / append", () => {
  it("insertBlock after previousID: reply carries the new ID and parent before the flush", async () => {
    const tx = await ok<Tx>(sb, "/api/block/insertBlock", {
      dataType: "markdown",
      data: "first new\n\nsecond new",
      previousID: I.paragraphGoals,
    });
    const op = tx[0]!.doOperations[0]!;
    expect(op.action).toBe("insert");
    expect(op.parentID).toBe(I.docPlan);
    expect(op.previousID).toBe(I.paragraphGoals);
    expect(String(op.id)).toMatch(/^\d{14}-[a-z0-9]{7}$/);
    expect(await ok(sb, "/api/block/checkBlockExist", { id: op.id })).toBe(false);
    await flush(sb);
    const kids = await children(I.docPlan);
    const at = kids.indexOf(I.paragraphGoals);
    expect(kids[at + 1]).toBe(op.id);
    expect(await kramdown(sb, String(op.id))).toMatch(/^first new\n\{: id=/);
    expect(await kramdown(sb, kids[at + 2]!)).toMatch(/^second new\n/);
  });

  it("insertBlock nextID wins over previousID; new block's updated is its ID time", async () => {
    const tx = await ok<Tx>(sb, "/api/block/insertBlock", {
      dataType: "markdown",
      data: "before goals heading",
      nextID: I.headingGoals,
      previousID: I.paragraphStatus,
    });
    await flush(sb);
    const id = String(tx[0]!.doOperations[0]!.id);
    expect((await children(I.docPlan))[0]).toBe(id);
    const attrs = await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", { id });
    expect(attrs.updated).toBe(id.slice(0, 14));
  });

  it("insertBlock with only parentID: container required, with the kernel's messages", async () => {
    const h = await post(sb, "/api/block/insertBlock", {
      dataType: "markdown",
      data: "x",
      parentID: I.headingGoals,
    });
    expect(h.body.code).toBe(-1);
    expect(h.body.msg).toMatch(
      /^heading \[20260101120101-hgoals1\] is a leaf block and cannot have children; /,
    );
    const p = await post(sb, "/api/block/insertBlock", {
      dataType: "markdown",
      data: "x",
      parentID: I.paragraphGoals,
    });
    expect(p.body.msg).toMatch(
      /^block \[20260101120102-pgoals1\] type "p" is a leaf block and cannot have children; /,
    );
    const u = await post(sb, "/api/block/insertBlock", {
      dataType: "markdown",
      data: "x",
      parentID: UNKNOWN,
    });
    expect(u.body).toMatchObject({ code: -1, msg: `parent block not found: ${UNKNOWN}` });
    const bad = await post(sb, "/api/block/insertBlock", {
      dataType: "markdown",
      data: "x",
      previousID: "bad",
    });
    expect(bad.body).toMatchObject({ code: -1, msg: "invalid ID argument" });
  });

  it("rejects invalid IDs found in the data", async () => {
    const r = await post(sb, "/api/block/appendBlock", {
      dataType: "markdown",
      data: 'x\n{: id="not-an-id"}',
      parentID: I.docReading,
    });
    expect(r.body).toMatchObject({
      code: -1,
      msg: "data block DOM failed: found invalid ID [not-an-id]",
    });
  });

  it("prependBlock and appendBlock place first and last children", async () => {
    const pre = await ok<Tx>(sb, "/api/block/prependBlock", {
      dataType: "markdown",
      data: "## Top",
      parentID: I.docMeeting,
    });
    const app = await ok<Tx>(sb, "/api/block/appendBlock", {
      dataType: "markdown",
      data: "bottom",
      parentID: I.docMeeting,
    });
    // SiYuan 3.7.3 answers both with an `insert` op (kernel-probes block.append-prepend)
    expect(pre[0]!.doOperations[0]!.action).toBe("insert");
    expect(app[0]!.doOperations[0]!.action).toBe("insert");
    await flush(sb);
    const kids = await children(I.docMeeting);
    expect(kids[0]).toBe(pre[0]!.doOperations[0]!.id);
    expect(kids.at(-1)).toBe(app[0]!.doOperations[0]!.id);
  });

  it("appendBlock into a list turns a list item into an item of that list", async () => {
    const tx = await ok<Tx>(sb, "/api/block/appendBlock", {
      dataType: "markdown",
      data: "* [ ] Ship it",
      parentID: I.listTasks,
    });
    await flush(sb);
    const kids = await children(I.listTasks);
    expect(kids).toHaveLength(3);
    expect(kids[2]).toBe(tx[0]!.doOperations[0]!.id);
    expect(await kramdown(sb, I.listTasks)).toContain("[ ] Ship it");
  });

  it("accepts dataType dom", async () => {
    const tx = await ok<Tx>(sb, "/api/block/appendBlock", {
      dataType: "dom",
      data: '<div data-type="NodeParagraph" class="p"><div contenteditable="true">from <span data-type="strong">dom</span></div></div>',
      parentID: I.docReading,
    });
    await flush(sb);
    expect(await kramdown(sb, String(tx[0]!.doOperations[0]!.id))).toMatch(/^from \*\*dom\*\*\n/);
  });
});

describe("updateBlock", () => {
  it("replaces the IAL with the one in the data: custom attributes not repeated are lost", async () => {
    expect(
      (await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", { id: I.paragraphStatus }))[
        "custom-status"
      ],
    ).toBe("draft");
    await ok(sb, "/api/block/updateBlock", {
      id: I.paragraphStatus,
      dataType: "markdown",
      data: 'Status: final\n{: custom-owner="bo" id="20200101000000-zzzzzzz"}',
    });
    await flush(sb);
    const attrs = await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", {
      id: I.paragraphStatus,
    });
    expect(attrs.id).toBe(I.paragraphStatus);
    expect(attrs["custom-status"]).toBeUndefined();
    expect(attrs["custom-owner"]).toBe("bo");
    expect(attrs.updated).toMatch(/^\d{14}$/);
    expect(attrs.updated).not.toBe("20260101120109");
  });

  it("several blocks in the data: the first keeps the ID, the others are dropped", async () => {
    // SiYuan 3.7.3's doUpdate keeps the data's first block only (kernel-probes block.updateBlock)
    const before = await children(I.docMilestones);
    const tx = await ok<Tx>(sb, "/api/block/updateBlock", {
      id: I.paragraphMilestones,
      dataType: "markdown",
      data: "one\n\ntwo",
    });
    // the reply still shows both
    expect(tx[0]!.doOperations[0]!.data).toContain("two");
    await flush(sb);
    expect(await kramdown(sb, I.paragraphMilestones)).toMatch(/^one\n/);
    expect(await children(I.docMilestones)).toEqual(before);
  });

  it("unknown ID → -1; malformed → invalid ID argument", async () => {
    const r = await post(sb, "/api/block/updateBlock", {
      id: UNKNOWN,
      dataType: "markdown",
      data: "x",
    });
    expect(r.body).toMatchObject({ code: -1, msg: "get block failed: tree not found" });
    const m = await post(sb, "/api/block/updateBlock", {
      id: "x",
      dataType: "markdown",
      data: "x",
    });
    expect(m.body).toMatchObject({ code: -1, msg: "invalid ID argument" });
  });

  it("an update of a block created by a still-queued insert is accepted", async () => {
    const tx = await ok<Tx>(sb, "/api/block/appendBlock", {
      dataType: "markdown",
      data: "fresh",
      parentID: I.docReading,
    });
    const id = String(tx[0]!.doOperations[0]!.id);
    const r = await post(sb, "/api/block/updateBlock", {
      id,
      dataType: "markdown",
      data: "fresher",
    });
    expect(r.body.code).toBe(0);
    await flush(sb);
    expect(await kramdown(sb, id)).toMatch(/^fresher\n/);
  });

  it("updating a list item with '* x' unwraps the list: the item keeps its ID", async () => {
    await ok(sb, "/api/block/updateBlock", {
      id: I.itemTaskContract,
      dataType: "markdown",
      data: "* [X] Read the contract twice",
    });
    await flush(sb);
    expect(await children(I.listTasks)).toContain(I.itemTaskContract);
    expect(await kramdown(sb, I.itemTaskContract)).toMatch(/Read the contract twice/);
    expect(
      (
        await ok<Array<{ type: string }>>(sb, "/api/block/getChildBlocks", {
          id: I.itemTaskContract,
        })
      ).map((c) => c.type),
    ).toEqual(["p"]);
  });

  it("updating a document replaces all of its children", async () => {
    const doc = await ok<string>(sb, "/api/filetree/createDocWithMd", {
      notebook: I.notebookPersonal,
      path: "/Scratch",
      markdown: "a\n\nb",
    });
    await ok(sb, "/api/block/updateBlock", { id: doc, dataType: "markdown", data: "only one" });
    await flush(sb);
    const kids = await ok<Array<{ content: string }>>(sb, "/api/block/getChildBlocks", { id: doc });
    expect(kids.map((k) => k.content)).toEqual(["only one"]);
  });
});

describe("batchUpdateBlock", () => {
  const BATCH = "/api/block/batchUpdateBlock";
  let n = 0;
  /** The blocks of a fresh document holding `markdown`. */
  const scratch = (markdown: string) =>
    children(sb.control.external.createDoc(I.notebookPersonal, `/Batch ${++n}`, markdown));
  const md = (id: string, data: string) => ({ id, dataType: "markdown", data });

  it("one transaction with an update per block, answered before it is applied", async () => {
    const [a, b] = (await scratch("one\n\ntwo")) as [string, string];
    const tx = await ok<Tx>(sb, BATCH, {
      blocks: [md(a, "one new"), md(b, 'two new\n{: custom-k="v"}')],
    });
    expect(tx).toHaveLength(1);
    expect(tx[0]!.doOperations.map((o) => [o.action, o.id])).toEqual([
      ["update", a],
      ["update", b],
    ]);
    expect(await kramdown(sb, a)).toMatch(/^one\n/);
    await flush(sb);
    expect(await kramdown(sb, a)).toMatch(/^one new\n/);
    expect(await kramdown(sb, b)).toMatch(/^two new\n/);
    const attrs = await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", { id: b });
    expect(attrs["custom-k"]).toBe("v");
  });

  it("checks every block before queueing: one bad block refuses the call, nothing is applied", async () => {
    const [a] = (await scratch("keep me")) as [string];
    const unknown = await post(sb, BATCH, { blocks: [md(a, "changed"), md(UNKNOWN, "x")] });
    expect(unknown.body).toMatchObject({ code: -1, msg: "get block failed: tree not found" });
    const malformed = await post(sb, BATCH, { blocks: [md(a, "changed"), md("bad", "x")] });
    expect(malformed.body).toMatchObject({ code: -1, msg: "invalid ID argument" });
    await flush(sb);
    expect(await kramdown(sb, a)).toMatch(/^keep me\n/);
    expect((await post(sb, BATCH, {})).body.msg).toBe("Field [blocks] is required");
    expect((await post(sb, BATCH, { blocks: [] })).body.msg).toBe(
      "Field [blocks] must not be empty",
    );
  });

  it("a block gone when the transaction runs: none of its updates are applied", async () => {
    const [a, b] = (await scratch("one\n\ntwo")) as [string, string];
    await ok(sb, BATCH, { blocks: [md(a, "one new"), md(b, "two new")] });
    sb.control.external.deleteBlock(b);
    const seen = sb.control.transactionFailures().length;
    await flush(sb);
    expect(await kramdown(sb, a)).toMatch(/^one\n/);
    expect(
      sb.control
        .transactionFailures()
        .slice(seen)
        .map((f) => f.endpoint),
    ).toEqual([BATCH]);
  });
});

describe("transferBlockRef", () => {
  it("repoints static refs (text kept) and dynamic refs (text from the target)", async () => {
    expect(await kramdown(sb, I.paragraphJournal)).toContain(`((${I.paragraphGoals} 'the goals'))`);
    await ok(sb, "/api/block/transferBlockRef", { fromID: I.paragraphGoals, toID: I.headingTasks });
    expect(await kramdown(sb, I.paragraphJournal)).toContain(`((${I.headingTasks} 'Tasks'))`);
    expect(
      (await post(sb, "/api/block/transferBlockRef", { fromID: I.paragraphGoals, toID: UNKNOWN }))
        .body,
    ).toMatchObject({
      code: -1,
      msg: "block not found",
    });
    expect(
      (await post(sb, "/api/block/transferBlockRef", { fromID: "bad", toID: I.headingTasks })).body
        .msg,
    ).toBe("invalid ID argument");
  });
});

describe("moveBlock, fold", () => {
  it("moveBlock after previousID answers null and moves on flush", async () => {
    const r = await post(sb, "/api/block/moveBlock", {
      id: I.headingGoals,
      previousID: I.paragraphGoals,
    });
    expect(r.body).toEqual({ code: 0, msg: "", data: null });
    await flush(sb);
    const kids = await children(I.docPlan);
    expect(kids.indexOf(I.headingGoals)).toBe(kids.indexOf(I.paragraphGoals) + 1);
  });

  it("insertBlock after a folded heading goes after the blocks under it", async () => {
    await ok(sb, "/api/block/foldBlock", { id: I.headingJournal });
    const tx = await ok<Tx>(sb, "/api/block/insertBlock", {
      dataType: "markdown",
      data: "after the fold",
      previousID: I.headingJournal,
    });
    await flush(sb);
    const kids = await children(I.docJournal);
    expect(kids.at(-1)).toBe(tx[0]!.doOperations[0]!.id);
    await ok(sb, "/api/block/unfoldBlock", { id: I.headingJournal });
    await flush(sb);
  });

  it("moveBlock errors", async () => {
    expect(
      (await post(sb, "/api/block/moveBlock", { id: UNKNOWN, parentID: I.docPlan })).body,
    ).toMatchObject({
      code: -1,
      msg: `block not found [id=${UNKNOWN}]`,
    });
    expect(
      (await post(sb, "/api/block/moveBlock", { id: I.headingGoals, previousID: I.docPlan })).body
        .msg,
    ).toBe("`previousID` can not be the ID of a document");
    expect(
      (await post(sb, "/api/block/moveBlock", { id: I.headingGoals, parentID: UNKNOWN })).body.msg,
    ).toBe(`target block not found [id=${UNKNOWN}]`);
    expect(
      (
        await post(sb, "/api/block/moveBlock", {
          id: I.itemTaskParser,
          parentID: I.itemTaskContract,
        })
      ).body.msg,
    ).toMatch(/^a list-item cannot directly contain another list-item/);
  });

  it("foldBlock sets fold=1 (heading children get heading-fold); unfold removes; documents refused", async () => {
    await ok(sb, "/api/block/foldBlock", { id: I.headingTasks });
    await flush(sb);
    expect(
      (await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", { id: I.headingTasks }))
        .fold,
    ).toBe("1");
    expect(
      (await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", { id: I.listTasks }))[
        "heading-fold"
      ],
    ).toBe("1");
    await ok(sb, "/api/block/unfoldBlock", { id: I.headingTasks });
    await flush(sb);
    expect(
      (await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", { id: I.headingTasks }))
        .fold,
    ).toBeUndefined();
    expect((await post(sb, "/api/block/foldBlock", { id: I.docPlan })).body.msg).toBe(
      "document can not be folded",
    );
    expect((await post(sb, "/api/block/foldBlock", { id: UNKNOWN })).body.msg).toBe(
      `block tree not found [id=${UNKNOWN}]`,
    );
  });
});

describe("attributes", () => {
  it("getBlockAttrs: found, unknown gives {}", async () => {
    const a = await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", {
      id: I.paragraphDecision,
    });
    expect(a).toMatchObject({ id: I.paragraphDecision, "custom-priority": "high" });
    expect(await ok(sb, "/api/attr/getBlockAttrs", { id: UNKNOWN })).toEqual({});
  });

  it("setBlockAttrs: lowercases names, trims, deletes on null/'' and keeps updated", async () => {
    const before = await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", {
      id: I.paragraphQuote,
    });
    expect(
      await ok(sb, "/api/attr/setBlockAttrs", {
        id: I.paragraphQuote,
        attrs: { "Custom-A": '  x <b> "q" ', "custom-b": "y" },
      }),
    ).toBeNull();
    let a = await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", {
      id: I.paragraphQuote,
    });
    expect(a["custom-a"]).toBe('x <b> "q"');
    expect(a.updated).toBe(before.updated);
    expect(await kramdown(sb, I.paragraphQuote)).toContain('custom-a="x &lt;b&gt; &quot;q&quot;"');
    await ok(sb, "/api/attr/setBlockAttrs", {
      id: I.paragraphQuote,
      attrs: { "custom-a": null, "custom-b": "" },
    });
    a = await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", { id: I.paragraphQuote });
    expect(a["custom-a"]).toBeUndefined();
    expect(a["custom-b"]).toBeUndefined();
  });

  it("setBlockAttrs errors: non-string value, bad name, unknown block", async () => {
    expect(
      (
        await post(sb, "/api/attr/setBlockAttrs", {
          id: I.paragraphQuote,
          attrs: { "custom-n": 1 },
        })
      ).body,
    ).toMatchObject({
      code: -1,
      msg: "the value of attr [custom-n] must be a string",
    });
    const task = await post(sb, "/api/attr/setBlockAttrs", {
      id: I.paragraphQuote,
      attrs: { "data-task": "v" },
    });
    expect(task.body.msg).toMatch(/^setting or removing \[data-task\] attribute is not allowed/);
    for (const name of ["1abc", "custom-1x", "a_b"]) {
      const r = await post(sb, "/api/attr/setBlockAttrs", {
        id: I.paragraphQuote,
        attrs: { [name]: "v" },
      });
      expect(r.body.code).toBe(-1);
      expect(r.body.msg).toMatch(/^The attribute name can only contain lowercase English letters/);
    }
    expect(
      (await post(sb, "/api/attr/setBlockAttrs", { id: UNKNOWN, attrs: { "custom-x": "1" } })).body,
    ).toMatchObject({
      code: -1,
      msg: "tree not found",
    });
  });

  it("tags are cleaned", async () => {
    await ok(sb, "/api/attr/setBlockAttrs", { id: I.docJournal, attrs: { tags: " a, b ,a,, c" } });
    expect(
      (await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", { id: I.docJournal })).tags,
    ).toBe("a,b,c");
  });

  it("batchSetBlockAttrs and batchGetBlockAttrs", async () => {
    await ok(sb, "/api/attr/batchSetBlockAttrs", {
      blockAttrs: [
        { id: I.headingJournal, attrs: { "custom-k": "1" } },
        { id: I.codeJournal, attrs: { "custom-k": "2" } },
      ],
    });
    const m = await ok<Record<string, Record<string, string>>>(sb, "/api/attr/batchGetBlockAttrs", {
      ids: [I.headingJournal, I.codeJournal, UNKNOWN],
    });
    expect(m[I.headingJournal]!["custom-k"]).toBe("1");
    expect(m[I.codeJournal]!["custom-k"]).toBe("2");
    // an unknown ID has no entry (kernel-probes attr.batch)
    expect(m).not.toHaveProperty(UNKNOWN);
  });

  it("/api/transactions setAttrs merges and updateAttrs replaces, queued until flushed", async () => {
    const r = await ok<unknown[]>(sb, "/api/transactions", {
      transactions: [
        {
          doOperations: [
            { action: "setAttrs", id: I.mathJournal, data: JSON.stringify({ "custom-t": "v1" }) },
          ],
        },
      ],
    });
    expect(r).toHaveLength(1);
    expect(
      (await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", { id: I.mathJournal }))[
        "custom-t"
      ],
    ).toBeUndefined();
    await flush(sb);
    expect(
      (await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", { id: I.mathJournal }))[
        "custom-t"
      ],
    ).toBe("v1");
    await ok(sb, "/api/transactions", {
      transactions: [
        {
          doOperations: [
            { action: "updateAttrs", id: I.mathJournal, data: { new: { "custom-u": "only" } } },
          ],
        },
      ],
    });
    await flush(sb);
    expect(await ok(sb, "/api/attr/getBlockAttrs", { id: I.mathJournal })).toEqual({
      id: I.mathJournal,
      "custom-u": "only",
    });
    // an op the sandbox cannot run is accepted, then fails when applied (kernel-probes
    // av.transactions: SiYuan answers code 0 and echoes it)
    const failures = sb.control.transactionFailures().length;
    const bad = await post(sb, "/api/transactions", {
      transactions: [{ doOperations: [{ action: "insert", id: I.mathJournal }] }],
    });
    expect(bad.body.code).toBe(0);
    await flush(sb);
    expect(sb.control.transactionFailures()).toHaveLength(failures + 1);
  });
});

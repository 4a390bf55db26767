/**
 * Fewer kernel calls per strict mutation, the same proof. The commits below run against a kernel
 * that never applies its write queue by itself (it answers each block write before applying it),
 * so a readback only sees the write through a barrier that really waits for the queue: the
 * `flushTransaction`, `getDoc` (which flushes before it loads), or `setBlockAttrs` (which flushes
 * before it sets). A barrier dropped where it is needed shows as `readback_mismatch` here; a
 * write the kernel applies before it answers (`addAttributeViewKey`) needs none.
 */
import { describe, expect, it } from "vitest";
import { splitOwnIal } from "../src/state/attributes.js";
import { errorCode, useHarness } from "./harness.js";

const h = useHarness({ flushIntervalMs: 3_600_000 });

let seq = 0;

/** A fresh document holding `markdown`, applied at once; returns its blocks' IDs. */
async function freshDoc(markdown: string): Promise<{ doc: string; blocks: string[] }> {
  const doc = h.sandbox.control.external.createDoc(h.notebook, `/Calls ${++seq}`, markdown);
  await h.client.flush();
  const blocks = (await h.client.block.getChildBlocks({ id: doc })).map((c) => c.id);
  return { doc, blocks };
}

/** Preflight and commit; the commit's request log (endpoints, in order). */
async function commitLogged(tool: string, args: Record<string, unknown>, confirmed = false) {
  const pre = await h.call(tool, { ...args, validateOnly: true }, confirmed);
  expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeUndefined();
  const from = h.sandbox.control.log().at(-1)?.seq ?? 0;
  const commit = await h.call(tool, h.commitArgs(args, pre.structuredContent), confirmed);
  const calls = h.sandbox.control
    .log()
    .filter((e) => e.seq > from)
    .map((e) => e.path);
  expect(errorCode(commit), JSON.stringify(commit.structuredContent)).toBeUndefined();
  expect(commit.structuredContent["status"]).toBe("committed");
  return calls;
}

const body = (id: string) => splitOwnIal(h.sandbox.control.kramdown(id) ?? "").body;

describe("block.update with a write queue that waits for a barrier", () => {
  it("two steps: setBlockAttrs lands after the queued update, and the readback needs no flush", async () => {
    const { blocks } = await freshDoc('plain\n{: custom-owner="ann"}');
    const id = blocks[0] as string;
    const calls = await commitLogged("block", { action: "update", id, data: "> quoted" });
    expect(calls).toEqual([
      "/api/block/getBlockKramdown",
      "/api/block/getBlockDOM",
      "/api/block/updateBlock",
      "/api/attr/setBlockAttrs",
      "/api/block/getBlockKramdown",
      "/api/block/getBlockDOM",
    ]);
    expect(body(id)).toMatch(/^> quoted/);
    expect(h.sandbox.control.attrs(id)?.["custom-owner"]).toBe("ann");
  });

  it("a batch: its blocks read in two calls per step, written by one batchUpdateBlock", async () => {
    const { blocks } = await freshDoc('alpha\n{: custom-x="1"}\n\nbeta');
    const [a, b] = blocks as [string, string];
    const calls = await commitLogged("block", {
      action: "update",
      items: [
        { id: a, data: "alpha two" },
        { id: b, data: "beta two" },
      ],
    });
    expect(calls).toEqual([
      "/api/block/getBlockKramdowns",
      "/api/block/getBlockDOMs",
      "/api/block/batchUpdateBlock",
      "/api/sqlite/flushTransaction",
      "/api/block/getBlockKramdowns",
      "/api/block/getBlockDOMs",
    ]);
    expect(body(a)).toBe("alpha two");
    expect(body(b)).toBe("beta two");
    expect(h.sandbox.control.attrs(a)?.["custom-x"]).toBe("1");
  });

  it("a batch whose attributes need a second step: setBlockAttrs is the barrier for every update", async () => {
    const { blocks } = await freshDoc('alpha\n{: custom-x="1"}\n\nbeta');
    const [a, b] = blocks as [string, string];
    const calls = await commitLogged("block", {
      action: "update",
      items: [
        { id: a, data: "> alpha quoted" },
        { id: b, data: "beta two" },
      ],
    });
    expect(calls).toEqual([
      "/api/block/getBlockKramdowns",
      "/api/block/getBlockDOMs",
      "/api/block/batchUpdateBlock",
      "/api/attr/setBlockAttrs",
      "/api/block/getBlockKramdowns",
      "/api/block/getBlockDOMs",
    ]);
    expect(body(a)).toMatch(/^> alpha quoted/);
    expect(body(b)).toBe("beta two");
    expect(h.sandbox.control.attrs(a)?.["custom-x"]).toBe("1");
  });
});

describe("fs paths", () => {
  async function pathOf(doc: string): Promise<string> {
    const nb = (await h.client.notebook.lsNotebooks()).notebooks.find((n) => n.id === h.notebook);
    const hpath = await h.client.filetree.getHPathByID({ id: doc });
    return `/${nb?.name}${hpath}`;
  }

  it("fs.write overwrite: the path, the content, one write, the flush, the content again", async () => {
    const { doc } = await freshDoc("old text");
    const calls = await commitLogged("fs", {
      action: "write",
      path: await pathOf(doc),
      markdown: "new text",
      overwrite: true,
    });
    expect(calls).toEqual([
      "/api/notebook/lsNotebooks",
      "/api/filetree/getIDsByHPath",
      "/api/block/getBlockKramdown",
      "/api/block/updateBlock",
      "/api/sqlite/flushTransaction",
      "/api/block/getBlockKramdown",
    ]);
    expect(body(doc)).toMatch(/^new text\n/);
  });

  it("fs.rm: existence is read back live after the flush", async () => {
    const { doc } = await freshDoc("doomed");
    const calls = await commitLogged("fs", { action: "rm", path: await pathOf(doc) }, true);
    expect(calls).toHaveLength(6);
    expect(calls.slice(3)).toEqual([
      "/api/filetree/removeDocByID",
      "/api/sqlite/flushTransaction",
      "/api/block/checkBlockExist",
    ]);
    expect(h.sandbox.control.kramdown(doc)).toBeNull();
  });
});

describe("av.add_column", () => {
  const GET_AV = "/api/av/getAttributeView";

  /** A new database (av.create) in a fresh document; its ID. */
  async function database(name: string): Promise<string> {
    const { doc } = await freshDoc("intro");
    const { commit } = await h.write("av", { action: "create", parentID: doc, name });
    return String(commit.structuredContent["avID"]);
  }

  /** The endpoints the preflight of `args` calls, in order. */
  async function preflightCalls(args: Record<string, unknown>): Promise<string[]> {
    const from = h.sandbox.control.log().at(-1)?.seq ?? 0;
    const pre = await h.call("av", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeUndefined();
    return h.sandbox.control
      .log()
      .filter((e) => e.seq > from)
      .map((e) => e.path);
  }

  const keys = (avID: string) => h.sandbox.control.av(avID)?.keyValues.map((kv) => kv.key) ?? [];
  /** A relation column's commit: both databases read, one transaction, its flush, both read back. */
  const ONE_TRANSACTION = [
    GET_AV,
    GET_AV,
    "/api/transactions",
    "/api/sqlite/flushTransaction",
    GET_AV,
    GET_AV,
  ];

  it("two-way relation: 2 + 6, one transaction adds and configures the column, one flush", async () => {
    const [a, b] = [await database("Books"), await database("Authors")];
    const args = {
      action: "add_column",
      id: a,
      name: "Author",
      type: "relation",
      relation: { avID: b, twoWay: true, backName: "Books" },
    };
    expect(await preflightCalls(args)).toEqual([GET_AV, GET_AV]);
    expect(await commitLogged("av", args)).toEqual(ONE_TRANSACTION);
    const col = keys(a).find((k) => k.name === "Author");
    const back = keys(b).find((k) => k.name === "Books");
    expect(col?.relation).toEqual({ avID: b, isTwoWay: true, backKeyID: back?.id });
    expect(back?.relation).toEqual({ avID: a, isTwoWay: true, backKeyID: col?.id });
  });

  it("one-way relation 2 + 6; a rollup through it 2 + 7 (its postimage is rendered)", async () => {
    const [a, b] = [await database("Orders"), await database("Items")];
    const relation = { action: "add_column", id: a, name: "Items", type: "relation" };
    const relArgs = { ...relation, relation: { avID: b } };
    expect(await preflightCalls(relArgs)).toEqual([GET_AV, GET_AV]);
    const tx = ONE_TRANSACTION;
    expect(await commitLogged("av", relArgs)).toEqual(tx);
    const relKey = keys(a).find((k) => k.name === "Items")?.id;
    const target = keys(b).find((k) => k.type === "block")?.id;
    const rollup = {
      action: "add_column",
      id: a,
      name: "Count",
      type: "rollup",
      rollup: { relationKeyID: relKey, keyID: target, calc: "Count all" },
    };
    expect(await preflightCalls(rollup)).toEqual([GET_AV, GET_AV]);
    expect(await commitLogged("av", rollup)).toEqual([...tx, "/api/av/renderAttributeView"]);
    expect(keys(a).find((k) => k.name === "Count")?.rollup).toMatchObject({
      relationKeyID: relKey,
      keyID: target,
      calc: { operator: "Count all" },
    });
  });

  it("a plain column: 1 + 3, no flush (addAttributeViewKey writes before it answers)", async () => {
    const a = await database("Plain");
    const args = { action: "add_column", id: a, name: "Pages", type: "number" };
    expect(await preflightCalls(args)).toEqual([GET_AV]);
    const calls = await commitLogged("av", args);
    expect(calls).toEqual([GET_AV, "/api/av/addAttributeViewKey", GET_AV]);
    expect(keys(a).find((k) => k.name === "Pages")?.type).toBe("number");
  });
});

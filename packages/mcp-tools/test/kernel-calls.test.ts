/**
 * Fewer kernel calls per strict mutation, the same proof. The commits below run against a kernel
 * that never applies its write queue by itself (it answers each block write before applying it),
 * so a readback only sees the write through a barrier that really waits for the queue: the
 * `flushTransaction`, `getDoc` (which flushes before it loads), or `setBlockAttrs` (which flushes
 * before it sets). A barrier dropped where it is needed shows as `readback_mismatch` here.
 */
import { describe, expect, it } from "vitest";
import { splitOwnIal } from "../src/state/ial.js";
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

  it("multi-block data: getDoc waits for the update and names the document read with the block", async () => {
    const { doc, blocks } = await freshDoc('one\n{: custom-owner="ann" alias="a1"}\n\nlast');
    const id = blocks[0] as string;
    const calls = await commitLogged("block", {
      action: "update",
      id,
      data: "first\n\nsecond",
    });
    expect(calls.slice(3)).toEqual([
      "/api/filetree/getDoc",
      "/api/block/getBlockKramdowns",
      "/api/block/getBlockDOMs",
    ]);
    expect(calls).toHaveLength(6);
    expect(body(doc)).toMatch(/^first\n\{: [^\n]*\}\n\nsecond\n/);
    expect(h.sandbox.control.attrs(id)?.["alias"]).toBe("a1");
  });

  it("a batch reads all its blocks in two calls per step", async () => {
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
      "/api/block/updateBlock",
      "/api/block/updateBlock",
      "/api/sqlite/flushTransaction",
      "/api/block/getBlockKramdowns",
      "/api/block/getBlockDOMs",
    ]);
    expect(body(a)).toBe("alpha two");
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

/** Block and attribute methods against the sandbox: happy paths, unknown IDs, malformed arguments. */
import { beforeAll, describe, expect, it } from "vitest";
import { NODE_ID_PATTERN } from "../src/index.js";
import {
  failure,
  DEMO_IDS as I,
  MALFORMED_ID,
  sharedDemoClient,
  UNKNOWN_ID,
} from "./support/sandbox.js";

const shared = sharedDemoClient();
let doc: string;
beforeAll(async () => {
  doc = await shared.client.filetree.createDocWithMd({
    notebook: I.notebookPersonal,
    path: "/Block Playground",
    markdown: "first paragraph\n\nsecond paragraph",
  });
});

async function childIds(id: string): Promise<string[]> {
  return (await shared.client.block.getChildBlocks({ id })).map((c) => c.id);
}

describe("block reads", () => {
  it("getBlockKramdown returns kramdown with the IAL, null for an unknown ID", async () => {
    const k = await shared.client.block.getBlockKramdown({ id: I.paragraphGoals });
    expect(k?.id).toBe(I.paragraphGoals);
    expect(k?.kramdown).toContain("**sandbox**");
    expect(k?.kramdown).toContain(`id="${I.paragraphGoals}"`);
    expect(await shared.client.block.getBlockKramdown({ id: UNKNOWN_ID })).toBeNull();
  });

  it("getBlockKramdown rejects a malformed ID and an invalid mode", async () => {
    const e = await failure(shared.client.block.getBlockKramdown({ id: MALFORMED_ID }));
    expect(e.code).toBe("kernel_rejected");
    expect(e.details.kernelMessage).toBe("invalid ID argument");
    const m = await failure(
      shared.client.block.getBlockKramdown({ id: I.paragraphGoals, mode: "weird" as "md" }),
    );
    expect(m.code).toBe("kernel_rejected");
  });

  it("getBlockKramdowns and getBlockDOMs map unknown IDs to null or leave them out", async () => {
    const ks = await shared.client.block.getBlockKramdowns({ ids: [I.paragraphGoals, UNKNOWN_ID] });
    expect(ks[I.paragraphGoals]).toContain("**sandbox**");
    expect(ks[UNKNOWN_ID] ?? null).toBeNull();
    const ds = await shared.client.block.getBlockDOMs({ ids: [I.paragraphGoals, UNKNOWN_ID] });
    expect(ds[I.paragraphGoals]).toContain(`data-node-id="${I.paragraphGoals}"`);
    expect(ds[UNKNOWN_ID] ?? null).toBeNull();
  });

  it("getBlockDOM returns the block DOM, null for an unknown ID", async () => {
    const d = await shared.client.block.getBlockDOM({ id: I.paragraphGoals });
    expect(d?.dom).toContain(`data-node-id="${I.paragraphGoals}"`);
    expect(d?.dom).toContain('data-type="NodeParagraph"');
    expect(await shared.client.block.getBlockDOM({ id: UNKNOWN_ID })).toBeNull();
    expect((await failure(shared.client.block.getBlockDOM({ id: MALFORMED_ID }))).code).toBe(
      "kernel_rejected",
    );
  });

  it("getChildBlocks lists children; [] for a leaf and for an unknown ID", async () => {
    const kids = await shared.client.block.getChildBlocks({ id: I.docPlan });
    expect(kids.map((k) => k.id)).toContain(I.headingGoals);
    expect(kids.find((k) => k.id === I.headingGoals)?.type).toBe("h");
    expect(await shared.client.block.getChildBlocks({ id: I.paragraphGoals })).toEqual([]);
    expect(await shared.client.block.getChildBlocks({ id: UNKNOWN_ID })).toEqual([]);
  });

  it("getBlockInfo locates a block; unknown → kernel_rejected", async () => {
    const info = await shared.client.block.getBlockInfo({ id: I.paragraphGoals });
    expect(info.rootID).toBe(I.docPlan);
    expect(info.box).toBe(I.notebookResearch);
    expect(info.path).toBe(`/${I.docPlan}.sy`);
    const e = await failure(shared.client.block.getBlockInfo({ id: UNKNOWN_ID }));
    expect(e.code).toBe("kernel_rejected");
    expect(e.details.kernelCode).toBe(-1);
  });

  it("checkBlockExist answers true and false", async () => {
    expect(await shared.client.block.checkBlockExist({ id: I.paragraphGoals })).toBe(true);
    expect(await shared.client.block.checkBlockExist({ id: UNKNOWN_ID })).toBe(false);
  });
});

describe("block writes", () => {
  it("insertBlock / prependBlock / appendBlock return transactions with the new ID", async () => {
    const [first] = await childIds(doc);
    const ins = await shared.client.block.insertBlock({
      dataType: "markdown",
      data: "inserted",
      previousID: first!,
    });
    const insId = ins[0]!.doOperations[0]!.id;
    expect(insId).toMatch(NODE_ID_PATTERN);
    expect(ins[0]!.doOperations[0]!.action).toBe("insert");
    const pre = await shared.client.block.prependBlock({
      dataType: "markdown",
      data: "prepended",
      parentID: doc,
    });
    const preId = pre[0]!.doOperations[0]!.id;
    const app = await shared.client.block.appendBlock({
      dataType: "markdown",
      data: "appended",
      parentID: doc,
    });
    const appId = app[0]!.doOperations[0]!.id;
    await shared.client.flush();
    const ids = await childIds(doc);
    expect(ids[0]).toBe(preId);
    expect(ids[2]).toBe(insId);
    expect(ids[ids.length - 1]).toBe(appId);
    expect((await shared.client.block.getBlockKramdown({ id: insId }))?.kramdown).toContain(
      "inserted",
    );
  });

  it("insert anchors: a malformed anchor and a leaf parent are kernel_rejected", async () => {
    expect(
      (
        await failure(
          shared.client.block.insertBlock({
            dataType: "markdown",
            data: "x",
            previousID: MALFORMED_ID,
          }),
        )
      ).code,
    ).toBe("kernel_rejected");
    const e = await failure(
      shared.client.block.appendBlock({
        dataType: "markdown",
        data: "x",
        parentID: I.paragraphGoals,
      }),
    );
    expect(e.code).toBe("kernel_rejected");
  });

  it("updateBlock replaces content; unknown → kernel_rejected", async () => {
    const [first] = await childIds(doc);
    const tx = await shared.client.block.updateBlock({
      id: first!,
      dataType: "markdown",
      data: "updated **text**",
    });
    expect(tx[0]!.doOperations[0]!.id).toBe(first);
    await shared.client.flush();
    expect((await shared.client.block.getBlockKramdown({ id: first! }))?.kramdown).toContain(
      "updated **text**",
    );
    const e = await failure(
      shared.client.block.updateBlock({ id: UNKNOWN_ID, dataType: "markdown", data: "x" }),
    );
    expect(e.code).toBe("kernel_rejected");
  });

  it("transferBlockRef re-points references; an unknown target is refused", async () => {
    const [from, to] = await childIds(doc);
    const holder = await shared.client.filetree.createDocWithMd({
      notebook: I.notebookPersonal,
      path: "/Ref holder",
      markdown: `see ((${from} 'old'))`,
    });
    const [ref] = await childIds(holder);
    await shared.client.block.transferBlockRef({ fromID: from!, toID: to!, refIDs: [ref!] });
    await shared.client.flush();
    const k = await shared.client.block.getBlockKramdown({ id: ref! });
    expect(k?.kramdown).toContain(`((${to} '`);
    expect(k?.kramdown).not.toContain(from);
    const e = await failure(
      shared.client.block.transferBlockRef({ fromID: to!, toID: UNKNOWN_ID }),
    );
    expect(e.details.kernelMessage).toBe("block not found");
  });

  it("append/prependDailyNoteBlock answer the insert; an unknown notebook is refused", async () => {
    const a = await shared.client.block.appendDailyNoteBlock({
      notebook: I.notebookPersonal,
      dataType: "markdown",
      data: "daily last",
    });
    const p = await shared.client.block.prependDailyNoteBlock({
      notebook: I.notebookPersonal,
      dataType: "markdown",
      data: "daily first",
    });
    await shared.client.flush();
    const note = (await shared.client.filetree.createDailyNote({ notebook: I.notebookPersonal }))
      .id;
    const kids = await childIds(note);
    expect(kids.at(-1)).toBe(a[0]!.doOperations[0]!.id);
    expect(kids[0]).toBe(p[0]!.doOperations[0]!.id);
    const e = await failure(
      shared.client.block.appendDailyNoteBlock({
        notebook: UNKNOWN_ID,
        dataType: "markdown",
        data: "x",
      }),
    );
    expect(e.details.kernelMessage).toBe("create daily note failed: notebook not found");
  });

  it("moveBlock, foldBlock/unfoldBlock and deleteBlock", async () => {
    const ids = await childIds(doc);
    const last = ids[ids.length - 1]!;
    await shared.client.block.moveBlock({ id: last, parentID: doc });
    await shared.client.flush();
    expect((await childIds(doc))[0]).toBe(last);

    await shared.client.block.foldBlock({ id: last });
    expect((await shared.client.attr.getBlockAttrs({ id: last }))?.["fold"]).toBe("1");
    await shared.client.block.unfoldBlock({ id: last });
    expect((await shared.client.attr.getBlockAttrs({ id: last }))?.["fold"]).toBeUndefined();
    expect((await failure(shared.client.block.foldBlock({ id: doc }))).code).toBe(
      "kernel_rejected",
    );
    expect((await failure(shared.client.block.foldBlock({ id: UNKNOWN_ID }))).code).toBe(
      "kernel_rejected",
    );

    const del = await shared.client.block.deleteBlock({ id: last });
    expect(del[0]!.doOperations[0]!.action).toBe("delete");
    await shared.client.flush();
    expect(await shared.client.block.checkBlockExist({ id: last })).toBe(false);
    expect(
      (await failure(shared.client.block.moveBlock({ id: UNKNOWN_ID, parentID: doc }))).code,
    ).toBe("kernel_rejected");
  });
});

describe("attr", () => {
  it("getBlockAttrs returns every IAL pair, null for an unknown ID", async () => {
    const a = await shared.client.attr.getBlockAttrs({ id: I.paragraphStatus });
    expect(a?.["custom-status"]).toBe("draft");
    expect(a?.["id"]).toBe(I.paragraphStatus);
    expect(await shared.client.attr.getBlockAttrs({ id: UNKNOWN_ID })).toBeNull();
    expect((await failure(shared.client.attr.getBlockAttrs({ id: MALFORMED_ID }))).code).toBe(
      "kernel_rejected",
    );
  });

  it("setBlockAttrs sets and deletes; unknown block and bad names are kernel_rejected", async () => {
    await shared.client.attr.setBlockAttrs({
      id: I.paragraphDecision,
      attrs: { "custom-x": "1", "custom-priority": null },
    });
    const a = await shared.client.attr.getBlockAttrs({ id: I.paragraphDecision });
    expect(a?.["custom-x"]).toBe("1");
    expect(a?.["custom-priority"]).toBeUndefined();
    expect(
      (
        await failure(
          shared.client.attr.setBlockAttrs({ id: UNKNOWN_ID, attrs: { "custom-x": "1" } }),
        )
      ).code,
    ).toBe("kernel_rejected");
    const bad = await failure(
      shared.client.attr.setBlockAttrs({ id: I.paragraphDecision, attrs: { "1bad": "x" } }),
    );
    expect(bad.code).toBe("kernel_rejected");
    expect(bad.details.kernelCode).toBe(-1);
  });

  it("batchSetBlockAttrs and batchGetBlockAttrs; unknown IDs map to null", async () => {
    await shared.client.attr.batchSetBlockAttrs({
      blockAttrs: [
        { id: I.paragraphJournal, attrs: { "custom-b": "b1" } },
        { id: I.codeJournal, attrs: { "custom-b": "b2" } },
      ],
    });
    const m = await shared.client.attr.batchGetBlockAttrs({
      ids: [I.paragraphJournal, I.codeJournal, UNKNOWN_ID],
    });
    expect(m[I.paragraphJournal]?.["custom-b"]).toBe("b1");
    expect(m[I.codeJournal]?.["custom-b"]).toBe("b2");
    expect(m[UNKNOWN_ID] ?? null).toBeNull();
  });
});

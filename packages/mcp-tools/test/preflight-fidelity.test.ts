/**
 * validateOnly fidelity: a preflight refuses what the commit would be refused for, before any
 * request ID or write (leaf parents, kernel-managed identity in update data), and says what the
 * commit will report or do (targetCount, a notebook's switch to custom sort). Against the sandbox
 * kernel over loopback, through the real coordinator.
 */
import { describe, expect, it } from "vitest";
import { errorCode, useHarness } from "./harness.js";

const h = useHarness();
let seq = 0;

const WRITE_ENDPOINTS = [
  "/api/block/insertBlock",
  "/api/block/prependBlock",
  "/api/block/appendBlock",
  "/api/block/updateBlock",
  "/api/block/moveBlock",
  "/api/attr/setBlockAttrs",
  "/api/filetree/changeSort",
  "/api/notebook/setNotebookConf",
];

/** Kernel write requests since the last `resetLog`. */
function writesSinceReset(): number {
  return WRITE_ENDPOINTS.reduce((n, e) => n + h.sandbox.control.count(e), 0);
}

/** A document with one block of each kind; IDs by kind, from the live tree. */
async function mixedDoc() {
  const id = h.sandbox.control.external.createDoc(
    h.notebook,
    `/Fidelity ${++seq}`,
    [
      "# Heading",
      "",
      "a paragraph",
      "",
      "* item one",
      "* item two",
      "",
      "> quoted",
      "",
      "```",
      "code",
      "```",
    ].join("\n"),
  );
  await h.client.flush();
  const children = await h.client.block.getChildBlocks({ id });
  const of = (type: string) => children.find((c) => c.type === type)?.id as string;
  const list = of("l");
  const items = (await h.client.block.getChildBlocks({ id: list })).map((c) => c.id);
  return {
    doc: id,
    heading: of("h"),
    paragraph: of("p"),
    list,
    item: items[0] as string,
    item2: items[1] as string,
    quote: of("b"),
    code: of("c"),
  };
}

/** Preflight; expects `invalid_arguments`, no request ID issued and no kernel write. */
async function expectRefusedAtPreflight(
  tool: string,
  args: Record<string, unknown>,
  confirmed = false,
) {
  const reservations = h.coordinator.health().reservations;
  h.sandbox.control.resetLog();
  const r = await h.call(tool, { ...args, validateOnly: true }, confirmed);
  expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("invalid_arguments");
  const error = r.structuredContent["error"] as Record<string, unknown>;
  expect(error["writeAttempted"]).toBe(false);
  expect(String(error["hint"])).toMatch(/\w/);
  expect(error["requestId"]).toBeUndefined();
  expect(h.coordinator.health().reservations).toBe(reservations);
  expect(writesSinceReset()).toBe(0);
  return error;
}

describe("a parent that cannot take children is refused at preflight (leaf block)", () => {
  it.each([
    ["prepend", "paragraph"],
    ["append", "paragraph"],
    ["prepend", "heading"],
    ["append", "code"],
  ] as const)("block.%s into a %s", async (action, kind) => {
    const d = await mixedDoc();
    const error = await expectRefusedAtPreflight("block", {
      action,
      parentID: d[kind],
      data: "child",
    });
    expect(error["parentID"]).toBe(d[kind]);
    expect(String(error["message"])).toMatch(/leaf block/);
  });

  it("block.insert with only a parentID that is a paragraph", async () => {
    const d = await mixedDoc();
    const error = await expectRefusedAtPreflight("block", {
      action: "insert",
      parentID: d.paragraph,
      data: "child",
    });
    expect(error["parentType"]).toBe("NodeParagraph");
  });

  it("block.insert after a paragraph (previousID) is not a parent insert and passes", async () => {
    const d = await mixedDoc();
    const { commit } = await h.write("block", {
      action: "insert",
      previousID: d.paragraph,
      data: "sibling",
    });
    expect(commit.structuredContent["status"]).toBe("committed");
  });

  it.each([
    ["prepend", "doc"],
    ["append", "doc"],
    ["append", "item"],
    ["prepend", "quote"],
    ["append", "list"],
  ] as const)("block.%s into a %s (a container) commits", async (action, kind) => {
    const d = await mixedDoc();
    const { preflight, commit } = await h.write("block", {
      action,
      parentID: d[kind],
      data: kind === "list" ? "* item three" : "child",
    });
    expect(preflight["requestId"]).toEqual(expect.any(String));
    expect(commit.isError, JSON.stringify(commit.structuredContent)).toBeUndefined();
    expect(commit.structuredContent["status"]).toBe("committed");
  });

  it("an unknown parent is not_found at preflight", async () => {
    h.sandbox.control.resetLog();
    const r = await h.call("block", {
      action: "append",
      parentID: "20200101000000-zzzzzzz",
      data: "x",
      validateOnly: true,
    });
    expect(errorCode(r)).toBe("not_found");
    expect(writesSinceReset()).toBe(0);
  });

  it("a parent that became a leaf after preflight is refused at commit before any write", async () => {
    const d = await mixedDoc();
    const args = { action: "prepend", parentID: d.quote, data: "child" };
    const pre = await h.call("block", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeUndefined();
    // Someone else turns the blockquote into a paragraph (same ID).
    h.sandbox.control.external.updateBlock(d.quote, "now a paragraph");
    await h.client.flush();
    h.sandbox.control.resetLog();
    const r = await h.call("block", h.commitArgs(args, pre.structuredContent));
    expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("invalid_arguments");
    expect((r.structuredContent["error"] as Record<string, unknown>)["writeAttempted"]).toBe(false);
    expect(h.sandbox.control.count("/api/block/prependBlock")).toBe(0);
  });
});

describe("block.move: the kernel's refusals are preflight refusals", () => {
  it("into a paragraph (parentID only)", async () => {
    const d = await mixedDoc();
    const error = await expectRefusedAtPreflight(
      "block",
      { action: "move", id: d.heading, parentID: d.paragraph },
      true,
    );
    expect(error["parentType"]).toBe("NodeParagraph");
  });

  it("a list item directly into a list item", async () => {
    const d = await mixedDoc();
    const error = await expectRefusedAtPreflight(
      "block",
      { action: "move", id: d.item2, parentID: d.item },
      true,
    );
    expect(String(error["message"])).toMatch(/list item/);
  });

  it("after a document (previousID), and a document itself", async () => {
    const d = await mixedDoc();
    const other = await mixedDoc();
    await expectRefusedAtPreflight(
      "block",
      { action: "move", id: d.paragraph, previousID: other.doc },
      true,
    );
    await expectRefusedAtPreflight(
      "block",
      { action: "move", id: d.doc, previousID: other.paragraph },
      true,
    );
  });

  it("a paragraph into a list item (a container) commits", async () => {
    const d = await mixedDoc();
    const { commit } = await h.write(
      "block",
      { action: "move", id: d.paragraph, parentID: d.item },
      true,
    );
    expect(commit.isError, JSON.stringify(commit.structuredContent)).toBeUndefined();
    expect(commit.structuredContent["status"]).toBe("committed");
  });
});

describe("update data that names kernel-managed identity is refused before any write", () => {
  it.each([
    ["id", (other: string) => `alpha changed\n{: id="${other}"}`],
    ["updated", () => `alpha changed\n{: updated="20200101000000"}`],
    ["id among other pairs", (other: string) => `alpha changed\n{: custom-a="1" id="${other}"}`],
    ["id without a space", (other: string) => `alpha changed\n{:id="${other}"}`],
    ["id in a list item", (other: string) => `* {: id="${other}"}item`],
    ["id in a second block", (other: string) => `first\n\nsecond\n{: id="${other}"}`],
  ] as const)("Markdown IAL with %s", async (_name, data) => {
    const d = await mixedDoc();
    const error = await expectRefusedAtPreflight("block", {
      action: "update",
      id: d.paragraph,
      data: data(d.heading),
    });
    expect(error["id"]).toBe(d.paragraph);
    expect(error["attributes"]).toEqual(
      expect.arrayContaining([expect.stringMatching(/^(id|updated)$/)]),
    );
    expect(await h.client.block.getBlockKramdown({ id: d.paragraph })).toMatchObject({
      kramdown: expect.stringContaining("a paragraph"),
    });
  });

  it("the block's own ID in its IAL is refused too (the kernel manages it)", async () => {
    const d = await mixedDoc();
    await expectRefusedAtPreflight("block", {
      action: "update",
      id: d.paragraph,
      data: `alpha changed\n{: id="${d.paragraph}"}`,
    });
  });

  it("one bad item of items[] refuses the whole batch", async () => {
    const d = await mixedDoc();
    const error = await expectRefusedAtPreflight("block", {
      action: "update",
      items: [
        { id: d.paragraph, data: "fine" },
        { id: d.heading, data: `# fine too\n{: updated="20200101000000"}` },
      ],
    });
    expect(error["id"]).toBe(d.heading);
  });

  it("IAL text inside code is content, not an IAL, and passes", async () => {
    const d = await mixedDoc();
    for (const data of [
      'use `{: id="x"}` to name a block',
      '```\n{: id="20200101000000-aaaaaaa"}\n```',
    ]) {
      const r = await h.call("block", {
        action: "update",
        id: d.code,
        data,
        validateOnly: true,
      });
      expect(r.isError, `${data}: ${JSON.stringify(r.structuredContent)}`).toBeUndefined();
    }
  });

  it("other attributes in the IAL pass and are written", async () => {
    const d = await mixedDoc();
    const { commit } = await h.write("block", {
      action: "update",
      id: d.paragraph,
      data: `alpha changed\n{: custom-note="kept"}`,
    });
    expect(commit.isError, JSON.stringify(commit.structuredContent)).toBeUndefined();
    const attrs = await h.client.attr.getBlockAttrs({ id: d.paragraph });
    expect(attrs?.["custom-note"]).toBe("kept");
  });

  it("DOM carrying another block's data-node-id is refused; the target's own DOM passes", async () => {
    const d = await mixedDoc();
    const otherDom = (await h.client.block.getBlockDOM({ id: d.heading }))?.dom as string;
    const error = await expectRefusedAtPreflight("block", {
      action: "update",
      id: d.paragraph,
      dataType: "dom",
      data: otherDom,
    });
    expect(error["foreignIds"]).toEqual([d.heading]);

    const listDom = (await h.client.block.getBlockDOM({ id: d.list }))?.dom as string;
    const r = await h.call("block", {
      action: "update",
      id: d.list,
      dataType: "dom",
      data: listDom.replace("item one", "item uno"),
      validateOnly: true,
    });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
  });
});

describe("the preflight reports what the commit will report", () => {
  it("targetCount of block.update, single and batch (a repeated ID counts once)", async () => {
    const d = await mixedDoc();
    const single = await h.write("block", { action: "update", id: d.paragraph, data: "one" });
    expect(single.preflight["targetCount"]).toBe(1);
    expect(single.commit.structuredContent["targetCount"]).toBe(1);

    const batch = await h.write("block", {
      action: "update",
      items: [
        { id: d.paragraph, data: "two" },
        { id: d.heading, data: "# two" },
        { id: d.paragraph, data: "three" },
      ],
    });
    expect(batch.preflight["targetCount"]).toBe(2);
    expect(batch.commit.structuredContent["targetCount"]).toBe(2);
    expect(batch.preflight["writeAttempted"]).toBe(false);
    expect(batch.preflight["validateOnly"]).toBe(true);
  });

  it("blockCount of tag.rename, as the commit's receipt", async () => {
    const label = `pf${++seq}`;
    const d = await mixedDoc();
    h.sandbox.control.external.updateBlock(d.paragraph, `a #${label}# here`);
    h.sandbox.control.external.updateBlock(d.heading, `# head #${label}#`);
    await h.client.flush();
    const { preflight, commit } = await h.write("tag", {
      action: "rename",
      oldLabel: label,
      newLabel: `${label}x`,
    });
    expect(preflight["blockCount"]).toBe(2);
    expect(commit.structuredContent["blockCount"]).toBe(2);
  });

  it("mutations without a summary or notes answer the coordinator shape (the credential note is in bootstrap)", async () => {
    const d = await mixedDoc();
    const r = await h.call("block", {
      action: "set_attrs",
      id: d.paragraph,
      attrs: { "custom-x": "1" },
      validateOnly: true,
    });
    expect(Object.keys(r.structuredContent).sort()).toEqual(
      [
        "validateOnly",
        "writeAttempted",
        "requestId",
        "preconditionField",
        "expectedStateHash",
        "hashPrefixLength",
        "leaseExpiresAt",
        "requestIdExpiresAt",
      ].sort(),
    );
  });
});

describe("reorder preflight says when the commit switches the notebook to custom sort", () => {
  async function tree(notebook: string) {
    const title = `Sorted ${++seq}`;
    const parent = h.sandbox.control.external.createDoc(notebook, `/${title}`, "p");
    const kids = ["A", "B", "C"].map((t) =>
      h.sandbox.control.external.createDoc(notebook, `/${title}/${t}`, t),
    );
    await h.client.flush();
    return { parent, title, kids };
  }

  it("document.reorder in a notebook that follows the workspace (15): from 15 to 6, then no note", async () => {
    const nb = h.sandbox.control.external.createNotebook(`Sort NB ${++seq}`);
    const conf = await h.client.notebook.getNotebookConf({ notebook: nb });
    expect(conf.conf.sortMode).toBe(15);
    const t = await tree(nb);
    const args = { action: "reorder", parentID: t.parent, orderedIDs: [...t.kids].reverse() };
    const { preflight, commit } = await h.write("document", args);
    expect(preflight["switchesSortMode"]).toEqual({ from: 15, to: 6 });
    expect(String(preflight["note"])).toMatch(/custom order/);
    expect(preflight["requestId"]).toEqual(expect.any(String));
    expect(commit.structuredContent["status"]).toBe("committed");
    expect((await h.client.notebook.getNotebookConf({ notebook: nb })).conf.sortMode).toBe(6);

    const again = await h.call("document", {
      ...args,
      orderedIDs: t.kids,
      validateOnly: true,
    });
    expect(again.isError, JSON.stringify(again.structuredContent)).toBeUndefined();
    expect(again.structuredContent["switchesSortMode"]).toBeUndefined();
    expect(again.structuredContent["note"]).toBeUndefined();
  });

  it("fs.reorder in a notebook sorted by name (0): from 0 to 6", async () => {
    const nb = h.sandbox.control.external.createNotebook(`Name NB ${++seq}`);
    h.sandbox.control.external.setNotebookConf(nb, { sortMode: 0 });
    const t = await tree(nb);
    const name = (await h.client.notebook.lsNotebooks()).notebooks.find((n) => n.id === nb)
      ?.name as string;
    const r = await h.call("fs", {
      action: "reorder",
      path: `/${name}/${t.title}`,
      order: ["C", "A", "B"],
      validateOnly: true,
    });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    expect(r.structuredContent["switchesSortMode"]).toEqual({ from: 0, to: 6 });
    expect(r.structuredContent["preconditionField"]).toBe("expectedStructureHash");
  });
});

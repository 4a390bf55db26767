/**
 * document.duplicate against the sandbox kernel through the tool runtime: additive (requestId
 * only), one duplicateDoc, the answer names the copy the kernel made; the copy holds the source's
 * blocks under new IDs beside the source; a replay answers the same copy and makes no second one;
 * a block ID or an unknown ID is refused before any write; a lost answer is outcome_unknown and
 * its replay writes nothing; a copy that does not hold the content is a readback mismatch.
 */
import { describe, expect, it } from "vitest";
import { copyMismatch } from "../src/tools/document/duplicate.js";
import { errorCode, useHarness } from "./harness.js";

const DUPLICATE = "/api/filetree/duplicateDoc";

describe("document.duplicate", () => {
  const h = useHarness();

  const doc = async (title: string, markdown: string) => (await h.doc(title, markdown)).id;

  const ids = (kramdown: string) =>
    [...kramdown.matchAll(/\bid="(\d{14}-[0-9a-z]{7})"/g)].map((m) => m[1]);

  it("copies once beside the source under new IDs, answers the copy's id; a replay answers it again without writing", async () => {
    const src = await doc("Template page", "# Plan\n\nfirst **bold** step\n\n- one\n- two");
    const [head] = await h.client.block.getChildBlocks({ id: src });
    await h.client.block.appendBlock({
      parentID: src,
      dataType: "markdown",
      data: `see ((${head?.id} 'the plan'))`,
    });
    h.sandbox.control.external.setBlockAttrs(src, { "custom-kind": "template" });
    await h.client.flush();

    const args = { action: "duplicate", id: src };
    const pre = await h.call("document", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    expect(pre.structuredContent["preconditionField"]).toBeNull();
    const writes = h.writes(DUPLICATE);

    const commit = await h.call("document", h.commitArgs(args, pre.structuredContent));
    const c = commit.structuredContent;
    expect(c["status"], JSON.stringify(c)).toBe("committed");
    expect(h.writes(DUPLICATE)).toBe(writes + 1);
    const copy = c["id"] as string;
    expect(copy).toMatch(/^\d{14}-[0-9a-z]{7}$/);
    expect(copy).not.toBe(src);
    expect(c).toMatchObject({ sourceID: src, notebook: h.notebook, path: `/${copy}.sy` });
    expect(c["title"]).toMatch(
      /^Template page \(Duplicated \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\)$/,
    );

    const srcK = h.sandbox.control.kramdown(src) ?? "";
    const copyK = h.sandbox.control.kramdown(copy) ?? "";
    expect(copyK).toContain("first **bold** step");
    expect(copyK).toContain('custom-kind="template"');
    const shared = ids(copyK).filter((i) => ids(srcK).includes(i));
    expect(shared).toEqual([]);
    // the reference to the source's heading points at the copy's heading
    const copyHead = (await h.client.block.getChildBlocks({ id: copy }))[0]?.id;
    expect(copyK).toContain(`((${copyHead} 'the plan'))`);

    const replay = await h.call("document", h.commitArgs(args, pre.structuredContent));
    expect(replay.structuredContent).toMatchObject({
      status: "committed",
      replayed: true,
      id: copy,
    });
    expect(h.writes(DUPLICATE)).toBe(writes + 1);
    const listed = await h.client.filetree.listDocsByPath({ notebook: h.notebook, path: "/" });
    expect(listed.files.filter((f) => f.name.startsWith("Template page"))).toHaveLength(2);
  });

  it("refuses a block ID (naming its document) and an unknown ID before any write", async () => {
    const src = await doc("Holder", "a paragraph");
    const [para] = await h.client.block.getChildBlocks({ id: src });
    const writes = h.writes(DUPLICATE);
    const block = await h.call("document", {
      action: "duplicate",
      id: para?.id,
      validateOnly: true,
    });
    expect(errorCode(block)).toBe("invalid_arguments");
    expect(block.structuredContent["error"]).toMatchObject({ rootID: src });
    const unknown = await h.call("document", {
      action: "duplicate",
      id: "20200101000000-zzzzzzz",
      validateOnly: true,
    });
    expect(errorCode(unknown)).toBe("not_found");
    expect(h.writes(DUPLICATE)).toBe(writes);
  });

  it("a lost answer is outcome_unknown, and its replay writes nothing", async () => {
    const src = await doc("Lossy", "content");
    const args = { action: "duplicate", id: src };
    const pre = await h.call("document", { ...args, validateOnly: true });
    h.sandbox.control.armFault({ endpoint: DUPLICATE, kind: "resetAfterApply" });
    const writes = h.writes(DUPLICATE);
    const commit = await h.call("document", h.commitArgs(args, pre.structuredContent));
    expect(errorCode(commit), JSON.stringify(commit.structuredContent)).toBe("outcome_unknown");
    expect(h.writes(DUPLICATE)).toBe(writes + 1);
    const replay = await h.call("document", h.commitArgs(args, pre.structuredContent));
    expect(errorCode(replay)).toBe("outcome_unknown");
    expect(h.writes(DUPLICATE)).toBe(writes + 1);
  });

  it("copyMismatch: the content, the new IDs, the title and the attributes are each checked", () => {
    const src = "20260101000000-aaaaaaa";
    const copy = "20260102030405-bbbbbbb";
    const p1 = "20260101000000-ccccccc";
    const p2 = "20260101000000-ddddddd";
    const c1 = "20260102030405-eeeeeee";
    const c2 = "20260102030405-fffffff";
    const source = `one\n{: id="${p1}" custom-avs="x"}\n\nsee ((${p1} 'one'))\n{: id="${p2}"}\n\n{: id="${src}" title="T" type="doc" custom-k="v"}`;
    const good = `one\n{: id="${c1}"}\n\nsee ((${c1} 'one'))\n{: id="${c2}"}\n\n{: id="${copy}" title="T (Duplicated 2026-01-02 03:04:05)" type="doc" custom-k="v"}`;
    expect(copyMismatch(src, source, copy, good)).toBeUndefined();
    expect(copyMismatch(src, source, copy, good.replace("one\n", "two\n"))).toMatch(
      /does not hold the content/,
    );
    expect(copyMismatch(src, source, copy, good.replaceAll(c1, p1))).toMatch(/shares block IDs/);
    expect(copyMismatch(src, source, copy, good.replace(`((${c1}`, `((${p1}`))).toMatch(
      /does not hold the content/,
    );
    expect(copyMismatch(src, source, copy, good.replace("03:04:05", "03:04:06"))).toMatch(
      /is titled/,
    );
    expect(copyMismatch(src, source, copy, good.replace(' custom-k="v"', ""))).toMatch(
      /does not keep the attributes/,
    );
  });
});

/**
 * block.replace against the sandbox kernel through the tool runtime: a literal replacement inside
 * one block, planned and written as block.update (ID and attributes kept, one updateBlock), read
 * back as the old content with the replacement applied; a replay writes nothing; the preflight
 * refuses what the commit would (text not found, several occurrences without all, a container,
 * a replacement writing an attribute list or a second block) before any lease or write.
 */
import { describe, expect, it } from "vitest";
import { errorCode, useHarness } from "./harness.js";

const UPDATE = "/api/block/updateBlock";

describe("block.replace", () => {
  const h = useHarness();

  const doc = (title: string, markdown: string) => h.doc(title, markdown);

  const body = (id: string) => (h.sandbox.control.kramdown(id) ?? "").replace(/\n\{:[^\n]*\}$/, "");

  it("replaces the one occurrence, keeps ID and attributes, answers replacedCount; a replay writes nothing", async () => {
    const d = await doc("Colours", "the **colour** of the sea\n\nanother colour here");
    const [p] = d.blocks as [string];
    h.sandbox.control.external.setBlockAttrs(p, { "custom-owner": "ana", alias: "sea" });
    await h.client.flush();

    const args = { action: "replace", id: p, find: "colour", replacement: "color" };
    const pre = await h.call("block", { ...args, validateOnly: true });
    const pc = pre.structuredContent;
    expect(pre.isError, JSON.stringify(pc)).toBeFalsy();
    expect(pc["preconditionField"]).toBe("expectedStateHash");
    expect(pc["occurrences"]).toBe(1);

    const writes = h.writes(UPDATE);
    const commit = await h.call("block", h.commitArgs(args, pc));
    const c = commit.structuredContent;
    expect(c["status"], JSON.stringify(c)).toBe("committed");
    expect(c).toMatchObject({ id: p, replacedCount: 1 });
    expect(h.writes(UPDATE)).toBe(writes + 1);
    expect(body(p)).toBe("the **color** of the sea");
    const attrs = h.sandbox.control.attrs(p) ?? {};
    expect(attrs).toMatchObject({ id: p, "custom-owner": "ana", alias: "sea" });
    // the other block is untouched
    expect(body(d.blocks[1] as string)).toBe("another colour here");

    const replay = await h.call("block", h.commitArgs(args, pc));
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(h.writes(UPDATE)).toBe(writes + 1);
  });

  it("several occurrences: refused without all (writes nothing), replaced everywhere with all=true", async () => {
    const d = await doc("Many", "a cat, a cat and a cat");
    const p = d.blocks[0] as string;
    const writes = h.writes(UPDATE);
    const ambiguous = await h.call("block", {
      action: "replace",
      id: p,
      find: "cat",
      replacement: "dog",
      validateOnly: true,
    });
    expect(errorCode(ambiguous)).toBe("invalid_arguments");
    expect(ambiguous.structuredContent["error"]).toMatchObject({
      reason: "ambiguous",
      occurrences: 3,
    });
    expect(h.writes(UPDATE)).toBe(writes);

    const { commit } = await h.write("block", {
      action: "replace",
      id: p,
      find: "cat",
      replacement: "$& dog",
      all: true,
    });
    expect(commit.structuredContent, JSON.stringify(commit.structuredContent)).toMatchObject({
      status: "committed",
      replacedCount: 3,
    });
    // literal: `$&` is not a pattern
    expect(body(p)).toBe("a $& dog, a $& dog and a $& dog");
  });

  it("the preflight refuses what the commit would: not found, a container, an attribute list, a second block, an empty block", async () => {
    const d = await doc("Refusals", "plain words\n\n> quoted words");
    const [p, quote] = d.blocks as [string, string];
    const writes = h.writes(UPDATE);
    const reasonOf = async (args: Record<string, unknown>) => {
      const r = await h.call("block", { action: "replace", ...args, validateOnly: true });
      expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("invalid_arguments");
      return (r.structuredContent["error"] as { reason: string }).reason;
    };
    expect(await reasonOf({ id: p, find: "absent", replacement: "x" })).toBe("text_not_found");
    expect(await reasonOf({ id: quote, find: "words", replacement: "x" })).toBe("not_a_text_block");
    expect(await reasonOf({ id: d.id, find: "plain", replacement: "x" })).toBe("not_a_text_block");
    expect(await reasonOf({ id: p, find: "words", replacement: 'words\n{: custom-x="1"}' })).toBe(
      "writes_attributes",
    );
    expect(await reasonOf({ id: p, find: " words", replacement: "\n\nsecond" })).toBe(
      "several_blocks",
    );
    expect(await reasonOf({ id: p, find: "plain words", replacement: "" })).toBe("empty_result");
    const unknown = await h.call("block", {
      action: "replace",
      id: "20200101000000-zzzzzzz",
      find: "a",
      replacement: "b",
      validateOnly: true,
    });
    expect(errorCode(unknown)).toBe("not_found");
    expect(h.writes(UPDATE)).toBe(writes);
  });

  it("a block changed after the preflight answers state_changed and writes nothing", async () => {
    const d = await doc("Drift", "before text");
    const p = d.blocks[0] as string;
    const args = { action: "replace", id: p, find: "before", replacement: "after" };
    const pre = await h.call("block", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    // someone else removes the text in between: the commit's re-probe cannot plan, the digests differ
    h.sandbox.control.external.updateBlock(p, "changed text");
    await h.client.flush();
    const writes = h.writes(UPDATE);
    const commit = await h.call("block", h.commitArgs(args, pre.structuredContent));
    expect(errorCode(commit)).toBe("state_changed");
    expect(h.writes(UPDATE)).toBe(writes);
    expect(body(p)).toBe("changed text");
    // the answer carries the block as it is now, as block.get_kramdown reads it (D-290)
    const now = await h.call("block", { action: "get_kramdown", id: p });
    const error = commit.structuredContent["error"] as { details: Record<string, unknown> };
    expect(error.details["current"]).toEqual({ [p]: now.structuredContent["kramdown"] });
  });

  it("a replacement equal to the text answers no_change", async () => {
    const d = await doc("Same", "keep this text");
    const p = d.blocks[0] as string;
    const { commit } = await h.write("block", {
      action: "replace",
      id: p,
      find: "this",
      replacement: "this",
    });
    expect(commit.structuredContent["status"], JSON.stringify(commit.structuredContent)).toBe(
      "no_change",
    );
    expect(body(p)).toBe("keep this text");
  });

  it("replaces inside a heading and a list item's paragraph, keeping the block type", async () => {
    const d = await doc("Shapes", "## Old title\n\n- old item");
    const [heading, list] = d.blocks as [string, string];
    const item = (await h.client.block.getChildBlocks({ id: list }))[0]?.id as string;
    const para = (await h.client.block.getChildBlocks({ id: item }))[0]?.id as string;
    const a = await h.write("block", {
      action: "replace",
      id: heading,
      find: "Old",
      replacement: "New",
    });
    expect(a.commit.structuredContent["status"]).toBe("committed");
    expect(body(heading)).toBe("## New title");
    const b = await h.write("block", {
      action: "replace",
      id: para,
      find: "old",
      replacement: "new",
    });
    expect(b.commit.structuredContent["status"], JSON.stringify(b.commit.structuredContent)).toBe(
      "committed",
    );
    expect(body(para)).toBe("new item");
    expect((await h.client.block.getChildBlocks({ id: list }))[0]?.id).toBe(item);
  });
});

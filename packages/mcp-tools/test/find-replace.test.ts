/**
 * block.find_replace against the sandbox kernel through the tool runtime: every literal
 * occurrence replaced in each given block that holds the text, written through block.update's
 * plans (IDs and attributes kept; several blocks in one batchUpdateBlock), read back block by
 * block; the preflight lists each match with its state hash and the blocks without the text; a
 * replay writes nothing; a block changed after the preflight answers state_changed before any
 * write; the action needs the user's confirmation.
 */
import { describe, expect, it } from "vitest";
import { kernelFromClient } from "../src/kernel-client.js";
import { readBlockState } from "../src/state/block-state.js";
import { blockHash } from "../src/tools/block/find-replace.js";
import { errorCode, useHarness } from "./harness.js";

const UPDATE = "/api/block/updateBlock";
const BATCH = "/api/block/batchUpdateBlock";
const FIND_REPLACE = "/api/search/findReplace";

describe("block.find_replace", () => {
  const h = useHarness();

  const doc = (title: string, markdown: string) => h.doc(title, markdown);

  const body = (id: string) => (h.sandbox.control.kramdown(id) ?? "").replace(/\n\{:[^\n]*\}$/, "");
  const writes = () => h.writes(UPDATE) + h.writes(BATCH) + h.writes(FIND_REPLACE);

  it("replaces every occurrence in each matching block in one batch, keeps IDs and attributes; lists the unmatched; a replay writes nothing", async () => {
    const a = await doc("FR One", "the **colour** red, colour blue\n\nno match here");
    const b = await doc("FR Two", "## colour chart");
    const [p1, p2] = a.blocks as [string, string];
    const [h1] = b.blocks as [string];
    h.sandbox.control.external.setBlockAttrs(p1, { "custom-owner": "ana" });
    await h.client.flush();

    const args = {
      action: "find_replace",
      ids: [p1, p2, h1],
      find: "colour",
      replacement: "color",
    };
    const pre = await h.call("block", { ...args, validateOnly: true }, true);
    const pc = pre.structuredContent;
    expect(pre.isError, JSON.stringify(pc)).toBeFalsy();
    expect(pc["preconditionField"]).toBe("expectedManifestHash");
    expect(pc["confirmationRequired"]).toBe(true);
    const kernel = kernelFromClient(h.client).reads;
    const s1 = await readBlockState(kernel, p1);
    const s3 = await readBlockState(kernel, h1);
    expect(pc["matches"]).toEqual([
      { id: p1, occurrences: 2, stateHash: blockHash(s1) },
      { id: h1, occurrences: 1, stateHash: blockHash(s3) },
    ]);
    expect(pc["unmatched"]).toEqual([p2]);
    expect(blockHash(s1)).toMatch(/^[0-9a-f]{12}$/);

    const before = writes();
    const batches = h.writes(BATCH);
    const commit = await h.call("block", h.commitArgs(args, pc), true);
    const c = commit.structuredContent;
    expect(c["status"], JSON.stringify(c)).toBe("committed");
    expect(c).toMatchObject({
      blocks: [
        { id: p1, replacedCount: 2 },
        { id: h1, replacedCount: 1 },
      ],
      replacedCount: 3,
      unmatched: [p2],
    });
    expect(h.writes(BATCH)).toBe(batches + 1);
    expect(writes()).toBe(before + 1);
    expect(body(p1)).toBe("the **color** red, color blue");
    expect(body(h1)).toBe("## color chart");
    expect(body(p2)).toBe("no match here");
    expect(h.sandbox.control.attrs(p1)).toMatchObject({ id: p1, "custom-owner": "ana" });

    const replay = await h.call("block", h.commitArgs(args, pc), true);
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(writes()).toBe(before + 1);
  });

  it("keeps the attributes of a block whose Markdown cannot carry them (a code block: restored after the batch)", async () => {
    const d = await doc("FR Code", "```js\nconst colour = 1;\n```\n\nthe colour");
    const [code, para] = d.blocks as [string, string];
    h.sandbox.control.external.setBlockAttrs(code, { "custom-lang-note": "x" });
    await h.client.flush();
    const { commit } = await h.write(
      "block",
      { action: "find_replace", ids: [code, para], find: "colour", replacement: "color" },
      true,
    );
    expect(commit.structuredContent["status"], JSON.stringify(commit.structuredContent)).toBe(
      "committed",
    );
    expect(body(code)).toBe("```js\nconst color = 1;\n```");
    expect(body(para)).toBe("the color");
    expect(h.sandbox.control.attrs(code)).toMatchObject({ "custom-lang-note": "x" });
  });

  it("does not write without the user's confirmation", async () => {
    const d = await doc("FR Confirm", "a typo teh here");
    const p = d.blocks[0] as string;
    const args = { action: "find_replace", ids: [p], find: "teh", replacement: "the" };
    const pre = await h.call("block", { ...args, validateOnly: true });
    expect(pre.structuredContent["confirmationRequired"]).toBe(true);
    const before = writes();
    const commit = await h.call("block", h.commitArgs(args, pre.structuredContent));
    expect(commit.isError).toBe(true);
    expect(writes()).toBe(before);
    expect(body(p)).toBe("a typo teh here");
  });

  it("a matched block changed after the preflight answers state_changed and writes nothing, not even the unchanged blocks", async () => {
    const d = await doc("FR Drift", "old one\n\nold two");
    const [p1, p2] = d.blocks as [string, string];
    const args = { action: "find_replace", ids: [p1, p2], find: "old", replacement: "new" };
    const pre = await h.call("block", { ...args, validateOnly: true }, true);
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    h.sandbox.control.external.updateBlock(p2, "old two, edited elsewhere");
    await h.client.flush();
    const before = writes();
    const commit = await h.call("block", h.commitArgs(args, pre.structuredContent), true);
    expect(errorCode(commit)).toBe("state_changed");
    expect(writes()).toBe(before);
    expect(body(p1)).toBe("old one");
    expect(body(p2)).toBe("old two, edited elsewhere");
  });

  it("an unmatched block that gains the text after the preflight answers state_changed", async () => {
    const d = await doc("FR Gain", "old one\n\nnothing");
    const [p1, p2] = d.blocks as [string, string];
    const args = { action: "find_replace", ids: [p1, p2], find: "old", replacement: "new" };
    const pre = await h.call("block", { ...args, validateOnly: true }, true);
    expect(pre.structuredContent["unmatched"]).toEqual([p2]);
    h.sandbox.control.external.updateBlock(p2, "now old too");
    await h.client.flush();
    const before = writes();
    const commit = await h.call("block", h.commitArgs(args, pre.structuredContent), true);
    expect(errorCode(commit)).toBe("state_changed");
    expect(writes()).toBe(before);
    expect(body(p1)).toBe("old one");
  });

  it("the preflight refuses what the commit would: no block with the text, an unknown block, a container holding it, a replacement writing attributes", async () => {
    const d = await doc("FR Refuse", "plain text\n\n> quoted word");
    const [p, quote] = d.blocks as [string, string];
    const before = writes();
    const call = (args: Record<string, unknown>) =>
      h.call("block", { action: "find_replace", validateOnly: true, ...args }, true);

    const none = await call({ ids: [p], find: "absent", replacement: "x" });
    expect(errorCode(none)).toBe("invalid_arguments");
    expect(none.structuredContent["error"]).toMatchObject({
      reason: "text_not_found",
      unmatched: [p],
    });
    // matched literally and case-sensitively
    const cased = await call({ ids: [p], find: "Plain", replacement: "x" });
    expect(errorCode(cased)).toBe("invalid_arguments");

    const unknown = await call({
      ids: [p, "20200101000000-zzzzzzz"],
      find: "text",
      replacement: "x",
    });
    expect(errorCode(unknown)).toBe("not_found");

    const container = await call({ ids: [quote], find: "word", replacement: "term" });
    expect(errorCode(container)).toBe("invalid_arguments");
    expect(container.structuredContent["error"]).toMatchObject({ reason: "not_a_text_block" });

    const attrs = await call({ ids: [p], find: "text", replacement: '{: custom-x="1"}' });
    expect(errorCode(attrs)).toBe("invalid_arguments");
    expect(attrs.structuredContent["error"]).toMatchObject({ reason: "writes_attributes" });
    expect(writes()).toBe(before);
  });

  it("one block is written with updateBlock; a replacement equal to the text answers no_change", async () => {
    const d = await doc("FR Single", "single old word");
    const p = d.blocks[0] as string;
    const updates = h.writes(UPDATE);
    const { commit } = await h.write(
      "block",
      { action: "find_replace", ids: [p, p], find: "old", replacement: "new" },
      true,
    );
    expect(commit.structuredContent["status"], JSON.stringify(commit.structuredContent)).toBe(
      "committed",
    );
    expect(h.writes(UPDATE)).toBe(updates + 1);
    expect(body(p)).toBe("single new word");

    const same = await h.write(
      "block",
      { action: "find_replace", ids: [p], find: "new", replacement: "new" },
      true,
    );
    expect(same.commit.structuredContent["status"]).toBe("no_change");
    expect(body(p)).toBe("single new word");
  });
});

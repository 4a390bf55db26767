/**
 * block.move with `position: "last"` (issue 33's trial: moving to the end of a document took a read
 * of its last block first). The probe resolves "last" from the state the precondition hashes; the
 * commit moves the block after that child and the readback requires it there. Against the sandbox
 * kernel over loopback, through the real coordinator.
 */
import { describe, expect, it } from "vitest";
import { errorCode, useHarness } from "./harness.js";

const h = useHarness();
let seq = 0;

/** A document of paragraphs; their IDs in document order. */
async function doc(paragraphs: readonly string[]) {
  const id = h.sandbox.control.external.createDoc(
    h.notebook,
    `/Move last ${++seq}`,
    paragraphs.join("\n\n"),
  );
  await h.client.flush();
  const blocks = (await h.client.block.getChildBlocks({ id })).map((c) => c.id);
  return { id, blocks };
}

const order = async (id: string) => (await h.client.block.getChildBlocks({ id })).map((c) => c.id);

describe('block.move position: "last"', () => {
  it("puts a block after the last block of another document, confirmed, and says so", async () => {
    const from = await doc(["one", "two"]);
    const to = await doc(["alpha", "beta", "gamma"]);
    const { preflight, commit } = await h.write(
      "block",
      { action: "move", id: from.blocks[0], parentID: to.id, position: "last" },
      true,
    );
    expect(preflight["confirmationRequired"]).toBe(true);
    expect(commit.isError, JSON.stringify(commit.structuredContent)).toBeUndefined();
    expect(commit.structuredContent["status"]).toBe("committed");
    expect(await order(to.id)).toEqual([...to.blocks, from.blocks[0]]);
    expect(await order(from.id)).toEqual([from.blocks[1]]);
    // Where it landed, as read back: its document and the block right before it.
    expect(commit.structuredContent["documentID"]).toBe(to.id);
    expect(commit.structuredContent["previousID"]).toBe(to.blocks[2]);
    const replay = await h.call(
      "block",
      h.commitArgs(
        { action: "move", id: from.blocks[0], parentID: to.id, position: "last" },
        preflight,
      ),
      true,
    );
    expect(replay.structuredContent["replayed"]).toBe(true);
    expect(replay.structuredContent["previousID"]).toBe(to.blocks[2]);
  });

  it("first is the default, as before", async () => {
    const d = await doc(["one", "two", "three"]);
    const { commit } = await h.write("block", {
      action: "move",
      id: d.blocks[2],
      parentID: d.id,
      position: "first",
    });
    expect(commit.structuredContent["status"]).toBe("committed");
    expect(await order(d.id)).toEqual([d.blocks[2], d.blocks[0], d.blocks[1]]);
    expect(commit.structuredContent["documentID"]).toBe(d.id);
    expect(commit.structuredContent["previousID"]).toBeNull();
  });

  it("a block already last answers no_change", async () => {
    const d = await doc(["one", "two", "three"]);
    const { commit } = await h.write("block", {
      action: "move",
      id: d.blocks[2],
      parentID: d.id,
      position: "last",
    });
    expect(commit.structuredContent["status"]).toBe("no_change");
    expect(await order(d.id)).toEqual(d.blocks);
  });

  it("a block added at the end after the preflight is a changed target: nothing moved", async () => {
    const d = await doc(["one", "two"]);
    const args = { action: "move", id: d.blocks[0], parentID: d.id, position: "last" };
    const pre = await h.call("block", { ...args, validateOnly: true });
    h.sandbox.control.external.appendBlock(d.id, "three");
    await h.client.flush();
    const after = await order(d.id);
    const r = await h.call("block", h.commitArgs(args, pre.structuredContent));
    expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("state_changed");
    expect(await order(d.id)).toEqual(after);
  });

  it("position with previousID is refused before anything is issued", async () => {
    const d = await doc(["one", "two"]);
    const r = await h.call("block", {
      action: "move",
      id: d.blocks[0],
      previousID: d.blocks[1],
      position: "last",
      validateOnly: true,
    });
    expect(errorCode(r)).toBe("invalid_arguments");
    expect(r.structuredContent["requestId"]).toBeUndefined();
  });
});

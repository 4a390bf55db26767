/**
 * A commit that wrote answers the written blocks as its readback read them (`current`, D-357):
 * what `block.get_kramdown` answers right after, so the agent needs no read to see the result.
 * Small answers only; a replay, which wrote nothing, shows the target only as it reads it now.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMIT_CURRENT_MAX_CHARS } from "../src/runtime.js";
import { type Harness, startHarness } from "./harness.js";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

async function kramdownOf(id: string): Promise<string> {
  const r = await h.call("block", { action: "get_kramdown", id });
  return String(r.structuredContent["kramdown"]);
}

describe("a commit's answer shows what it wrote", () => {
  it("block.append into a list: the new item as read back", async () => {
    const d = await h.doc("Current list", "- [ ] one\n- [ ] two");
    const list = d.blocks[0] as string;
    const { commit } = await h.write("block", {
      action: "append",
      parentID: list,
      data: "- [ ] Write the tests",
    });
    const id = String(commit.structuredContent["id"]);
    const current = commit.structuredContent["current"] as Record<string, string>;
    expect(Object.keys(current)).toEqual([id]);
    expect(current[id]).toContain("[ ] Write the tests");
    expect(current[id]).toBe(await kramdownOf(id));
  });

  it("block.update of several blocks: each as read back; a replay shows them only as it finds them now", async () => {
    const d = await h.doc("Current update", "alpha\n\nbeta");
    const [a, b] = d.blocks as [string, string];
    const args = {
      action: "update",
      items: [
        { id: a, data: "alpha two" },
        { id: b, data: "beta two" },
      ],
    };
    const { preflight, commit } = await h.write("block", args);
    const current = commit.structuredContent["current"] as Record<string, string>;
    expect(Object.keys(current).sort()).toEqual([a, b].sort());
    expect(current[a]).toBe(await kramdownOf(a));
    expect(current[b]).toContain("beta two");
    // The ledger holds no note content: a replay shows the blocks as its probe read them just
    // now, and only when they still hold the result (D-360).
    const replay = await h.call("block", h.commitArgs(args, preflight));
    expect(replay.structuredContent["replayed"]).toBe(true);
    expect(replay.structuredContent["targetNow"]).toBe("holds_result");
    expect(replay.structuredContent["current"]).toEqual(current);
    h.sandbox.control.external.updateBlock(b, "beta edited elsewhere");
    await h.client.flush();
    const later = await h.call("block", h.commitArgs(args, preflight));
    expect(later.structuredContent["replayed"]).toBe(true);
    expect(later.structuredContent["targetNow"]).toBe("changed_since");
    expect(later.structuredContent).not.toHaveProperty("current");
  });

  it("block.replace: the block after the replacement", async () => {
    const d = await h.doc("Current replace", "Status: draft, owned by Ana.");
    const id = d.blocks[0] as string;
    const { commit } = await h.write("block", {
      action: "replace",
      id,
      find: "draft",
      replacement: "in review",
    });
    const current = commit.structuredContent["current"] as Record<string, string>;
    expect(current[id]).toContain("Status: in review, owned by Ana.");
    expect(current[id]).toBe(await kramdownOf(id));
  });

  it("block.set_attrs: the block with its merged attributes", async () => {
    const d = await h.doc("Current attrs", "decided");
    const id = d.blocks[0] as string;
    await h.write("block", { action: "set_attrs", id, attrs: { "custom-priority": "high" } });
    const { commit } = await h.write("block", {
      action: "set_attrs",
      id,
      attrs: { "custom-reviewed": "yes" },
    });
    const current = commit.structuredContent["current"] as Record<string, string>;
    expect(current[id]).toContain('custom-priority="high"');
    expect(current[id]).toContain('custom-reviewed="yes"');
    expect(current[id]).toBe(await kramdownOf(id));
  });

  it("document.create: the new document's blocks as read back; fs.write answers paths, not Kramdown", async () => {
    const args = {
      action: "create",
      notebook: h.notebook,
      hpath: "/Current created",
      markdown: "What went well: the sandbox.",
    };
    const { commit } = await h.write("document", args);
    const id = String(commit.structuredContent["id"]);
    const current = commit.structuredContent["current"] as Record<string, string>;
    expect(Object.keys(current)).toEqual([id]);
    expect(current[id]).toMatch(/^What went well: the sandbox\.\n\{: id="[^"]+"/);
    const ownIal = String(current[id]).trimEnd().split("\n").at(-1);
    expect(ownIal).toContain(`id="${id}"`);
    expect(ownIal).toContain('title="Current created"');
    expect(current[id]).toBe(await kramdownOf(id));
    const viaFs = await h.write("fs", {
      action: "write",
      path: `/${h.notebookName}/Current fs created`,
      markdown: "by path",
    });
    expect(viaFs.commit.structuredContent["status"]).toBe("committed");
    expect(viaFs.commit.structuredContent).not.toHaveProperty("current");
  });

  it("document.rename: the title as read back, on the commit and its replay", async () => {
    const d = await h.doc("Reading List", "a book");
    const args = { action: "rename", id: d.id, title: "Reading Queue" };
    const { preflight, commit } = await h.write("document", args);
    expect(commit.structuredContent["status"]).toBe("committed");
    expect(commit.structuredContent["title"]).toBe("Reading Queue");
    expect(await h.client.filetree.getHPathByID({ id: d.id })).toBe("/Reading Queue");
    const replay = await h.call("document", h.commitArgs(args, preflight));
    expect(replay.structuredContent["replayed"]).toBe(true);
    expect(replay.structuredContent["title"]).toBe("Reading Queue");
  });

  it("leaves out a write larger than the limit", async () => {
    const d = await h.doc("Current large", "small");
    const id = d.blocks[0] as string;
    const { commit } = await h.write("block", {
      action: "update",
      id,
      data: "word ".repeat(COMMIT_CURRENT_MAX_CHARS / 4),
    });
    expect(commit.structuredContent["status"]).toBe("committed");
    expect(commit.structuredContent).not.toHaveProperty("current");
  });
});

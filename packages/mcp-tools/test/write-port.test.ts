/**
 * The kernel writes reach handlers only through the coordinator's tracker: probes, readbacks and
 * reads see a read-only port (the `@ts-expect-error` lines fail `typecheck` if that ever changes),
 * and an executor's writes are counted, so a failure after the first write is `outcome_unknown`.
 */
import { describe, expect, it } from "vitest";
import type { MutationHandler, ToolContext, WriteContext } from "../src/handler.js";
import { errorCode, useHarness } from "./harness.js";

/** Never called: checked by the compiler only. */
export function typeLevel(ctx: ToolContext, wctx: WriteContext): void {
  // @ts-expect-error a probe or readback context has no write methods
  void ctx.kernel.updateBlock;
  // @ts-expect-error nor a write port
  void ctx.write;
  // @ts-expect-error an executor's reads port has no write methods either: writes go through `write`
  void wctx.kernel.setBlockAttrs;
  void wctx.write.updateBlock;
  const handler: MutationHandler<{ id: string }> = {
    targets: (a) => [a.id],
    probe: async () => ({ state: null, notebooks: [], snapshot: undefined }),
    // @ts-expect-error an executor typed on ToolContext cannot write
    execute: async (c: ToolContext) => c.kernel.deleteBlock("x"),
    readback: async () => ({ state: null, verdict: "applied" }),
  };
  void handler;
}

describe("tracked kernel writes", () => {
  const h = useHarness();

  it("an update keeps a list item's own attributes (its IAL follows the marker)", async () => {
    const doc = h.sandbox.control.external.createDoc(h.notebook, "/list-item-attrs", "seed");
    const [list] = h.sandbox.control.external.appendBlock(doc, "* one\n* two");
    await h.client.flush();
    const item = (await h.client.block.getChildBlocks({ id: list as string }))[0]?.id as string;
    h.sandbox.control.external.setBlockAttrs(item, { "custom-owner": "ann" });
    const { commit } = await h.write("block", {
      action: "update",
      id: item,
      dataType: "markdown",
      data: "* uno",
    });
    expect(commit.structuredContent["status"], JSON.stringify(commit.structuredContent)).toBe(
      "committed",
    );
    expect(h.sandbox.control.attrs(item)?.["custom-owner"]).toBe("ann");
    expect(h.sandbox.control.kramdown(item)).toContain("uno");
  });

  it("a Markdown update keeps the target's attributes in one write", async () => {
    const doc = h.sandbox.control.external.createDoc(h.notebook, "/one-write", "seed");
    const [id] = h.sandbox.control.external.appendBlock(doc, "alpha one");
    h.sandbox.control.external.setBlockAttrs(id as string, { "custom-owner": "ann", alias: "a1" });
    const updates = h.writes("/api/block/updateBlock");
    const attrWrites = h.writes("/api/attr/setBlockAttrs");
    const { commit } = await h.write("block", {
      action: "update",
      id,
      dataType: "markdown",
      data: "one **x**",
    });
    expect(commit.structuredContent["status"]).toBe("committed");
    expect(h.writes("/api/block/updateBlock")).toBe(updates + 1);
    expect(h.writes("/api/attr/setBlockAttrs")).toBe(attrWrites);
    expect(h.sandbox.control.attrs(id as string)).toMatchObject({
      "custom-owner": "ann",
      alias: "a1",
    });
  });

  it("a two-step update on a block with attributes whose second step is refused is outcome_unknown", async () => {
    const doc = h.sandbox.control.external.createDoc(h.notebook, "/write-port", "seed");
    const [id] = h.sandbox.control.external.appendBlock(doc, "alpha one");
    h.sandbox.control.external.setBlockAttrs(id as string, { "custom-owner": "ann", alias: "a1" });
    const args = {
      action: "update",
      id,
      dataType: "dom",
      data: '<div data-type="NodeParagraph"><div contenteditable="true">one</div></div>',
    };
    const pre = await h.call("block", { ...args, validateOnly: true });
    expect(pre.isError).toBeUndefined();
    // Refuse the connection for the next setBlockAttrs only, after updateBlock went through.
    const original = h.client.attr.setBlockAttrs;
    let refusedOnce = false;
    (h.client.attr as { setBlockAttrs: typeof original }).setBlockAttrs = async (a) => {
      if (!refusedOnce) {
        refusedOnce = true;
        await h.sandbox.control.refuseConnections(true);
        try {
          return await original(a);
        } finally {
          await h.sandbox.control.refuseConnections(false);
        }
      }
      return original(a);
    };
    try {
      const r = await h.call("block", h.commitArgs(args, pre.structuredContent));
      expect(refusedOnce).toBe(true);
      expect(errorCode(r)).toBe("outcome_unknown");
      const err = r.structuredContent["error"] as Record<string, unknown>;
      expect(err["writeAttempted"]).toBe(true);
      expect(h.writes("/api/block/updateBlock")).toBeGreaterThanOrEqual(1);
      // A replay never writes again and never claims success.
      const before = h.writes("/api/block/updateBlock");
      const replay = await h.call("block", h.commitArgs(args, pre.structuredContent));
      expect(errorCode(replay)).toBe("outcome_unknown");
      expect(h.writes("/api/block/updateBlock")).toBe(before);
    } finally {
      (h.client.attr as { setBlockAttrs: typeof original }).setBlockAttrs = original;
    }
  });
});

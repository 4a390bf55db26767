/**
 * block.set_fold_state, block.transfer_references and block.add_to_daily_note against the sandbox
 * kernel through the tool runtime: each commit read back as requested (the fold attribute, every
 * reference re-pointed, the new block in today's note where asked), a replay that writes nothing,
 * and the preflight refusing what the commit would before any lease or write.
 */
import { describe, expect, it } from "vitest";
import { errorCode, useHarness } from "./harness.js";

const FOLD = "/api/block/foldBlock";
const UNFOLD = "/api/block/unfoldBlock";
const TRANSFER = "/api/block/transferBlockRef";
const APPEND_DAILY = "/api/block/appendDailyNoteBlock";
const PREPEND_DAILY = "/api/block/prependDailyNoteBlock";

describe("block.set_fold_state, transfer_references, add_to_daily_note", () => {
  const h = useHarness();

  const doc = (title: string, markdown: string) => h.doc(title, markdown);

  const attrs = (id: string) => h.sandbox.control.attrs(id) ?? {};
  const body = (id: string) => (h.sandbox.control.kramdown(id) ?? "").replace(/\n\{:[^\n]*\}$/, "");

  it("folds a heading (its section marked too) and unfolds it; folded again answers no_change; a replay writes nothing", async () => {
    const d = await doc("Fold", "# Head\n\nunder it\n\n- a\n  - nested");
    const [head, under] = d.blocks as [string, string];
    const args = { action: "set_fold_state", id: head, folded: true };
    const pre = await h.call("block", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    expect(pre.structuredContent["preconditionField"]).toBe("expectedStateHash");
    expect(String(pre.structuredContent["note"])).toMatch(/under the heading/);
    const writes = h.writes(FOLD);
    const commit = await h.call("block", h.commitArgs(args, pre.structuredContent));
    expect(commit.structuredContent, JSON.stringify(commit.structuredContent)).toMatchObject({
      status: "committed",
      id: head,
      folded: true,
    });
    expect(h.writes(FOLD)).toBe(writes + 1);
    expect(attrs(head)["fold"]).toBe("1");
    expect(attrs(under)).toMatchObject({ fold: "1", "heading-fold": "1" });
    const replay = await h.call("block", h.commitArgs(args, pre.structuredContent));
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(h.writes(FOLD)).toBe(writes + 1);

    const again = await h.write("block", args);
    expect(again.commit.structuredContent["status"]).toBe("no_change");
    expect(h.writes(FOLD)).toBe(writes + 1);

    const unfold = await h.write("block", { ...args, folded: false });
    expect(unfold.commit.structuredContent["status"]).toBe("committed");
    expect(attrs(head)["fold"]).toBeUndefined();
    expect(attrs(under)["heading-fold"]).toBeUndefined();
  });

  it("refuses a document, a thematic break, a one-line list item and a block hidden by a folded heading", async () => {
    const d = await doc("Not foldable", "# Head\n\nhidden\n\n---\n\n- one line");
    const [head, hidden, hr, list] = d.blocks as [string, string, string, string];
    const item = (await h.client.block.getChildBlocks({ id: list }))[0]?.id as string;
    await h.client.block.foldBlock({ id: head });
    await h.client.flush();
    const folds = h.writes(FOLD) + h.writes(UNFOLD);
    const reasonOf = async (id: string, folded: boolean) => {
      const r = await h.call("block", {
        action: "set_fold_state",
        id,
        folded,
        validateOnly: true,
      });
      expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("invalid_arguments");
      return (r.structuredContent["error"] as { reason: string }).reason;
    };
    expect(await reasonOf(d.id, true)).toBe("not_foldable");
    expect(await reasonOf(hr, true)).toBe("not_foldable");
    expect(await reasonOf(item, true)).toBe("not_foldable");
    expect(await reasonOf(hidden, false)).toBe("hidden_by_heading");
    expect(h.writes(FOLD) + h.writes(UNFOLD)).toBe(folds);
  });

  it("transfers every reference (static anchors kept, dynamic ones take the target's text); a replay writes nothing", async () => {
    const defs = await doc("Defs", "Old target\n\n## New target");
    const [from, to] = defs.blocks as [string, string];
    const refs = await doc(
      "Refs",
      `see ((${from} 'old')) and ((${from} "fixed"))\n\nalso ((${from} 'x'))\n\nnothing here`,
    );
    const [r1, r2, r3] = refs.blocks as [string, string, string];
    const args = { action: "transfer_references", fromID: from, toID: to };
    const pre = await h.call("block", { ...args, validateOnly: true }, true);
    const pc = pre.structuredContent;
    expect(pre.isError, JSON.stringify(pc)).toBeFalsy();
    expect(pc).toMatchObject({
      preconditionField: "expectedManifestHash",
      blockCount: 2,
      referenceCount: 3,
    });
    const writes = h.writes(TRANSFER);
    const commit = await h.call("block", h.commitArgs(args, pc), true);
    expect(commit.structuredContent, JSON.stringify(commit.structuredContent)).toMatchObject({
      status: "committed",
      blockCount: 2,
      referenceCount: 3,
    });
    expect(h.writes(TRANSFER)).toBe(writes + 1);
    expect(body(r1)).toBe(`see ((${to} 'New target')) and ((${to} "fixed"))`);
    expect(body(r2)).toBe(`also ((${to} 'New target'))`);
    expect(body(r3)).toBe("nothing here");
    const replay = await h.call("block", h.commitArgs(args, pc), true);
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(h.writes(TRANSFER)).toBe(writes + 1);

    const none = await h.write("block", args, true);
    expect(none.commit.structuredContent["status"]).toBe("no_change");
    expect(h.writes(TRANSFER)).toBe(writes + 1);
  });

  it("transfer: a reference added after the preflight answers state_changed; the same block and an unknown target are refused", async () => {
    const defs = await doc("Defs two", "source\n\ntarget");
    const [from, to] = defs.blocks as [string, string];
    await doc("Refs two", `one ((${from} 'a'))`);
    const args = { action: "transfer_references", fromID: from, toID: to };
    const pre = await h.call("block", { ...args, validateOnly: true }, true);
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    await doc("Late ref", `late ((${from} 'b'))`);
    const writes = h.writes(TRANSFER);
    const commit = await h.call("block", h.commitArgs(args, pre.structuredContent), true);
    expect(errorCode(commit)).toBe("state_changed");
    expect(h.writes(TRANSFER)).toBe(writes);

    const same = await h.call(
      "block",
      { action: "transfer_references", fromID: to, toID: to, validateOnly: true },
      true,
    );
    expect(errorCode(same)).toBe("invalid_arguments");
    const unknown = await h.call(
      "block",
      {
        action: "transfer_references",
        fromID: from,
        toID: "20200101000000-zzzzzzz",
        validateOnly: true,
      },
      true,
    );
    expect(errorCode(unknown)).toBe("not_found");
    expect(h.writes(TRANSFER)).toBe(writes);
  });

  it("adds to today's daily note (created when absent), last or first; the readback follows the new ID; a replay writes nothing", async () => {
    const nb = (await h.client.notebook.createNotebook({ name: "Daily adds" })).id;
    const args = { action: "add_to_daily_note", notebook: nb, data: "note **one**" };
    const pre = await h.call("block", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    expect(String(pre.structuredContent["note"])).toMatch(/creates/);
    const writes = h.writes(APPEND_DAILY);
    const commit = await h.call("block", h.commitArgs(args, pre.structuredContent));
    const c = commit.structuredContent;
    expect(c["status"], JSON.stringify(c)).toBe("committed");
    const noteID = c["noteID"] as string;
    const kids = async () => (await h.client.block.getChildBlocks({ id: noteID })).map((k) => k.id);
    expect((await kids()).at(-1)).toBe(c["id"]);
    expect(body(c["id"] as string)).toBe("note **one**");
    const replay = await h.call("block", h.commitArgs(args, pre.structuredContent));
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(h.writes(APPEND_DAILY)).toBe(writes + 1);

    const prepends = h.writes(PREPEND_DAILY);
    const first = await h.write("block", { ...args, data: "at the top", position: "prepend" });
    const f = first.commit.structuredContent;
    expect(f["status"], JSON.stringify(f)).toBe("committed");
    expect(f["noteID"]).toBe(noteID);
    expect((await kids())[0]).toBe(f["id"]);
    expect(h.writes(PREPEND_DAILY)).toBe(prepends + 1);
  });

  it("add_to_daily_note: an unknown notebook is refused before any write", async () => {
    const writes = h.writes(APPEND_DAILY);
    const r = await h.call("block", {
      action: "add_to_daily_note",
      notebook: "20200101000000-zzzzzzz",
      data: "x",
      validateOnly: true,
    });
    expect(errorCode(r)).toBe("not_found");
    expect(h.writes(APPEND_DAILY)).toBe(writes);
  });
});

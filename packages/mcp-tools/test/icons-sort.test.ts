/**
 * document.set_child_sort_mode, notebook.set_icon and document.set_icon against the sandbox kernel
 * through the tool runtime: each a state mutation (expectedStateHash) written once and read back
 * through the read a person would check (child_sort_mode, lsNotebooks, the document's attributes);
 * a replay writes nothing; a change after the preflight is state_changed; what the kernel would
 * take but do wrong (a document's "own" mode, an unknown notebook, a text that is no icon) is
 * refused before any write; a lost answer is outcome_unknown.
 */
import { describe, expect, it } from "vitest";
import { iconArg, normalizeIcon } from "../src/args.js";
import { errorCode, useHarness } from "./harness.js";

const CONF = "/api/notebook/setNotebookConf";
const ICON = "/api/notebook/setNotebookIcon";
const ATTRS = "/api/attr/setBlockAttrs";
const UNKNOWN = "20200101000000-zzzzzzz";

describe("icons and the child sort mode", () => {
  const h = useHarness();

  async function notebook(name: string): Promise<string> {
    return h.sandbox.control.external.createNotebook(name);
  }

  const row = async (id: string) =>
    (await h.client.notebook.lsNotebooks()).notebooks.find((n) => n.id === id);

  it("set_child_sort_mode writes the notebook's mode once; child_sort_mode reads it back; a replay writes nothing", async () => {
    const nb = await notebook("Sorted");
    const args = { action: "set_child_sort_mode", notebook: nb, mode: "created_desc" };
    const pre = await h.call("document", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    expect(pre.structuredContent["preconditionField"]).toBe("expectedStateHash");
    const writes = h.writes(CONF);
    const commit = await h.call("document", h.commitArgs(args, pre.structuredContent));
    expect(commit.structuredContent, JSON.stringify(commit.structuredContent)).toMatchObject({
      status: "committed",
      notebook: nb,
      sortMode: 10,
      name: "created_desc",
    });
    expect(h.writes(CONF)).toBe(writes + 1);
    expect((await row(nb))?.sortMode).toBe(10);
    const read = await h.call("document", { action: "child_sort_mode", id: nb });
    expect(read.structuredContent).toMatchObject({ sortMode: 10, setBy: "notebook" });
    const replay = await h.call("document", h.commitArgs(args, pre.structuredContent));
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(h.writes(CONF)).toBe(writes + 1);

    const back = await h.write("document", { ...args, mode: "workspace" });
    expect(back.commit.structuredContent["status"]).toBe("committed");
    expect((await row(nb))?.sortMode).toBe(15);
    const read2 = await h.call("document", { action: "child_sort_mode", id: nb });
    expect(read2.structuredContent).toMatchObject({ setBy: "workspace" });
  });

  it("set_child_sort_mode refuses a document (naming its notebook), an unknown ID and an unknown mode, before any write", async () => {
    const nb = await notebook("Docs inside");
    const doc = h.sandbox.control.external.createDoc(nb, "/Parent", "text");
    await h.sandbox.control.flush();
    const writes = h.writes(CONF);
    const byDoc = await h.call("document", {
      action: "set_child_sort_mode",
      notebook: doc,
      mode: "name_asc",
      validateOnly: true,
    });
    expect(errorCode(byDoc)).toBe("invalid_arguments");
    expect(byDoc.structuredContent["error"]).toMatchObject({ notebook: nb });
    const unknown = await h.call("document", {
      action: "set_child_sort_mode",
      notebook: UNKNOWN,
      mode: "name_asc",
      validateOnly: true,
    });
    expect(errorCode(unknown)).toBe("not_found");
    const badMode = await h.call("document", {
      action: "set_child_sort_mode",
      notebook: nb,
      mode: "alphabetical",
      validateOnly: true,
    });
    expect(errorCode(badMode)).toBe("invalid_arguments");
    expect(h.writes(CONF)).toBe(writes);
  });

  it("set_child_sort_mode: a mode changed after the preflight is state_changed; a lost answer is outcome_unknown", async () => {
    const nb = await notebook("Raced");
    const args = { action: "set_child_sort_mode", notebook: nb, mode: "name_desc" };
    const pre = await h.call("document", { ...args, validateOnly: true });
    h.sandbox.control.external.setNotebookConf(nb, { sortMode: 3 });
    const writes = h.writes(CONF);
    expect(errorCode(await h.call("document", h.commitArgs(args, pre.structuredContent)))).toBe(
      "state_changed",
    );
    expect(h.writes(CONF)).toBe(writes);

    const pre2 = await h.call("document", { ...args, validateOnly: true });
    h.sandbox.control.armFault({ endpoint: CONF, kind: "resetAfterApply" });
    const lost = await h.call("document", h.commitArgs(args, pre2.structuredContent));
    expect(errorCode(lost)).toBe("outcome_unknown");
    expect(h.writes(CONF)).toBe(writes + 1);
  });

  it('notebook.set_icon stores an emoji as its hex code points, read back from lsNotebooks; "" clears', async () => {
    const nb = await notebook("Iconic");
    const writes = h.writes(ICON);
    const set = await h.write("notebook", { action: "set_icon", notebook: nb, icon: "📔" });
    expect(set.commit.structuredContent["status"], JSON.stringify(set.commit)).toBe("committed");
    expect(h.writes(ICON)).toBe(writes + 1);
    expect((await row(nb))?.icon).toBe("1f4d4");
    const again = await h.write("notebook", { action: "set_icon", notebook: nb, icon: "1f4d4" });
    expect(again.commit.structuredContent["status"]).toBe("no_change");
    const clear = await h.write("notebook", { action: "set_icon", notebook: nb, icon: "" });
    expect(clear.commit.structuredContent["status"]).toBe("committed");
    expect((await row(nb))?.icon).toBe("");
  });

  it("notebook.set_icon refuses an unknown notebook (the kernel would make one) and a word that is no icon", async () => {
    const writes = h.writes(ICON);
    const unknown = await h.call("notebook", {
      action: "set_icon",
      notebook: UNKNOWN,
      icon: "1f4d4",
      validateOnly: true,
    });
    expect(errorCode(unknown)).toBe("not_found");
    const word = await h.call("notebook", {
      action: "set_icon",
      notebook: h.notebook,
      icon: "book",
      validateOnly: true,
    });
    expect(errorCode(word)).toBe("invalid_arguments");
    expect(h.writes(ICON)).toBe(writes);
    expect(await row(UNKNOWN)).toBeUndefined();
  });

  it("document.set_icon sets the document's icon attribute as the kernel stores it; a replay writes nothing", async () => {
    const nb = await notebook("Doc icons");
    const doc = h.sandbox.control.external.createDoc(nb, "/Page", "text");
    h.sandbox.control.external.setBlockAttrs(doc, { "custom-kind": "note" });
    await h.sandbox.control.flush();
    const args = { action: "set_icon", id: doc, icon: "👨‍👩‍👧" };
    const pre = await h.call("document", { ...args, validateOnly: true });
    expect(pre.structuredContent["preconditionField"]).toBe("expectedStateHash");
    const writes = h.writes(ATTRS);
    const commit = await h.call("document", h.commitArgs(args, pre.structuredContent));
    expect(commit.structuredContent, JSON.stringify(commit.structuredContent)).toMatchObject({
      status: "committed",
      icon: "1f468-200d-1f469-200d-1f467",
    });
    const attrs = h.sandbox.control.attrs(doc);
    expect(attrs?.["icon"]).toBe("1f468-200d-1f469-200d-1f467");
    expect(attrs?.["custom-kind"]).toBe("note");
    await h.call("document", h.commitArgs(args, pre.structuredContent));
    expect(h.writes(ATTRS)).toBe(writes + 1);
    const clear = await h.write("document", { action: "set_icon", id: doc, icon: "" });
    expect(clear.commit.structuredContent["status"]).toBe("committed");
    expect(h.sandbox.control.attrs(doc)?.["icon"]).toBeUndefined();
  });

  it("document.set_icon refuses a block inside a document and a notebook's ID, before any write", async () => {
    const nb = await notebook("Not docs");
    const doc = h.sandbox.control.external.createDoc(nb, "/Holder", "a paragraph");
    await h.sandbox.control.flush();
    const [para] = await h.client.block.getChildBlocks({ id: doc });
    const writes = h.writes(ATTRS);
    const block = await h.call("document", {
      action: "set_icon",
      id: para?.id,
      icon: "1f4d4",
      validateOnly: true,
    });
    expect(errorCode(block)).toBe("invalid_arguments");
    expect(block.structuredContent["error"]).toMatchObject({ rootID: doc });
    const box = await h.call("document", {
      action: "set_icon",
      id: nb,
      icon: "1f4d4",
      validateOnly: true,
    });
    expect(errorCode(box)).toBe("invalid_arguments");
    expect(h.writes(ATTRS)).toBe(writes);
  });

  it("icons: emoji, hex and emoji files pass; words and filtered names do not; emoji become hex as the kernel's", () => {
    for (const ok of ["", "📔", "❤️", "🇩🇪", "1f4d4", "1f468-200d-1f469", "folder/my icon.png"])
      expect(iconArg.safeParse(ok).success, ok).toBe(true);
    for (const bad of ["book", "a(b).png", "../x.png", "书", "1F4D4", "x.png "])
      expect(iconArg.safeParse(bad).success, bad).toBe(false);
    expect(normalizeIcon("📔")).toBe("1f4d4");
    expect(normalizeIcon("❤️")).toBe("2764-fe0f");
    expect(normalizeIcon("1f4d4")).toBe("1f4d4");
    expect(normalizeIcon("folder/x.png")).toBe("folder/x.png");
  });
});

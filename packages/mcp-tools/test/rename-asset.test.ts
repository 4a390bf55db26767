/**
 * file.rename_asset against the sandbox kernel: SiYuan renames the file (a new ID in its name) and
 * rewrites its old name in every document; the manifest covers each block that holds the name, the
 * readback proves the bytes at the new path and each link rewritten. Refused: the name in text that
 * is not a link (SiYuan would rewrite it too), a closed notebook (rewritten unseen).
 */
import { describe, expect, it } from "vitest";
import { errorCode, useHarness } from "./harness.js";

const RENAME = "/api/asset/renameAsset";

describe("file.rename_asset", () => {
  const h = useHarness();

  const fixture = async (markdown: string) => {
    const nb = h.sandbox.control.external.createNotebook("Work");
    await h.client.file.putFile({ path: "/data/assets/cat.png", file: "cat bytes" });
    const doc = h.sandbox.control.external.createDoc(nb, "/Pets", markdown);
    await h.sandbox.control.flush();
    return { nb, doc };
  };

  it("renames once, reads back the bytes at the new path and the links, replays without a write", async () => {
    const { doc } = await fixture("![c](assets/cat.png)\n\n[file](assets/cat.png)");
    const args = { action: "rename_asset", path: "assets/cat.png", newName: "dog" };
    const pre = await h.call("file", { ...args, validateOnly: true });
    expect(pre.structuredContent).toMatchObject({
      preconditionField: "expectedManifestHash",
      blockCount: 2,
      databaseCount: 0,
    });
    const before = h.writes(RENAME);
    const commit = await h.call("file", h.commitArgs(args, pre.structuredContent));
    const c = commit.structuredContent;
    expect(c["status"], JSON.stringify(c)).toBe("committed");
    const newPath = String(c["newPath"]);
    expect(newPath).toMatch(/^assets\/dog-\d{14}-[a-z0-9]{7}\.png$/);
    expect(h.writes(RENAME)).toBe(before + 1);
    expect(await h.client.asset.getDocAssets({ id: doc })).toEqual([newPath]);
    const file = await h.client.file.getFile({ path: `/data/${newPath}` });
    expect(Buffer.from(file?.bytes ?? []).toString("utf8")).toBe("cat bytes");
    expect(await h.client.file.getFile({ path: "/data/assets/cat.png" })).toBeNull();

    const replay = await h.call("file", h.commitArgs(args, pre.structuredContent));
    expect(replay.structuredContent).toMatchObject({
      status: "committed",
      replayed: true,
      newPath,
    });
    expect(h.writes(RENAME)).toBe(before + 1);
  });

  it("a block linking the asset after the preflight changes the manifest: state_changed, no write", async () => {
    const { nb } = await fixture("![c](assets/cat.png)");
    const args = { action: "rename_asset", path: "assets/cat.png", newName: "dog" };
    const pre = await h.call("file", { ...args, validateOnly: true });
    h.sandbox.control.external.createDoc(nb, "/More", "![again](assets/cat.png)");
    await h.sandbox.control.flush();
    const before = h.writes(RENAME);
    const commit = await h.call("file", h.commitArgs(args, pre.structuredContent));
    expect(errorCode(commit)).toBe("state_changed");
    expect(h.writes(RENAME)).toBe(before);
  });

  it("refuses the name in text, a closed notebook, a name SiYuan would change and a missing asset", async () => {
    const { nb } = await fixture("![c](assets/cat.png) and cat.png in prose");
    const pre = (extra: Record<string, unknown>) =>
      h.call("file", { action: "rename_asset", validateOnly: true, ...extra });
    const prose = await pre({ path: "assets/cat.png", newName: "dog" });
    expect(errorCode(prose)).toBe("invalid_arguments");
    expect((prose.structuredContent["error"] as Record<string, unknown>)["reason"]).toBe(
      "name_in_text",
    );
    await h.client.file.putFile({ path: "/data/assets/owl.png", file: "owl" });
    expect(errorCode(await pre({ path: "assets/owl.png", newName: "a(b)" }))).toBe(
      "invalid_arguments",
    );
    expect(errorCode(await pre({ path: "assets/none.png", newName: "x" }))).toBe("not_found");
    const other = h.sandbox.control.external.createNotebook("Shut");
    await h.client.notebook.closeNotebook({ notebook: other });
    expect(errorCode(await pre({ path: "assets/owl.png", newName: "hawk" }))).toBe(
      "notebook_closed",
    );
    expect(nb).not.toBe(other);
  });
});

/**
 * file.delete_template, file.delete_asset and file.remove_unused_assets against the sandbox kernel:
 * each is dangerous (confirmation), guarded by the state of what it removes, writes once, reads the
 * removal back and replays from the ledger. SiYuan removes a linked asset without a word
 * (kernel-probes asset.removeUnused): the preflight refuses it.
 */
import { describe, expect, it } from "vitest";
import { errorCode, useHarness } from "./harness.js";

const REMOVE_FILE = "/api/file/removeFile";
const REMOVE_ONE = "/api/asset/removeUnusedAsset";
const REMOVE_ALL = "/api/asset/removeUnusedAssets";

function errorOf(r: { structuredContent: Record<string, unknown> }): Record<string, unknown> {
  return (r.structuredContent["error"] ?? {}) as Record<string, unknown>;
}

describe("file removals", () => {
  const h = useHarness();

  const exists = async (path: string) => (await h.client.file.getFile({ path })) !== null;
  const put = (path: string, text: string) => h.client.file.putFile({ path, file: text });

  it("delete_template: confirmation, the file's digest as its state, one removal, replay without a write", async () => {
    await put("/data/templates/weekly.md", "# Weekly\n");
    const args = { action: "delete_template", name: "weekly.md" };
    const pre = await h.call("file", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    expect(pre.structuredContent).toMatchObject({
      preconditionField: "expectedStateHash",
      templatePath: "/data/templates/weekly.md",
      size: 9,
    });
    const before = h.writes(REMOVE_FILE);
    const unconfirmed = await h.call("file", h.commitArgs(args, pre.structuredContent));
    expect(errorCode(unconfirmed)).toBe("confirmation_required");
    expect(h.writes(REMOVE_FILE)).toBe(before);

    const commit = await h.call("file", h.commitArgs(args, pre.structuredContent), true);
    expect(commit.structuredContent["status"], JSON.stringify(commit.structuredContent)).toBe(
      "committed",
    );
    expect(h.writes(REMOVE_FILE)).toBe(before + 1);
    expect(await exists("/data/templates/weekly.md")).toBe(false);

    const replay = await h.call("file", h.commitArgs(args, pre.structuredContent), true);
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(h.writes(REMOVE_FILE)).toBe(before + 1);

    const missing = await h.call("file", { ...args, validateOnly: true });
    expect(errorCode(missing)).toBe("not_found");
  });

  it("delete_template: a template edited after the preflight is state_changed, and stays", async () => {
    await put("/data/templates/daily.md", "v1");
    const args = { action: "delete_template", name: "daily.md" };
    const pre = await h.call("file", { ...args, validateOnly: true });
    await put("/data/templates/daily.md", "v2 by the person");
    const before = h.writes(REMOVE_FILE);
    const commit = await h.call("file", h.commitArgs(args, pre.structuredContent), true);
    expect(errorCode(commit)).toBe("state_changed");
    expect(errorOf(commit)["writeAttempted"]).toBe(false);
    expect(h.writes(REMOVE_FILE)).toBe(before);
    expect(await exists("/data/templates/daily.md")).toBe(true);
  });

  it("delete_asset: refuses a linked asset and a path outside assets/; removes an unused one, read back gone", async () => {
    const nb = h.sandbox.control.external.createNotebook("Work");
    await put("/data/assets/used.png", "used");
    await put("/data/assets/free.png", "free");
    await h.sandbox.control.external.createDoc(nb, "/Doc", "![u](assets/used.png)");
    await h.sandbox.control.flush();

    const used = await h.call("file", {
      action: "delete_asset",
      path: "assets/used.png",
      validateOnly: true,
    });
    expect(errorCode(used)).toBe("invalid_arguments");
    expect(errorOf(used)["reason"]).toBe("asset_in_use");
    const outside = await h.call("file", {
      action: "delete_asset",
      path: "assets/../conf/conf.json",
      validateOnly: true,
    });
    expect(errorCode(outside)).toBe("invalid_arguments");
    const none = await h.call("file", {
      action: "delete_asset",
      path: "assets/none.png",
      validateOnly: true,
    });
    expect(errorCode(none)).toBe("not_found");

    const args = { action: "delete_asset", path: "assets/free.png" };
    const before = h.writes(REMOVE_ONE);
    const { preflight, commit } = await h.write("file", args, true);
    expect(preflight["preconditionField"]).toBe("expectedStateHash");
    expect(commit.structuredContent).toMatchObject({
      status: "committed",
      removed: "assets/free.png",
    });
    expect(h.writes(REMOVE_ONE)).toBe(before + 1);
    expect(await exists("/data/assets/free.png")).toBe(false);
    expect(await exists("/data/assets/used.png")).toBe(true);
  });

  it("delete_asset: an asset linked after the preflight is refused at commit, with no write", async () => {
    const nb = h.sandbox.control.external.createNotebook("Work");
    await put("/data/assets/late.png", "late");
    const args = { action: "delete_asset", path: "assets/late.png" };
    const pre = await h.call("file", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    await h.sandbox.control.external.createDoc(nb, "/Now links", "![l](assets/late.png)");
    await h.sandbox.control.flush();
    const before = h.writes(REMOVE_ONE);
    const commit = await h.call("file", h.commitArgs(args, pre.structuredContent), true);
    expect(errorOf(commit)["reason"]).toBe("asset_in_use");
    expect(errorOf(commit)["writeAttempted"]).toBe(false);
    expect(h.writes(REMOVE_ONE)).toBe(before);
    expect(await exists("/data/assets/late.png")).toBe(true);
  });

  it("remove_unused_assets: a manifest of the unused list; a new unused asset changes it; commit removes exactly the list", async () => {
    const nb = h.sandbox.control.external.createNotebook("Work");
    await put("/data/assets/a.png", "a");
    await put("/data/assets/dir/b.png", "b");
    await put(`/data/${nb}/assets/c.png`, "c");
    await put("/data/assets/kept.png", "kept");
    await h.sandbox.control.external.createDoc(nb, "/Doc", "![k](assets/kept.png)");
    await h.sandbox.control.flush();

    const args = { action: "remove_unused_assets" };
    const pre = await h.call("file", { ...args, validateOnly: true });
    expect(pre.structuredContent).toMatchObject({
      preconditionField: "expectedManifestHash",
      assetCount: 4,
    });
    await put("/data/assets/new.png", "new");
    const before = h.writes(REMOVE_ALL);
    const changed = await h.call("file", h.commitArgs(args, pre.structuredContent), true);
    expect(errorCode(changed)).toBe("state_changed");
    expect(h.writes(REMOVE_ALL)).toBe(before);

    const { commit } = await h.write("file", args, true);
    expect(commit.structuredContent).toMatchObject({ status: "committed", removedCount: 5 });
    expect(h.writes(REMOVE_ALL)).toBe(before + 1);
    for (const p of ["/data/assets/a.png", "/data/assets/dir/b.png", `/data/${nb}/assets/c.png`]) {
      expect(await exists(p), p).toBe(false);
    }
    expect(await exists("/data/assets/kept.png")).toBe(true);

    // Nothing unused: no kernel call, no_change.
    const { commit: empty } = await h.write("file", args, true);
    expect(empty.structuredContent["status"]).toBe("no_change");
    expect(h.writes(REMOVE_ALL)).toBe(before + 1);
  });
});

/**
 * history.snapshot_list, snapshot_create and snapshot_diff against the sandbox kernel through the
 * tool runtime. Without a data repo key (a fresh workspace) every one refuses with
 * `repo_key_not_set` before any `/api/repo/*` request, and none sets a key. With one (the test
 * control, as the person would in SiYuan's settings): create writes once and reads back the new
 * snapshot with its memo, answers no_change with the latest snapshot when the data did not change,
 * never writes twice on a replay, and refuses a blank memo at preflight; list and diff answer what
 * the kernel lists. This file's sandbox is marked for the suite's `/api/repo/*` audit.
 */
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { previewWrite } from "../src/app/preview.js";
import { kernelFromClient } from "../src/index.js";
import { FULL_ACCESS } from "../src/permissions.js";
import { errorCode, useHarness } from "./harness.js";

const CREATE = "/api/repo/createSnapshot";
const LIST = "/api/repo/getRepoSnapshots";

type Row = Record<string, unknown>;

describe("history snapshots", () => {
  const h = useHarness();

  beforeAll(() => {
    h.sandbox.control.expectSnapshotActions();
  });

  it("without a data repo key each action refuses (repo_key_not_set) and calls no repo endpoint", async () => {
    h.sandbox.control.resetLog();
    const answers = [
      await h.call("history", { action: "snapshot_list" }),
      await h.call("history", { action: "snapshot_create", memo: "before", validateOnly: true }),
      await h.call("history", {
        action: "snapshot_diff",
        left: "a".repeat(40),
        right: "b".repeat(40),
      }),
    ];
    for (const a of answers) {
      expect(errorCode(a), JSON.stringify(a.structuredContent)).toBe("invalid_arguments");
      const error = a.structuredContent["error"] as Row;
      expect(error["message"]).toContain("Settings → Account & Sync → Data repo key");
      expect(error).toMatchObject({ reason: "repo_key_not_set" });
      // the key (none here) is never answered
      expect(JSON.stringify(a.structuredContent)).not.toMatch(/"key"/);
    }
    const repoCalls = h.sandbox.control.log().filter((e) => e.path.startsWith("/api/repo/"));
    expect(repoCalls).toEqual([]);
    expect((await h.client.system.getConf()).conf["repo"]).toMatchObject({ key: null });
  });

  const preview = (memo: string) =>
    previewWrite(kernelFromClient(h.client).reads, FULL_ACCESS, "history", {
      action: "snapshot_create",
      memo,
      validateOnly: true,
    });

  it("the preview refuses the same way without a key", async () => {
    await expect(preview("x")).rejects.toMatchObject({ code: "invalid_arguments" });
  });

  it("snapshot_create refuses a blank memo at preflight", async () => {
    h.sandbox.control.setRepoKey();
    const writes = h.writes(CREATE);
    const blank = await h.call("history", {
      action: "snapshot_create",
      memo: " \u200b ",
      validateOnly: true,
    });
    expect(errorCode(blank)).toBe("invalid_arguments");
    expect(blank.structuredContent["error"]).toMatchObject({ reason: "blank_memo" });
    expect(h.writes(CREATE)).toBe(writes);
  });

  it("snapshot_create's preview: the latest snapshot → the new one, nothing written", async () => {
    h.sandbox.control.resetLog();
    const p = await preview(" before\u200b ");
    expect(p.summary).toBe(
      "Saves a snapshot of the whole workspace (2 notebooks) as “before”; none when nothing changed since the latest",
    );
    expect(p.changes).toEqual([
      {
        what: "snapshot",
        where: "(workspace)",
        before: expect.stringMatching(
          /^\[Init\] Init local data repo \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)$/,
        ),
        after: "before (now)",
      },
    ]);
    const paths = new Set(h.sandbox.control.log().map((e) => e.path));
    expect([...paths].sort()).toEqual(
      ["/api/notebook/lsNotebooks", "/api/repo/getRepoSnapshots", "/api/system/getConf"].sort(),
    );
  });

  it("snapshot_create writes once, reads back the new snapshot; a replay writes nothing", async () => {
    await h.doc("Snapshotted", "a paragraph to keep");
    const args = { action: "snapshot_create", memo: "  before the\u00a0big\tedit\u200b " };
    const pre = await h.call("history", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    expect(pre.structuredContent["preconditionField"]).toBeNull();
    const latest = pre.structuredContent["latest"] as Row;
    expect(latest["memo"]).toBe("[Init] Init local data repo");

    const writes = h.writes(CREATE);
    const commit = await h.call("history", h.commitArgs(args, pre.structuredContent));
    const c = commit.structuredContent;
    expect(c["status"], JSON.stringify(c)).toBe("committed");
    // as SiYuan stores it: a no-break space is a space, a tab and a zero-width space are dropped
    expect(c).toMatchObject({ memo: "before the bigedit", new: true });
    expect(c["id"]).toMatch(/^[0-9a-f]{40}$/);
    expect(c["id"]).not.toBe(latest["id"]);
    expect(h.writes(CREATE)).toBe(writes + 1);

    const replay = await h.call("history", h.commitArgs(args, pre.structuredContent));
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(h.writes(CREATE)).toBe(writes + 1);

    const listed = await h.call("history", { action: "snapshot_list" });
    expect(listed.isError, JSON.stringify(listed.structuredContent)).toBeFalsy();
    const l = listed.structuredContent;
    expect(l).toMatchObject({ page: 1, pageCount: 1, total: 2 });
    const rows = l["snapshots"] as Row[];
    expect(rows.map((r) => r["memo"])).toEqual([
      "before the bigedit",
      "[Init] Init local data repo",
    ]);
    expect(Object.keys(rows[0] as Row).sort()).toEqual(
      ["count", "created", "id", "memo", "size", "tag"].sort(),
    );
    expect(rows[0]?.["id"]).toBe(c["id"]);
    const key = ((await h.client.system.getConf()).conf["repo"] as { key: string }).key;
    expect(key.length).toBeGreaterThan(0);
    for (const answer of [pre, commit, listed]) {
      expect(JSON.stringify(answer.structuredContent)).not.toContain(key);
    }
    expect(String(rows[0]?.["created"])).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it("snapshot_create with nothing changed since the latest answers no_change and its id", async () => {
    const before = (await h.call("history", { action: "snapshot_list" })).structuredContent;
    const latest = (before["snapshots"] as Row[])[0] as Row;
    const writes = h.writes(CREATE);
    const { commit } = await h.write("history", { action: "snapshot_create", memo: "again" });
    const c = commit.structuredContent;
    expect(c["status"], JSON.stringify(c)).toBe("no_change");
    expect(c).toMatchObject({ id: latest["id"], memo: latest["memo"], new: false });
    expect(h.writes(CREATE)).toBe(writes + 1);
    const after = (await h.call("history", { action: "snapshot_list" })).structuredContent;
    expect(after["total"]).toBe(before["total"]);
    // the latest already has this memo and nothing changed: met, nothing sent
    const same = await h.write("history", {
      action: "snapshot_create",
      memo: String(latest["memo"]),
    });
    expect(same.commit.structuredContent).toMatchObject({ status: "no_change", id: latest["id"] });
    expect(h.writes(CREATE)).toBe(writes + 1);
  });

  it("a dropped createSnapshot after a block changed is a readback_mismatch, not no_change", async () => {
    // block times have whole seconds: the change must be in a later second than the latest snapshot
    const latest = (await h.client.repo.getRepoSnapshots({ page: 1 })).snapshots[0]!;
    await waitFor(
      async () => Math.floor((await h.client.system.currentTime()) / 1000) > latest.created / 1000,
      { what: "the kernel clock past the latest snapshot's second" },
    );
    await h.doc("Changed before the drop", "new words");
    const args = { action: "snapshot_create", memo: "dropped" };
    const pre = await h.call("history", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    const drop = h.sandbox.control.armFault({ endpoint: CREATE, kind: "silentDrop" });
    const dropped = await h.call("history", h.commitArgs(args, pre.structuredContent));
    h.sandbox.control.disarmFault(drop);
    expect(errorCode(dropped), JSON.stringify(dropped.structuredContent)).toBe("readback_mismatch");
    // the snapshot the person asked for, made now, is committed
    const { commit } = await h.write("history", { action: "snapshot_create", memo: "kept" });
    expect(commit.structuredContent).toMatchObject({ status: "committed", memo: "kept" });
  });

  it("snapshot_diff answers the documents added and updated between two snapshots", async () => {
    const first = (await h.call("history", { action: "snapshot_list" })).structuredContent;
    const left = ((first["snapshots"] as Row[])[0] as Row)["id"] as string;
    const doc = await h.doc("Added later", "new text");
    await h.client.block.updateBlock({
      id: doc.blocks[0] as string,
      dataType: "markdown",
      data: "changed text",
    });
    await h.client.flush();
    const { commit } = await h.write("history", { action: "snapshot_create", memo: "after" });
    const right = commit.structuredContent["id"] as string;

    const d = await h.call("history", { action: "snapshot_diff", left, right });
    expect(d.isError, JSON.stringify(d.structuredContent)).toBeFalsy();
    const added = d.structuredContent["added"] as Row[];
    expect(added.map((f) => f["title"])).toContain("Added later");
    expect(String(added.find((f) => f["title"] === "Added later")?.["path"])).toMatch(
      new RegExp(`^/${h.notebook}/.+\\.sy$`),
    );
    expect(d.structuredContent["removed"]).toEqual([]);
    const back = await h.call("history", { action: "snapshot_diff", left: right, right: left });
    expect((back.structuredContent["removed"] as Row[]).map((f) => f["title"])).toContain(
      "Added later",
    );

    const unknown = await h.call("history", {
      action: "snapshot_diff",
      left,
      right: "0".repeat(40),
    });
    expect(errorCode(unknown)).toBe("not_found");
    expect(JSON.stringify(unknown.structuredContent)).not.toContain("no such file");
    const malformed = await h.call("history", { action: "snapshot_diff", left, right: "HEAD" });
    expect(errorCode(malformed)).toBe("invalid_arguments");
  });

  it("needs the permission on every notebook", async () => {
    h.permissions = { default: "delete", notebooks: { [h.notebook]: "none" } };
    try {
      const reads = h.sandbox.control.count(LIST);
      const list = await h.call("history", { action: "snapshot_list" });
      expect(errorCode(list)).toBe("permission_denied");
      const create = await h.call("history", {
        action: "snapshot_create",
        memo: "x",
        validateOnly: true,
      });
      expect(errorCode(create)).toBe("permission_denied");
      expect(h.sandbox.control.count(LIST)).toBe(reads);
    } finally {
      h.permissions = { default: "delete" };
    }
  });
});

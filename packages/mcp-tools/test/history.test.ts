/**
 * history.list, get, create_point and rollback_document against the sandbox kernel through the
 * tool runtime: a point is listed with its time, op and historyPath; get answers its content as
 * Markdown that parses back to the kernel's content; create_point writes once and reads back the
 * new point's content; rollback_document needs confirmation and the document's hash, writes once,
 * and reads back that the document now holds the point's content (ID kept).
 */
import { describe, expect, it } from "vitest";
import { errorCode, useHarness } from "./harness.js";

const CREATE = "/api/history/createDocHistory";
const ROLLBACK = "/api/history/rollbackDocHistory";

describe("history", () => {
  const h = useHarness();

  const doc = async (title: string, markdown: string) => (await h.doc(title, markdown)).id;

  async function point(id: string): Promise<Record<string, unknown>> {
    const args = { action: "create_point", id };
    const { commit } = await h.write("history", args);
    expect(commit.structuredContent["status"], JSON.stringify(commit.structuredContent)).toBe(
      "committed",
    );
    return commit.structuredContent;
  }

  it("create_point writes once, answers the new point's historyPath; list and get show it", async () => {
    const id = await doc("Pointed", "# Plan\n\nfirst **bold** step\n\n- one\n- two");
    const writes = h.writes(CREATE);
    const args = { action: "create_point", id };
    const pre = await h.call("history", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    expect(pre.structuredContent["preconditionField"]).toBeNull();
    expect(h.writes(CREATE)).toBe(writes);

    const commit = await h.call("history", h.commitArgs(args, pre.structuredContent));
    const c = commit.structuredContent;
    expect(c["status"], JSON.stringify(c)).toBe("committed");
    expect(c["historyPath"]).toMatch(
      new RegExp(`^/history/[^/]+-update/${h.notebook}/${id}\\.sy$`),
    );
    expect(h.writes(CREATE)).toBe(writes + 1);

    const replay = await h.call("history", h.commitArgs(args, pre.structuredContent));
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(h.writes(CREATE)).toBe(writes + 1);

    const listed = await h.call("history", { action: "list", id });
    expect(listed.isError, JSON.stringify(listed.structuredContent)).toBeFalsy();
    const points = listed.structuredContent["points"] as Array<Record<string, unknown>>;
    expect(points).toContainEqual(
      expect.objectContaining({ historyPath: c["historyPath"], op: "update", title: "Pointed" }),
    );
    expect(String(points[0]?.["time"])).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);

    const got = await h.call("history", { action: "get", historyPath: c["historyPath"] });
    expect(got.structuredContent).toMatchObject({
      exact: true,
      markdown: "# Plan\n\nfirst **bold** step\n\n* one\n* two",
    });
  });

  it("rollback_document needs confirmation and the hash, writes once, and the document holds the point's content", async () => {
    const id = await doc("Rolled", "kept paragraph\n\n> a quote");
    const created = await point(id);
    const historyPath = created["historyPath"] as string;
    await h.client.block.appendBlock({ parentID: id, dataType: "markdown", data: "added later" });
    await h.client.flush();

    const args = { action: "rollback_document", id, historyPath };
    const pre = await h.call("history", { ...args, validateOnly: true }, true);
    const p = pre.structuredContent;
    expect(pre.isError, JSON.stringify(p)).toBeFalsy();
    expect(p["preconditionField"]).toBe("expectedStateHash");
    expect(p["replacedContentKept"]).toBe(false);

    const writes = h.writes(ROLLBACK);
    const unconfirmed = await h.call("history", h.commitArgs(args, p));
    expect(errorCode(unconfirmed)).toBe("confirmation_required");
    expect(h.writes(ROLLBACK)).toBe(writes);
    const commit = await h.call("history", h.commitArgs(args, p), true);
    expect(commit.structuredContent["status"], JSON.stringify(commit.structuredContent)).toBe(
      "committed",
    );
    expect(h.writes(ROLLBACK)).toBe(writes + 1);
    const kramdown = h.sandbox.control.kramdown(id) ?? "";
    expect(kramdown).toContain("kept paragraph");
    expect(kramdown).not.toContain("added later");

    const replay = await h.call("history", h.commitArgs(args, p), true);
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(h.writes(ROLLBACK)).toBe(writes + 1);
  });

  it("rollback_document refuses a changed document (state_changed) and writes nothing", async () => {
    const id = await doc("Drifting", "one");
    const historyPath = (await point(id))["historyPath"] as string;
    const args = { action: "rollback_document", id, historyPath };
    const pre = await h.call("history", { ...args, validateOnly: true }, true);
    await h.client.block.appendBlock({ parentID: id, dataType: "markdown", data: "drift" });
    await h.client.flush();
    const writes = h.writes(ROLLBACK);
    const commit = await h.call("history", h.commitArgs(args, pre.structuredContent), true);
    expect(errorCode(commit)).toBe("state_changed");
    expect(h.writes(ROLLBACK)).toBe(writes);
  });

  it("bad handles: another document's point, a malformed path, an unknown point", async () => {
    const a = await doc("Alpha", "a");
    const b = await doc("Beta", "b");
    const pathOfA = (await point(a))["historyPath"] as string;
    const crossed = await h.call(
      "history",
      { action: "rollback_document", id: b, historyPath: pathOfA, validateOnly: true },
      true,
    );
    expect(errorCode(crossed)).toBe("invalid_arguments");
    const traversal = await h.call("history", {
      action: "get",
      historyPath: "/history/../conf/conf.json",
    });
    expect(errorCode(traversal)).toBe("invalid_arguments");
    const unknown = await h.call("history", {
      action: "get",
      historyPath: pathOfA.replace(/\/history\/\d{4}/, "/history/1999"),
    });
    expect(errorCode(unknown)).toBe("not_found");
    const missingDoc = await h.call("history", { action: "list", id: "20200101000000-zzzzzzz" });
    expect(errorCode(missingDoc)).toBe("not_found");
  });
});

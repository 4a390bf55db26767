/**
 * history.snapshot_* at the kernel authority (the built plugin in the sandbox's plugin host,
 * goja's language level): without a data repo key each refuses with repo_key_not_set and calls no
 * repo endpoint; with one (the sandbox's test control) snapshot_create writes once and reads the
 * new snapshot back, a replay writes nothing, and snapshot_list and snapshot_diff answer it. This
 * file's sandbox is marked for the suite's `/api/repo/*` audit.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { kernelClient, sc, useSandboxWithPlugin } from "./harness.js";

const CREATE = "/api/repo/createSnapshot";
const box = useSandboxWithPlugin();

describe("history snapshots at the kernel authority", () => {
  beforeAll(() => {
    box.current.control.expectSnapshotActions();
  });

  it("refuse without a key, then create, replay, list and diff with one", async () => {
    const client = await kernelClient(box.current);
    const call = async (args: Record<string, unknown>) =>
      sc(await client.callTool({ name: "history", arguments: args }));

    box.current.control.resetLog();
    const refused = await call({ action: "snapshot_list" });
    expect(refused["error"]).toMatchObject({
      code: "invalid_arguments",
      reason: "repo_key_not_set",
    });
    expect(box.current.control.log().filter((e) => e.path.startsWith("/api/repo/"))).toEqual([]);

    box.current.control.setRepoKey();
    const before = await call({ action: "snapshot_list" });
    const init = (before["snapshots"] as Array<Record<string, unknown>>)[0];
    expect(init?.["memo"]).toBe("[Init] Init local data repo");
    box.current.control.external.createDoc(
      (await box.current.control.sql("SELECT box FROM blocks LIMIT 1"))[0]?.["box"] as string,
      "/Snapshot me",
      "words",
    );
    await box.current.control.flush();

    // stored as SiYuan stores it: the no-break space a space, the tab and zero-width space dropped
    const args = { action: "snapshot_create", memo: " plugin\u00a0point\t\u200b" };
    const pre = await call({ ...args, validateOnly: true });
    expect(pre["preconditionField"], JSON.stringify(pre)).toBeNull();
    const commit = { ...args, requestId: pre["requestId"] };
    const writes = box.current.control.count(CREATE);
    const done = await call(commit);
    expect(done, JSON.stringify(done)).toMatchObject({
      status: "committed",
      memo: "plugin point",
      new: true,
    });
    expect(box.current.control.count(CREATE)).toBe(writes + 1);
    expect(await call(commit)).toMatchObject({ replayed: true, executedNow: false });
    expect(box.current.control.count(CREATE)).toBe(writes + 1);

    const diff = await call({ action: "snapshot_diff", left: init?.["id"], right: done["id"] });
    expect((diff["added"] as Array<{ title: string }>).map((f) => f.title)).toContain(
      "Snapshot me",
    );
    await client.close();
  });
});

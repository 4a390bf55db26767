/**
 * fs.search and fs.replace at the kernel authority: the built plugin in the sandbox's plugin host
 * (goja's language level), the official MCP client on its route; the replace read back, a replay
 * writing nothing.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import { kernelClient, sc, useSandboxWithPlugin } from "./harness.js";

const box = useSandboxWithPlugin();

describe("fs.search and fs.replace at the kernel authority", () => {
  it("searches a document and its subdocuments; replaces in a list item's paragraph; the replay writes nothing", async () => {
    const client = await kernelClient(box.current);
    const call = async (args: Record<string, unknown>) =>
      sc(await client.callTool({ name: "fs", arguments: args }));

    const found = await call({
      action: "search",
      path: "/Research/Project Plan",
      query: "sandbox",
    });
    const hits = found["hits"] as Array<{ id: string; hpath: string }>;
    expect(hits.map((x) => x.hpath).sort()[0], JSON.stringify(found)).toBe("/Project Plan");
    expect(hits.map((x) => x.hpath)).toContain("/Project Plan/Milestones");
    expect(hits.map((x) => x.id)).toContain(DEMO_IDS.paragraphGoals);
    expect(hits.every((x) => x.hpath.startsWith("/Project Plan"))).toBe(true);

    const args = {
      action: "replace",
      path: "/Research/Project Plan",
      find: "the **parser**",
      replacement: "the **lexer**",
      confirm: true,
    };
    const pre = await call({ ...args, validateOnly: true });
    expect(pre["error"], JSON.stringify(pre)).toBeUndefined();
    expect(pre["matches"]).toMatchObject([{ id: DEMO_IDS.paragraphTaskParser, occurrences: 1 }]);
    const commitArgs = {
      ...args,
      requestId: pre["requestId"],
      expectedManifestHash: pre["expectedManifestHash"],
    };
    const writes = () =>
      box.current.control.count("/api/block/updateBlock") +
      box.current.control.count("/api/block/batchUpdateBlock");
    const before = writes();
    const commit = await call(commitArgs);
    expect(commit["status"], JSON.stringify(commit)).toBe("committed");
    expect(commit).toMatchObject({ replacedCount: 1 });
    expect(box.current.control.kramdown(DEMO_IDS.paragraphTaskParser)).toContain(
      "Write the **lexer**",
    );
    expect(writes()).toBe(before + 1);
    const replay = await call(commitArgs);
    expect(replay).toMatchObject({ replayed: true, executedNow: false });
    expect(writes()).toBe(before + 1);
    await client.close();
  });
});

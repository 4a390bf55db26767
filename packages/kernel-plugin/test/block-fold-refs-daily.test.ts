/**
 * block.set_fold_state, block.transfer_references and block.add_to_daily_note at the kernel
 * authority: the built plugin in the sandbox's plugin host (goja's language level), the official
 * MCP client on its route; each commit read back, a replay writing nothing.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import { kernelClient, sc, useSandboxWithPlugin } from "./harness.js";

const box = useSandboxWithPlugin();

describe("block fold, reference transfer and daily note adds at the kernel authority", () => {
  it("folds a heading, moves a reference, appends to today's note; replays write nothing", async () => {
    const client = await kernelClient(box.current);
    const call = async (args: Record<string, unknown>) =>
      sc(await client.callTool({ name: "block", arguments: args }));
    const write = async (args: Record<string, unknown>) => {
      const pre = await call({ ...args, validateOnly: true });
      expect(pre["error"], JSON.stringify(pre)).toBeUndefined();
      const field = pre["preconditionField"] as string | undefined;
      const commitArgs = {
        ...args,
        requestId: pre["requestId"],
        ...(field === undefined ? {} : { [field]: pre[field] }),
      };
      const commit = await call(commitArgs);
      expect(commit["status"], JSON.stringify(commit)).toBe("committed");
      const replay = await call(commitArgs);
      expect(replay).toMatchObject({ replayed: true, executedNow: false });
      return commit;
    };
    const count = (path: string) => box.current.control.count(path);

    await write({ action: "set_fold_state", id: DEMO_IDS.headingTasks, folded: true });
    expect(box.current.control.attrs(DEMO_IDS.headingTasks)?.["fold"]).toBe("1");
    expect(count("/api/block/foldBlock")).toBe(1);

    // paragraphGoals references paragraphDecision ("the decision", a static anchor)
    const moved = await write({
      action: "transfer_references",
      fromID: DEMO_IDS.paragraphDecision,
      toID: DEMO_IDS.paragraphStatus,
      confirm: true,
    });
    expect(moved).toMatchObject({ blockCount: 1, referenceCount: 1 });
    expect(box.current.control.kramdown(DEMO_IDS.paragraphGoals)).toContain(
      `((${DEMO_IDS.paragraphStatus} "the decision"))`,
    );
    expect(count("/api/block/transferBlockRef")).toBe(1);

    const added = await write({
      action: "add_to_daily_note",
      notebook: DEMO_IDS.notebookPersonal,
      data: "from the kernel",
    });
    expect(box.current.control.kramdown(added["id"] as string)).toContain("from the kernel");
    expect(added["noteID"]).toBeTypeOf("string");
    expect(count("/api/block/appendDailyNoteBlock")).toBe(1);
    await client.close();
  });
});

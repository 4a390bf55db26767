/**
 * The navigation reads and today's daily note at the kernel authority: the built plugin in the
 * sandbox's plugin host (goja's language level), the official MCP client on its route.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import { kernelClient, sc, useSandboxWithPlugin } from "./harness.js";

const CREATE = "/api/filetree/createDailyNote";
const box = useSandboxWithPlugin();

describe("navigation at the kernel authority", () => {
  it("reads backlinks, the outline and the breadcrumb", async () => {
    const client = await kernelClient(box.current);
    const call = async (name: string, args: Record<string, unknown>) =>
      sc(await client.callTool({ name, arguments: args }));
    const links = await call("block", { action: "backlinks", id: DEMO_IDS.paragraphGoals });
    expect(links).toMatchObject({
      backlinks: [{ id: DEMO_IDS.docJournal, count: 1 }],
      total: 1,
    });
    const outline = await call("document", { action: "outline", id: DEMO_IDS.docPlan });
    expect(outline["headings"]).toEqual([
      { id: DEMO_IDS.headingGoals, level: 1, text: "Goals", depth: 0 },
      { id: DEMO_IDS.headingTasks, level: 2, text: "Tasks", depth: 1 },
    ]);
    const crumbs = await call("block", { action: "breadcrumb", id: DEMO_IDS.paragraphStatus });
    expect((crumbs["path"] as Array<{ id: string }>).map((c) => c.id)).toEqual([
      DEMO_IDS.docPlan,
      DEMO_IDS.headingGoals,
      DEMO_IDS.headingTasks,
      DEMO_IDS.paragraphStatus,
    ]);
    await client.close();
  });

  it("finds no daily note without creating one, creates it once, replays it from the ledger", async () => {
    const client = await kernelClient(box.current);
    const notebook = DEMO_IDS.notebookPersonal;
    const call = async (args: Record<string, unknown>) =>
      sc(await client.callTool({ name: "document", arguments: args }));
    const absent = await call({ action: "daily_note", notebook });
    expect(absent).toMatchObject({ notebook, id: null });
    expect(box.current.control.count(CREATE)).toBe(0);

    const args = { action: "create_daily_note", notebook };
    const pre = await call({ ...args, validateOnly: true });
    expect(pre["error"], JSON.stringify(pre)).toBeUndefined();
    const commitArgs = { ...args, requestId: pre["requestId"] };
    const commit = await call(commitArgs);
    expect(commit, JSON.stringify(commit)).toMatchObject({ status: "committed", created: true });
    expect(box.current.control.count(CREATE)).toBe(1);
    const replay = await call(commitArgs);
    expect(replay).toMatchObject({ replayed: true, executedNow: false, id: commit["id"] });
    expect(box.current.control.count(CREATE)).toBe(1);

    const found = await call({ action: "daily_note", notebook });
    expect(found).toMatchObject({ id: commit["id"], hpath: commit["hpath"] });
    await client.close();
  });
});

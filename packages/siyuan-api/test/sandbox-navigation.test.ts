/** ref, outline, storage and the daily-note endpoint against the sandbox (contract §4.10). */
import { describe, expect, it } from "vitest";
import { failure, DEMO_IDS as I, sharedDemoClient, UNKNOWN_ID } from "./support/sandbox.js";

const shared = sharedDemoClient();

describe("navigation", () => {
  it("getBacklink2 lists referencing documents with counts; an unknown ID has box ''", async () => {
    const r = await shared.client.ref.getBacklink2({ id: I.paragraphGoals, k: "", mk: "" });
    expect(r.backlinks).toEqual([
      expect.objectContaining({ id: I.docJournal, box: I.notebookPersonal, count: 1 }),
    ]);
    expect(r.linkRefsCount).toBe(1);
    expect(r.box).toBe(I.notebookResearch);
    const none = await shared.client.ref.getBacklink2({ id: UNKNOWN_ID, k: "", mk: "" });
    expect(none).toMatchObject({ backlinks: [], backmentions: [], box: "" });
  });

  it("getDocOutline nests sub-headings under blocks; no headings is []", async () => {
    const outline = await shared.client.outline.getDocOutline({ id: I.docPlan });
    expect(outline).toEqual([
      expect.objectContaining({
        id: I.headingGoals,
        subType: "h1",
        name: "Goals",
        blocks: [expect.objectContaining({ id: I.headingTasks, subType: "h2", content: "Tasks" })],
      }),
    ]);
    expect(await shared.client.outline.getDocOutline({ id: I.docReading })).toEqual([]);
  });

  it("getBlockBreadcrumb goes from the document to the block; unknown is []", async () => {
    const crumbs = await shared.client.block.getBlockBreadcrumb({ id: I.paragraphStatus });
    expect(crumbs.map((c) => c.id)).toEqual([
      I.docPlan,
      I.headingGoals,
      I.headingTasks,
      I.paragraphStatus,
    ]);
    expect(crumbs[0]).toMatchObject({ type: "NodeDocument", name: "Research/Project Plan" });
    expect(crumbs.at(-1)).toMatchObject({ type: "NodeParagraph", name: "" });
    expect(await shared.client.block.getBlockBreadcrumb({ id: UNKNOWN_ID })).toEqual([]);
  });

  it("getRecentDocs: the UI list is empty without a UI, sortBy updated asks the index", async () => {
    expect(await shared.client.storage.getRecentDocs({})).toEqual([]);
    const updated = await shared.client.storage.getRecentDocs({ sortBy: "updated" });
    expect(updated.map((d) => d.rootID)).toContain(I.docPlan);
  });

  it("createDailyNote creates today's note once, then returns it; unknown notebook is code 1", async () => {
    const first = await shared.client.filetree.createDailyNote({ notebook: I.notebookResearch });
    const again = await shared.client.filetree.createDailyNote({ notebook: I.notebookResearch });
    expect(again.id).toBe(first.id);
    const e = await failure(shared.client.filetree.createDailyNote({ notebook: UNKNOWN_ID }));
    expect(e.code).toBe("kernel_rejected");
    expect(e.details.kernelCode).toBe(1);
  });
});

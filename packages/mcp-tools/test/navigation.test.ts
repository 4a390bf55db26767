/**
 * The navigation reads and today's daily note, against the sandbox kernel over loopback:
 * backlinks and backmentions (paged, other notebooks' documents withheld), the breadcrumb, the
 * outline (paged), recent documents, `document.daily_note` (a read that never creates) and
 * `document.create_daily_note` (additive: created once, replayed from the ledger, `no_change` when
 * the note already exists or appeared after the preflight).
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { renderDailyNotePath } from "../src/tools/document/daily-note.js";
import { errorCode, useHarness } from "./harness.js";

const UNKNOWN = "20200101000000-zzzzzzz";

const h = useHarness();

let fx: {
  other: string;
  target: string;
  headings: string[];
  deep: string;
  refA1: string;
  refA2: string;
  refB: string;
  mention: string;
  otherBlock: string;
};

const ids = (list: unknown) => (list as Array<{ id: string }>).map((x) => x.id);

/** Kernel requests to write endpoints (everything but reads) since `from` entries of the log. */
function writesSince(from: number): string[] {
  const reads =
    /\/api\/(query|search|sqlite|system|notebook\/(lsNotebooks|getNotebookConf)|filetree\/(getIDsByHPath|getHPathByID|getPathByID)|block\/getBlockInfo)/;
  return h.sandbox.control
    .log()
    .slice(from)
    .map((e) => e.path)
    .filter((p) => !reads.test(p));
}

beforeAll(async () => {
  const x = h.sandbox.control.external;
  const other = x.createNotebook("Elsewhere");
  const target = x.createDoc(
    h.notebook,
    "/Navigation target",
    "# One\n\nfirst\n\n## Two & more\n\n### Three\n\ndeep text\n\n# Four\n\nlast",
  );
  await h.client.flush();
  const children = await h.client.block.getChildBlocks({ id: target });
  const headings = children.filter((c) => c.type === "h").map((c) => c.id);
  const deep = children.find((c) => c.type === "p" && c.markdown?.includes("deep"))?.id as string;
  const ref = `((${target} 'Navigation target'))`;
  const refA1 = x.createDoc(h.notebook, "/Refers A1", `see ${ref}`);
  const refA2 = x.createDoc(h.notebook, "/Refers A2", `again ${ref} and ${ref}`);
  const refB = x.createDoc(other, "/Refers B", `from elsewhere ${ref}`);
  const mention = x.createDoc(h.notebook, "/Mentions", "the Navigation target without a link");
  const otherBlockDoc = x.createDoc(other, "/Private", "private text");
  await h.client.flush();
  const [otherBlock] = await h.client.block.getChildBlocks({ id: otherBlockDoc });
  fx = {
    other,
    target,
    headings,
    deep,
    refA1,
    refA2,
    refB,
    mention,
    otherBlock: otherBlock?.id as string,
  };
});

afterEach(() => {
  h.permissions = { default: "delete" };
});

describe("block.backlinks and block.backmentions", () => {
  it("lists each referencing document once with its reference count, compact", async () => {
    const r = await h.call("block", { action: "backlinks", id: fx.target });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    const s = r.structuredContent;
    expect(new Set(ids(s["backlinks"]))).toEqual(new Set([fx.refA1, fx.refA2, fx.refB]));
    const a2 = (s["backlinks"] as Array<Record<string, unknown>>).find((d) => d["id"] === fx.refA2);
    expect(a2).toEqual({
      id: fx.refA2,
      title: "Refers A2",
      path: expect.stringMatching(/\/Refers A2$/),
      notebook: h.notebook,
      count: 1,
    });
    expect(s).toMatchObject({ page: 1, pageSize: 16, pageCount: 1, total: 3 });
    expect(s).not.toHaveProperty("withheld");
  });

  it("pages the documents", async () => {
    const p1 = await h.call("block", { action: "backlinks", id: fx.target, pageSize: 2 });
    const p2 = await h.call("block", { action: "backlinks", id: fx.target, pageSize: 2, page: 2 });
    expect(p1.structuredContent).toMatchObject({ page: 1, pageSize: 2, pageCount: 2, total: 3 });
    expect(ids(p1.structuredContent["backlinks"])).toHaveLength(2);
    expect(ids(p2.structuredContent["backlinks"])).toHaveLength(1);
    expect(
      new Set([
        ...ids(p1.structuredContent["backlinks"]),
        ...ids(p2.structuredContent["backlinks"]),
      ]),
    ).toEqual(new Set([fx.refA1, fx.refA2, fx.refB]));
  });

  it("takes the settings' pageSize when the call gives none", async () => {
    const options = { readRetries: 3, pageSize: 1, templateBudgetBytes: 1024 };
    for (const [tool, args] of [
      ["block", { action: "backlinks", id: fx.target }],
      ["document", { action: "outline", id: fx.target }],
      ["document", { action: "recent" }],
    ] as const) {
      const r = await h.runtime.callTool(tool, args, { options });
      expect(r.structuredContent, args.action).toMatchObject({ page: 1, pageSize: 1 });
      expect(r.structuredContent["pageCount"], args.action).toBe(r.structuredContent["total"]);
    }
  });

  it("withholds documents of notebooks the caller may not read", async () => {
    h.permissions = { default: "delete", notebooks: { [fx.other]: "none" } };
    const r = await h.call("block", { action: "backlinks", id: fx.target });
    expect(new Set(ids(r.structuredContent["backlinks"]))).toEqual(new Set([fx.refA1, fx.refA2]));
    expect(r.structuredContent).toMatchObject({ total: 2, withheld: 1 });
    expect(JSON.stringify(r.structuredContent)).not.toContain(fx.refB);
  });

  it("refuses a target in a notebook the caller may not read", async () => {
    h.permissions = { default: "delete", notebooks: { [fx.other]: "none" } };
    const r = await h.call("block", { action: "backlinks", id: fx.otherBlock });
    expect(errorCode(r)).toBe("permission_denied");
  });

  it("lists documents that name the target without a reference as backmentions", async () => {
    const r = await h.call("block", { action: "backmentions", id: fx.target });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    expect(ids(r.structuredContent["backmentions"])).toEqual([fx.mention]);
    expect(r.structuredContent).toMatchObject({ total: 1, pageCount: 1 });
  });

  it("answers not_found for an unknown ID", async () => {
    for (const action of ["backlinks", "backmentions", "breadcrumb"]) {
      const r = await h.call("block", { action, id: UNKNOWN });
      expect(errorCode(r), action).toBe("not_found");
    }
  });
});

describe("block.breadcrumb", () => {
  it("goes from the document through the headings above the block to the block", async () => {
    const r = await h.call("block", { action: "breadcrumb", id: fx.deep });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    const path = r.structuredContent["path"] as Array<Record<string, unknown>>;
    expect(path.map((c) => c["id"])).toEqual([fx.target, ...fx.headings.slice(0, 3), fx.deep]);
    expect(path[0]).toMatchObject({ type: "NodeDocument" });
    expect(path[0]?.["name"]).toMatch(/\/Navigation target$/);
    expect(path[2]).toEqual({
      id: fx.headings[1],
      type: "NodeHeading",
      subType: "h2",
      name: "Two & more",
    });
    expect(path.at(-1)).toEqual({ id: fx.deep, type: "NodeParagraph", name: "" });
  });
});

describe("document.outline", () => {
  it("flattens the headings in document order with level and depth, as text", async () => {
    const r = await h.call("document", { action: "outline", id: fx.target });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    expect(r.structuredContent["headings"]).toEqual([
      { id: fx.headings[0], level: 1, text: "One", depth: 0 },
      { id: fx.headings[1], level: 2, text: "Two & more", depth: 1 },
      { id: fx.headings[2], level: 3, text: "Three", depth: 2 },
      { id: fx.headings[3], level: 1, text: "Four", depth: 0 },
    ]);
    expect(r.structuredContent).toMatchObject({ id: fx.target, total: 4, pageCount: 1 });
  });

  it("pages, and a block of the document selects the document", async () => {
    const r = await h.call("document", { action: "outline", id: fx.deep, pageSize: 3, page: 2 });
    expect(r.structuredContent).toMatchObject({ id: fx.target, total: 4, pageCount: 2 });
    expect(ids(r.structuredContent["headings"])).toEqual([fx.headings[3]]);
  });

  it("is empty for a document without headings, not_found for an unknown ID", async () => {
    const flat = await h.call("document", { action: "outline", id: fx.mention });
    expect(flat.structuredContent).toMatchObject({ headings: [], total: 0, pageCount: 0 });
    expect(errorCode(await h.call("document", { action: "outline", id: UNKNOWN }))).toBe(
      "not_found",
    );
  });
});

describe("document.recent", () => {
  it("lists recently updated documents by default, located, paged", async () => {
    const r = await h.call("document", { action: "recent", pageSize: 64 });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    const docs = r.structuredContent["docs"] as Array<Record<string, unknown>>;
    const b = docs.find((d) => d["id"] === fx.refB);
    expect(b).toEqual({
      id: fx.refB,
      title: "Refers B",
      notebook: fx.other,
      hpath: "/Refers B",
      updated: expect.stringMatching(/^\d{14}$/),
    });
    expect(r.structuredContent).toMatchObject({ sort: "updated", page: 1 });
    const small = await h.call("document", { action: "recent", pageSize: 2 });
    expect(ids(small.structuredContent["docs"])).toHaveLength(2);
    expect(small.structuredContent["total"]).toBe(r.structuredContent["total"]);
  });

  it("withholds documents of notebooks the caller may not read", async () => {
    h.permissions = { default: "delete", notebooks: { [fx.other]: "none" } };
    const r = await h.call("document", { action: "recent", pageSize: 64 });
    expect(ids(r.structuredContent["docs"])).not.toContain(fx.refB);
    expect(r.structuredContent["withheld"]).toBeGreaterThanOrEqual(1);
  });

  it("reads SiYuan's UI list for sort: viewed, with a hint while it is empty", async () => {
    const empty = await h.call("document", { action: "recent", sort: "viewed" });
    expect(empty.structuredContent).toMatchObject({ docs: [], total: 0 });
    expect(empty.structuredContent["hint"]).toMatch(/sort: updated/);
    await h.client.callRaw({
      endpoint: "/api/storage/updateRecentDocViewTime",
      body: { rootID: fx.refA1 },
    });
    const r = await h.call("document", { action: "recent", sort: "viewed" });
    expect(r.structuredContent["docs"]).toEqual([
      {
        id: fx.refA1,
        title: "Refers A1",
        notebook: h.notebook,
        hpath: "/Refers A1",
        viewedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    expect(r.structuredContent).not.toHaveProperty("hint");
  });
});

describe("document.daily_note and document.create_daily_note", () => {
  /** A fresh notebook with the default daily-note save path and no note today. */
  function freshNotebook(name: string): string {
    return h.sandbox.control.external.createNotebook(name);
  }

  const createCalls = () => h.writes("/api/filetree/createDailyNote");

  it("answers id null when today's note does not exist, and writes nothing", async () => {
    const nb = freshNotebook("Daily read");
    await h.sandbox.control.flush();
    const from = h.sandbox.control.log().length;
    const r = await h.call("document", { action: "daily_note", notebook: nb });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    expect(r.structuredContent).toMatchObject({
      notebook: nb,
      id: null,
      date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      hpath: expect.stringMatching(/^\/daily note\/\d{4}\/\d\d\/\d{4}-\d\d-\d\d$/),
    });
    expect(r.structuredContent["hint"]).toMatch(/create_daily_note/);
    expect(writesSince(from)).toEqual([]);
    const docs = h.sandbox.control.sql(`SELECT id FROM blocks WHERE type = 'd' AND box = '${nb}'`);
    expect(docs).toEqual([]);
  });

  it("creates today's note once; the replay answers from the ledger; daily_note then finds it", async () => {
    const nb = freshNotebook("Daily create");
    await h.sandbox.control.flush();
    const before = createCalls();
    const args = { action: "create_daily_note", notebook: nb };
    const { preflight, commit } = await h.write("document", args);
    expect(preflight).not.toHaveProperty("existingID");
    expect(commit.isError, JSON.stringify(commit.structuredContent)).toBeUndefined();
    expect(commit.structuredContent).toMatchObject({ status: "committed", executedNow: true });
    const receipt = commit.structuredContent as Record<string, unknown>;
    const id = receipt["id"] as string;
    expect(receipt).toMatchObject({ created: true, hpath: expect.stringMatching(/^\/daily note/) });
    expect(createCalls() - before).toBe(1);

    const replay = await h.call("document", h.commitArgs(args, preflight));
    expect(replay.structuredContent).toMatchObject({ replayed: true, executedNow: false, id });
    expect(createCalls() - before).toBe(1);

    const read = await h.call("document", { action: "daily_note", notebook: nb });
    expect(read.structuredContent).toMatchObject({ id, hpath: receipt["hpath"] });
    expect(read.structuredContent).not.toHaveProperty("hint");

    // Asked again, the preflight says the note exists and the commit writes nothing.
    const again = await h.write("document", args);
    expect(again.preflight["existingID"]).toBe(id);
    expect(again.commit.structuredContent).toMatchObject({
      status: "no_change",
      id,
      created: false,
    });
    expect(createCalls() - before).toBe(1);
  });

  it("answers no_change with the note that appeared between preflight and commit", async () => {
    const nb = freshNotebook("Daily race");
    await h.sandbox.control.flush();
    const args = { action: "create_daily_note", notebook: nb };
    const pre = await h.call("document", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeUndefined();
    const { id: appeared } = await h.client.filetree.createDailyNote({ notebook: nb });
    const before = createCalls();
    const commit = await h.call("document", h.commitArgs(args, pre.structuredContent));
    expect(commit.structuredContent).toMatchObject({
      status: "no_change",
      id: appeared,
      created: false,
    });
    expect(createCalls()).toBe(before);
    const notes = h.sandbox.control.sql(
      `SELECT block_id FROM attributes WHERE name LIKE 'custom-dailynote-%' AND box = '${nb}'`,
    );
    expect(notes).toHaveLength(1);
  });

  it("checks permissions: reading needs read, creating needs write", async () => {
    const nb = freshNotebook("Daily guarded");
    await h.sandbox.control.flush();
    h.permissions = { default: "delete", notebooks: { [nb]: "none" } };
    expect(errorCode(await h.call("document", { action: "daily_note", notebook: nb }))).toBe(
      "permission_denied",
    );
    h.permissions = { default: "delete", notebooks: { [nb]: "read" } };
    const read = await h.call("document", { action: "daily_note", notebook: nb });
    expect(read.structuredContent["id"]).toBeNull();
    const before = createCalls();
    const pre = await h.call("document", {
      action: "create_daily_note",
      notebook: nb,
      validateOnly: true,
    });
    expect(errorCode(pre)).toBe("permission_denied");
    expect(createCalls()).toBe(before);
  });

  it("refuses unknown and closed notebooks and save paths it cannot render", async () => {
    expect(errorCode(await h.call("document", { action: "daily_note", notebook: UNKNOWN }))).toBe(
      "not_found",
    );
    const closed = freshNotebook("Daily closed");
    h.sandbox.control.external.setNotebookClosed(closed, true);
    const odd = freshNotebook("Daily odd");
    h.sandbox.control.external.setNotebookConf(odd, {
      dailyNoteSavePath: '/daily/{{now | date "2006"}}/{{.Weekday}}',
    });
    await h.sandbox.control.flush();
    expect(
      errorCode(
        await h.call("document", {
          action: "create_daily_note",
          notebook: closed,
          validateOnly: true,
        }),
      ),
    ).toBe("notebook_closed");
    const r = await h.call("document", { action: "daily_note", notebook: odd });
    expect(errorCode(r)).toBe("invalid_arguments");
    expect(JSON.stringify(r.structuredContent)).toMatch(/now \| date/);
  });
});

describe("renderDailyNotePath", () => {
  const t = new Date(2026, 6, 5, 9, 7, 3); // local 2026-07-05 09:07:03, a Sunday

  it("renders the default save path and Go layout elements", () => {
    expect(
      renderDailyNotePath('/daily note/{{now | date "2006/01"}}/{{now | date "2006-01-02"}}', t),
    ).toBe("/daily note/2026/07/2026-07-05");
    expect(renderDailyNotePath('{{ now | date "Mon Jan _2 06 15:04:05 PM 002" }}', t)).toBe(
      "/Sun Jul  5 26 09:07:03 AM 186",
    );
    expect(renderDailyNotePath('/j/{{now | date "Monday, January 2"}}', t)).toBe(
      "/j/Sunday, July 5",
    );
  });

  it("refuses other template actions", () => {
    expect(renderDailyNotePath('/d/{{now | date "2006"}}/{{.Weekday}}', t)).toBeNull();
  });
});

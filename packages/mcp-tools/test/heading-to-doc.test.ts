/**
 * document.heading_to_doc against the sandbox kernel through the tool runtime: a structure
 * mutation (expectedStructureHash) sending one heading2Doc; the heading's ID becomes a document
 * under its document (or the parent asked for) holding exactly the blocks under the heading, the
 * source exactly the rest; a replay writes nothing; a changed source after the preflight is
 * state_changed; what heading2Doc would do other than asked is refused before any write; a lost
 * answer is outcome_unknown.
 */
import { describe, expect, it } from "vitest";
import { placeOfHeading, sectionOf, titleOfHeading } from "../src/tools/document/heading.js";
import { errorCode, useHarness } from "./harness.js";

const H2D = "/api/filetree/heading2Doc";
const BODY = "intro\n\n## A **bold**/slash\n\na1\n\n### A sub\n\na2\n\n## B\n\nb1";

describe("document.heading_to_doc", () => {
  const h = useHarness();

  async function fixture(title: string) {
    const nb = h.sandbox.control.external.createNotebook(`H2D ${title}`);
    const doc = h.sandbox.control.external.createDoc(nb, `/${title}`, BODY);
    await h.sandbox.control.flush();
    const ids = (await h.client.block.getChildBlocks({ id: doc })).map((b) => b.id);
    return { nb, doc, ids };
  }

  const childIds = async (id: string) =>
    (await h.client.block.getChildBlocks({ id })).map((b) => b.id);

  it("moves the heading's section into a sub-document with the heading's ID, once; a replay writes nothing", async () => {
    const f = await fixture("Source");
    const [intro, head, a1, sub, a2, b, b1] = f.ids;
    const args = { action: "heading_to_doc", id: head };
    const pre = await h.call("document", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    expect(pre.structuredContent["preconditionField"]).toBe("expectedStructureHash");
    const writes = h.writes(H2D);
    const commit = await h.call("document", h.commitArgs(args, pre.structuredContent));
    expect(commit.structuredContent, JSON.stringify(commit.structuredContent)).toMatchObject({
      status: "committed",
      id: head,
      notebook: f.nb,
      path: `/${f.doc}/${head}.sy`,
      title: "A bold_slash",
      moved: 3,
      sourceID: f.doc,
    });
    expect(h.writes(H2D)).toBe(writes + 1);
    expect(await childIds(head as string)).toEqual([a1, sub, a2]);
    expect(await childIds(f.doc)).toEqual([intro, b, b1]);
    // the sub-heading is re-levelled to h2 as SiYuan does
    expect(h.sandbox.control.kramdown(head as string)).toContain("## A sub");
    const replay = await h.call("document", h.commitArgs(args, pre.structuredContent));
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(h.writes(H2D)).toBe(writes + 1);
  });

  it("places the document under another parent: a notebook root", async () => {
    const f = await fixture("Rooted");
    const b = f.ids[5] as string;
    const { commit } = await h.write("document", {
      action: "heading_to_doc",
      id: b,
      parentID: f.nb,
    });
    expect(commit.structuredContent, JSON.stringify(commit.structuredContent)).toMatchObject({
      status: "committed",
      path: `/${b}.sy`,
      title: "B",
      moved: 1,
    });
    expect(await childIds(b)).toEqual([f.ids[6]]);
  });

  it("refuses a paragraph, a nested heading, a document and an unknown ID before any write", async () => {
    const nb = h.sandbox.control.external.createNotebook("H2D refusals");
    const doc = h.sandbox.control.external.createDoc(nb, "/Nested", "para\n\n> ## Quoted\n>\n> q");
    await h.sandbox.control.flush();
    const [para, quote] = await h.client.block.getChildBlocks({ id: doc });
    const [quoted] = await h.client.block.getChildBlocks({ id: quote?.id as string });
    const writes = h.writes(H2D);
    for (const id of [para?.id, quoted?.id, doc]) {
      const r = await h.call("document", { action: "heading_to_doc", id, validateOnly: true });
      expect(errorCode(r), `${id}`).toBe("invalid_arguments");
    }
    const unknown = await h.call("document", {
      action: "heading_to_doc",
      id: "20200101000000-zzzzzzz",
      validateOnly: true,
    });
    expect(errorCode(unknown)).toBe("not_found");
    const f = await fixture("Bad parent");
    const badParent = await h.call("document", {
      action: "heading_to_doc",
      id: f.ids[1],
      parentID: f.ids[0],
      validateOnly: true,
    });
    expect(errorCode(badParent)).toBe("not_found");
    expect(h.writes(H2D)).toBe(writes);
  });

  it("a source changed after the preflight is state_changed; a lost answer is outcome_unknown and its replay writes nothing", async () => {
    const f = await fixture("Raced");
    const args = { action: "heading_to_doc", id: f.ids[1] };
    const pre = await h.call("document", { ...args, validateOnly: true });
    await h.client.block.appendBlock({ parentID: f.doc, dataType: "markdown", data: "late" });
    await h.client.flush();
    const writes = h.writes(H2D);
    expect(errorCode(await h.call("document", h.commitArgs(args, pre.structuredContent)))).toBe(
      "state_changed",
    );
    expect(h.writes(H2D)).toBe(writes);

    const pre2 = await h.call("document", { ...args, validateOnly: true });
    h.sandbox.control.armFault({ endpoint: H2D, kind: "resetAfterApply" });
    const lost = await h.call("document", h.commitArgs(args, pre2.structuredContent));
    expect(errorCode(lost)).toBe("outcome_unknown");
    const replay = await h.call("document", h.commitArgs(args, pre2.structuredContent));
    expect(errorCode(replay)).toBe("outcome_unknown");
    expect(h.writes(H2D)).toBe(writes + 1);
  });

  it("sectionOf stops at a heading of the same level or higher; titles as the kernel's", () => {
    const k = (id: string, type: string, subType = "") => ({ id, type, subType });
    const kids = [
      k("h", "h", "h2"),
      k("p", "p"),
      k("s", "h", "h3"),
      k("q", "p"),
      k("n", "h", "h1"),
    ];
    expect(sectionOf(kids, 0).map((b) => b.id)).toEqual(["p", "s", "q"]);
    expect(sectionOf(kids, 2).map((b) => b.id)).toEqual(["q"]);
    expect(titleOfHeading("a/b")).toBe("a_b");
    expect([...titleOfHeading("x".repeat(200))]).toHaveLength(96);
  });
});

describe("document.doc_to_heading", () => {
  const h = useHarness();
  const D2H = "/api/filetree/doc2Heading";

  async function fixture(name: string) {
    const x = h.sandbox.control.external;
    const nb = x.createNotebook(`D2H ${name}`);
    const target = x.createDoc(nb, "/Target", "## T1\n\nt1 body\n\n## T2\n\nt2 body");
    const moved = x.createDoc(nb, "/Moved", "m body\n\n### M sub\n\nm sub body");
    x.setBlockAttrs(moved, { "custom-owner": "ana" });
    await h.sandbox.control.flush();
    const ids = async (id: string) =>
      (await h.client.block.getChildBlocks({ id })).map((b) => b.id);
    return { nb, target, moved, t: await ids(target), m: await ids(moved), ids };
  }

  it("puts the document as a heading after a target heading's section, once (confirmed); the document is gone; a replay writes nothing", async () => {
    const f = await fixture("after");
    const [t1, t1body, t2, t2body] = f.t;
    const args = { action: "doc_to_heading", id: f.moved, targetID: t1, after: true };
    const pre = await h.call("document", { ...args, validateOnly: true }, true);
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    expect(pre.structuredContent["preconditionField"]).toBe("expectedStructureHash");
    const unconfirmed = await h.call("document", h.commitArgs(args, pre.structuredContent));
    expect(unconfirmed.isError).toBe(true);
    const writes = h.writes(D2H);
    const commit = await h.call("document", h.commitArgs(args, pre.structuredContent), true);
    expect(commit.structuredContent, JSON.stringify(commit.structuredContent)).toMatchObject({
      status: "committed",
      id: f.moved,
      targetDocID: f.target,
      level: 2,
      moved: 3,
    });
    expect(h.writes(D2H)).toBe(writes + 1);
    expect(await f.ids(f.target)).toEqual([t1, t1body, f.moved, ...f.m, t2, t2body]);
    const k = h.sandbox.control.kramdown(f.target) ?? "";
    expect(k).toContain("## Moved");
    expect(k).toContain("### M sub"); // shifted with the heading, as SiYuan does
    expect(h.sandbox.control.attrs(f.moved)?.["custom-owner"]).toBe("ana");
    const listed = await h.client.filetree.listDocsByPath({ notebook: f.nb, path: "/" });
    expect(listed.files.map((d) => d.id)).toEqual([f.target]);
    const replay = await h.call("document", h.commitArgs(args, pre.structuredContent), true);
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(h.writes(D2H)).toBe(writes + 1);
  });

  it("before a paragraph: one level below the heading it is under", async () => {
    const f = await fixture("before");
    const [t1, t1body, t2, t2body] = f.t;
    const { commit } = await h.write(
      "document",
      { action: "doc_to_heading", id: f.moved, targetID: t2body },
      true,
    );
    expect(commit.structuredContent, JSON.stringify(commit.structuredContent)).toMatchObject({
      status: "committed",
      level: 3,
    });
    expect(await f.ids(f.target)).toEqual([t1, t1body, t2, f.moved, ...f.m, t2body]);
  });

  it("refuses a document with sub-documents, a target in itself, a document as target, a block as source, unknown IDs, before any write", async () => {
    const f = await fixture("refusals");
    const x = h.sandbox.control.external;
    x.createDoc(f.nb, "/Moved/Kid", "kid");
    const lone = x.createDoc(f.nb, "/Lone", "lone body");
    await h.sandbox.control.flush();
    const [loneBody] = await f.ids(lone);
    const writes = h.writes(D2H);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ id: f.moved, targetID: f.t[0] }, "invalid_arguments"],
      [{ id: lone, targetID: loneBody }, "invalid_arguments"],
      [{ id: lone, targetID: f.target }, "invalid_arguments"],
      [{ id: f.t[1], targetID: loneBody }, "invalid_arguments"],
      [{ id: lone, targetID: "20200101000000-zzzzzzz" }, "not_found"],
      [{ id: "20200101000000-zzzzzzz", targetID: f.t[0] }, "not_found"],
    ];
    for (const [args, code] of cases) {
      const r = await h.call(
        "document",
        { action: "doc_to_heading", ...args, validateOnly: true },
        true,
      );
      expect(errorCode(r), JSON.stringify(args)).toBe(code);
    }
    expect(h.writes(D2H)).toBe(writes);
  });

  it("a target changed after the preflight is state_changed; a lost answer is outcome_unknown", async () => {
    const f = await fixture("raced");
    const args = { action: "doc_to_heading", id: f.moved, targetID: f.t[2] };
    const pre = await h.call("document", { ...args, validateOnly: true }, true);
    await h.client.block.appendBlock({ parentID: f.target, dataType: "markdown", data: "late" });
    await h.client.flush();
    const writes = h.writes(D2H);
    expect(
      errorCode(await h.call("document", h.commitArgs(args, pre.structuredContent), true)),
    ).toBe("state_changed");
    expect(h.writes(D2H)).toBe(writes);
    const pre2 = await h.call("document", { ...args, validateOnly: true }, true);
    h.sandbox.control.armFault({ endpoint: D2H, kind: "resetAfterApply" });
    const lost = await h.call("document", h.commitArgs(args, pre2.structuredContent), true);
    expect(errorCode(lost)).toBe("outcome_unknown");
    expect(h.writes(D2H)).toBe(writes + 1);
  });

  it("placeOfHeading: before or after a heading's section at its level, one below for a block", () => {
    const k = (id: string, type: string, subType = "") => ({ id, type, subType });
    const b = [k("a", "h", "h2"), k("b", "p"), k("c", "h", "h3"), k("d", "p"), k("e", "h", "h2")];
    expect(placeOfHeading(b, 0, true)).toEqual({ at: 4, level: 2 });
    expect(placeOfHeading(b, 0, false)).toEqual({ at: 0, level: 2 });
    expect(placeOfHeading(b, 3, false)).toEqual({ at: 3, level: 4 });
    expect(placeOfHeading([k("p", "p")], 0, true)).toEqual({ at: 1, level: 1 });
  });
});

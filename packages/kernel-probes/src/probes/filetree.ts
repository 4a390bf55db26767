/** Documents (contract §4.2, §4.3): create, paths, rename, remove, move, list, sort, getDoc. */
import type { ProbeContext } from "../probe.js";
import { children, data, kramdown, probe, UNKNOWN_ID } from "./kit.js";

interface PathOf {
  path: string;
  notebook: string;
}

async function pathOf(ctx: ProbeContext, id: string): Promise<string> {
  return (await ctx.quiet<PathOf>("/api/filetree/getPathByID", { id })).path;
}

/** listDocsByPath kept to what the product reads and what is stable (names, order, counts). */
const listing = (j: unknown) => {
  const e = j as { code: number; msg: string; data: { files?: Array<Record<string, unknown>> } };
  if (e.code !== 0 || !e.data?.files) return e;
  return {
    ...e,
    data: {
      ...e.data,
      files: e.data.files.map((f) => ({ id: f.id, name: f.name, sort: f.sort })),
    },
  };
};

export const filetreeProbes = [
  probe(
    "filetree.createDocWithMd",
    "create: the ID, kramdown, same path twice, missing parents, empty markdown, errors",
    ["/api/filetree/createDocWithMd", "/api/filetree/getIDsByHPath"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const a = await ctx.post("create", "/api/filetree/createDocWithMd", {
        notebook: nb,
        path: "/Plain",
        markdown: "First paragraph\n\n## A heading\n\nSecond paragraph",
      });
      const id = data<string>(a);
      await ctx.flush();
      ctx.note("kramdown", await kramdown(ctx, id));
      await ctx.post("same path again", "/api/filetree/createDocWithMd", {
        notebook: nb,
        path: "/Plain",
        markdown: "again",
      });
      await ctx.flush();
      await ctx.post(
        "ids by hpath",
        "/api/filetree/getIDsByHPath",
        { notebook: nb, path: "/Plain" },
        {
          keep: (j) => {
            const e = j as { code: number; msg: string; data: string[] | null };
            // the order of two same-titled docs is not part of the contract
            return { ...e, data: e.data ? [...e.data].sort() : e.data };
          },
        },
      );
      const nested = await ctx.post("missing parents", "/api/filetree/createDocWithMd", {
        notebook: nb,
        path: "/Parent/Child",
        markdown: "child text",
      });
      await ctx.flush();
      await ctx.post("parent by hpath", "/api/filetree/getIDsByHPath", {
        notebook: nb,
        path: "/Parent",
      });
      await ctx.post("child hpath", "/api/filetree/getHPathByID", { id: data<string>(nested) });
      const empty = await ctx.post("empty markdown", "/api/filetree/createDocWithMd", {
        notebook: nb,
        path: "/Empty",
        markdown: "",
      });
      await ctx.flush();
      ctx.note("empty kramdown", await kramdown(ctx, data<string>(empty)));
      const slashes = await ctx.post("title with tab", "/api/filetree/createDocWithMd", {
        notebook: nb,
        path: "/Tab\there",
        markdown: "x",
      });
      await ctx.flush();
      await ctx.post("tab title hpath", "/api/filetree/getHPathByID", {
        id: data<string>(slashes),
      });
      await ctx.post("unknown notebook", "/api/filetree/createDocWithMd", {
        notebook: UNKNOWN_ID,
        path: "/X",
        markdown: "x",
      });
      await ctx.post("ids by hpath unknown", "/api/filetree/getIDsByHPath", {
        notebook: nb,
        path: "/No such doc",
      });
      await ctx.post("ids by hpath without path", "/api/filetree/getIDsByHPath", { notebook: nb });
    },
  ),
  probe(
    "filetree.paths",
    "getHPathByID, getHPathByPath, getPathByID for docs and blocks; unknown IDs",
    ["/api/filetree/getHPathByID", "/api/filetree/getHPathByPath", "/api/filetree/getPathByID"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const child = await ctx.doc(nb, "/Top/Sub", "sub text");
      const [para] = await ctx.quiet<Array<{ id: string }>>("/api/block/getChildBlocks", {
        id: child,
      });
      await ctx.post("hpath of doc", "/api/filetree/getHPathByID", { id: child });
      await ctx.post("hpath of block", "/api/filetree/getHPathByID", { id: para?.id });
      const p = await ctx.post("path of doc", "/api/filetree/getPathByID", { id: child });
      await ctx.post("path of block", "/api/filetree/getPathByID", { id: para?.id });
      await ctx.post("hpath by path", "/api/filetree/getHPathByPath", {
        notebook: nb,
        path: data<PathOf>(p).path,
      });
      await ctx.post("hpath by path /", "/api/filetree/getHPathByPath", {
        notebook: nb,
        path: "/",
      });
      await ctx.post("hpath by unknown path", "/api/filetree/getHPathByPath", {
        notebook: nb,
        path: `/${UNKNOWN_ID}.sy`,
      });
      await ctx.post("hpath unknown", "/api/filetree/getHPathByID", { id: UNKNOWN_ID });
      await ctx.post("path unknown", "/api/filetree/getPathByID", { id: UNKNOWN_ID });
    },
  ),
  probe(
    "filetree.rename",
    "renameDoc and renameDocByID: title attr, hpath, updated; unknown ID",
    ["/api/filetree/renameDoc", "/api/filetree/renameDocByID"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const a = await ctx.doc(nb, "/Old A", "a");
      const b = await ctx.doc(nb, "/Old B", "b");
      await ctx.sleep(1100); // a changed `updated` must show at second resolution
      await ctx.post("rename by path", "/api/filetree/renameDoc", {
        notebook: nb,
        path: await pathOf(ctx, a),
        title: "New/A",
      });
      await ctx.post("rename by id", "/api/filetree/renameDocByID", { id: b, title: "New B" });
      await ctx.flush();
      const attrsA = await ctx.quiet<Record<string, string>>("/api/attr/getBlockAttrs", { id: a });
      const attrsB = await ctx.quiet<Record<string, string>>("/api/attr/getBlockAttrs", { id: b });
      ctx.note("title A", attrsA["title"]);
      ctx.note("title B", attrsB["title"]);
      ctx.note("updated A changed", attrsA["updated"] !== a.slice(0, 14));
      ctx.note("updated B changed", attrsB["updated"] !== b.slice(0, 14));
      await ctx.post("hpath A", "/api/filetree/getHPathByID", { id: a });
      await ctx.post("rename same title", "/api/filetree/renameDocByID", { id: b, title: "New B" });
      await ctx.post("rename unknown", "/api/filetree/renameDocByID", {
        id: UNKNOWN_ID,
        title: "x",
      });
      await ctx.post("rename without id", "/api/filetree/renameDocByID", { title: "x" });
      await ctx.post("rename unknown path", "/api/filetree/renameDoc", {
        notebook: nb,
        path: `/${UNKNOWN_ID}.sy`,
        title: "x",
      });
    },
  ),
  probe(
    "filetree.remove",
    "removeDoc and removeDocByID remove the subtree; unknown path and ID",
    ["/api/filetree/removeDoc", "/api/filetree/removeDocByID"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const parent = await ctx.doc(nb, "/P", "p");
      const child = await ctx.doc(nb, "/P/C", "c");
      const other = await ctx.doc(nb, "/Other", "o");
      await ctx.post("remove by path", "/api/filetree/removeDoc", {
        notebook: nb,
        path: await pathOf(ctx, parent),
      });
      await ctx.flush();
      await ctx.post("child exists", "/api/block/checkBlockExist", { id: child });
      await ctx.post("remove by id", "/api/filetree/removeDocByID", { id: other });
      await ctx.flush();
      await ctx.post("removed exists", "/api/block/checkBlockExist", { id: other });
      await ctx.post("remove unknown id", "/api/filetree/removeDocByID", { id: UNKNOWN_ID });
      await ctx.post("remove unknown path", "/api/filetree/removeDoc", {
        notebook: nb,
        path: `/${UNKNOWN_ID}.sy`,
      });
      await ctx.post("remove in unknown notebook", "/api/filetree/removeDoc", {
        notebook: UNKNOWN_ID,
        path: `/${UNKNOWN_ID}.sy`,
      });
    },
  ),
  probe(
    "filetree.move",
    "moveDocs and moveDocsByID: into a doc, to a notebook root, errors",
    ["/api/filetree/moveDocs", "/api/filetree/moveDocsByID"],
    async (ctx) => {
      const nb = await ctx.notebook(" A");
      const nb2 = await ctx.notebook(" B");
      const target = await ctx.doc(nb, "/Target", "t");
      const m1 = await ctx.doc(nb, "/Mover one", "1");
      const m2 = await ctx.doc(nb, "/Mover two", "2");
      await ctx.post("move by path into a doc", "/api/filetree/moveDocs", {
        fromPaths: [await pathOf(ctx, m1)],
        toNotebook: nb,
        toPath: await pathOf(ctx, target),
      });
      await ctx.flush();
      await ctx.post("hpath after move", "/api/filetree/getHPathByID", { id: m1 });
      await ctx.post("path after move", "/api/filetree/getPathByID", { id: m1 });
      await ctx.post("move by id to a notebook", "/api/filetree/moveDocsByID", {
        fromIDs: [m2],
        toID: nb2,
      });
      await ctx.flush();
      await ctx.post("path after move by id", "/api/filetree/getPathByID", { id: m2 });
      await ctx.post("move by id into a doc", "/api/filetree/moveDocsByID", {
        fromIDs: [m2],
        toID: target,
      });
      await ctx.flush();
      await ctx.post("hpath after move by id", "/api/filetree/getHPathByID", { id: m2 });
      await ctx.post("move unknown id", "/api/filetree/moveDocsByID", {
        fromIDs: [UNKNOWN_ID],
        toID: target,
      });
      await ctx.post("move to unknown target", "/api/filetree/moveDocsByID", {
        fromIDs: [m2],
        toID: UNKNOWN_ID,
      });
      await ctx.post("move into itself", "/api/filetree/moveDocsByID", {
        fromIDs: [target],
        toID: m1,
      });
    },
  ),
  probe(
    "filetree.listDocsByPath",
    "listDocsByPath: File shape at the root and below, a leaf, errors",
    ["/api/filetree/listDocsByPath"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const top = await ctx.doc(nb, "/Top", "top text");
      await ctx.doc(nb, "/Top/Below", "below");
      await ctx.quiet("/api/attr/setBlockAttrs", {
        id: top,
        attrs: { name: "the name", alias: "al", memo: "me", bookmark: "bm", icon: "1f600" },
      });
      await ctx.flush();
      await ctx.post(
        "root",
        "/api/filetree/listDocsByPath",
        { notebook: nb, path: "/" },
        { mask: ["data.files.*.size", "data.files.*.hSize"] },
      );
      const p = await pathOf(ctx, top);
      await ctx.post(
        "below top",
        "/api/filetree/listDocsByPath",
        { notebook: nb, path: p },
        { mask: ["data.files.*.size", "data.files.*.hSize"] },
      );
      await ctx.post(
        "below top without .sy",
        "/api/filetree/listDocsByPath",
        {
          notebook: nb,
          path: p.replace(/\.sy$/, ""),
        },
        { keep: listing },
      );
      await ctx.post("leaf", "/api/filetree/listDocsByPath", {
        notebook: nb,
        path: `${p.replace(/\.sy$/, "")}/x.sy`,
      });
      await ctx.post("unknown notebook", "/api/filetree/listDocsByPath", {
        notebook: UNKNOWN_ID,
        path: "/",
      });
      await ctx.post("dot dot", "/api/filetree/listDocsByPath", { notebook: nb, path: "/../x" });
    },
  ),
  probe(
    "filetree.sort-modes",
    "listDocsByPath sort modes 0–14 on names that sort differently by each rule",
    ["/api/filetree/listDocsByPath"],
    async (ctx) => {
      const nb = await ctx.notebook();
      // created in this order: IDs (creation time) ascend along it
      for (const title of ["b10", "a2", "B1", "a10"]) {
        await ctx.doc(nb, `/${title}`, `content of ${title} ${"x".repeat(title.length * 40)}`);
        await ctx.sleep(1100); // distinct created/updated seconds
      }
      await ctx.flush();
      for (const sort of [0, 1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14, 15]) {
        await ctx.post(
          `sort ${sort}`,
          "/api/filetree/listDocsByPath",
          { notebook: nb, path: "/", sort },
          {
            keep: listing,
          },
        );
      }
      await ctx.post(
        "default sort",
        "/api/filetree/listDocsByPath",
        { notebook: nb, path: "/" },
        {
          keep: listing,
        },
      );
    },
  ),
  probe(
    "filetree.changeSort",
    "changeSort numbers siblings; custom order lists by it; a new doc goes last",
    ["/api/filetree/changeSort"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const ids: string[] = [];
      for (const t of ["one", "two", "three"]) ids.push(await ctx.doc(nb, `/${t}`, t));
      const paths = await Promise.all(ids.map((id) => pathOf(ctx, id)));
      await ctx.post(
        "list before",
        "/api/filetree/listDocsByPath",
        { notebook: nb, path: "/", sort: 6 },
        {
          keep: listing,
        },
      );
      await ctx.post("change", "/api/filetree/changeSort", {
        notebook: nb,
        paths: [paths[2], paths[0], paths[1]],
      });
      await ctx.post(
        "list after",
        "/api/filetree/listDocsByPath",
        { notebook: nb, path: "/", sort: 6 },
        {
          keep: listing,
        },
      );
      await ctx.doc(nb, "/four", "four");
      await ctx.post(
        "list with a new doc",
        "/api/filetree/listDocsByPath",
        {
          notebook: nb,
          path: "/",
          sort: 6,
        },
        { keep: listing },
      );
      await ctx.post("change with no paths", "/api/filetree/changeSort", {
        notebook: nb,
        paths: [],
      });
      const sortJson = await ctx.quietRaw({
        path: "/api/file/getFile",
        json: { path: `/data/${nb}/.siyuan/sort.json` },
      });
      ctx.note("sort.json", sortJson.json ?? sortJson.status);
    },
  ),
  probe(
    "filetree.duplicateDoc",
    "duplicateDoc: the answer (new ID, notebook, path, hPath with its double space), the copy's " +
      "kramdown (new block IDs, updated kept, title suffixed, own references re-targeted, database " +
      "and flashcard attributes dropped), its place after the source, a block ID (its document is " +
      "copied), a child document (its children are not), unknown and missing IDs",
    ["/api/filetree/duplicateDoc"],
    async (ctx) => {
      const nb = await ctx.notebook();
      await ctx.doc(nb, "/First", "first");
      const src = await ctx.doc(nb, "/Source", "# Head\n\nfirst **para**\n\n- a\n- b");
      await ctx.doc(nb, "/Last", "last");
      const kid = await ctx.doc(nb, "/Source/Kid", "kid");
      const [head] = await ctx.quiet<Array<{ id: string }>>("/api/block/getChildBlocks", {
        id: src,
      });
      await ctx.quiet("/api/block/appendBlock", {
        parentID: src,
        dataType: "markdown",
        data: `see ((${head?.id} 'the head')) and ((${src} 'the doc'))`,
      });
      await ctx.quiet("/api/attr/setBlockAttrs", {
        id: src,
        attrs: { "custom-kind": "plan", "custom-riff-decks": "20200101000000-zzzzzzz" },
      });
      await ctx.quiet("/api/attr/setBlockAttrs", {
        id: head?.id,
        attrs: { "custom-owner": "ana", "custom-avs": "20200101000000-zzzzzzz" },
      });
      await ctx.flush();
      const dup = data<{ id: string; path: string }>(
        await ctx.post("duplicate", "/api/filetree/duplicateDoc", { id: src }),
      );
      await ctx.flush();
      ctx.note("source kramdown after", await kramdown(ctx, src));
      ctx.note("copy kramdown", await kramdown(ctx, dup.id));
      await ctx.post("copy hpath", "/api/filetree/getHPathByID", { id: dup.id });
      await ctx.post(
        "listing after",
        "/api/filetree/listDocsByPath",
        { notebook: nb, path: "/" },
        { keep: listing },
      );
      await ctx.post(
        "copy's children",
        "/api/filetree/listDocsByPath",
        { notebook: nb, path: dup.path },
        { keep: listing },
      );
      const byBlock = data<{ id: string }>(
        await ctx.post("duplicate by a block ID", "/api/filetree/duplicateDoc", { id: head?.id }),
      );
      await ctx.flush();
      ctx.note("copy by block ID title", (await kramdown(ctx, byBlock.id)).split("\n").at(-1));
      await ctx.post("duplicate a child document", "/api/filetree/duplicateDoc", { id: kid });
      await ctx.flush();
      await ctx.post(
        "children after",
        "/api/filetree/listDocsByPath",
        { notebook: nb, path: `/${src}.sy` },
        { keep: listing },
      );
      await ctx.post("duplicate unknown", "/api/filetree/duplicateDoc", { id: UNKNOWN_ID });
      await ctx.post("duplicate without id", "/api/filetree/duplicateDoc", {});
    },
  ),
  probe(
    "filetree.heading2Doc",
    "heading2Doc: the section under a heading becomes a sub-document with the heading's ID, " +
      "attributes and plain-text title (/ as _), its headings re-levelled, fold dropped; the " +
      "source keeps the rest (an empty paragraph when nothing is left); to the notebook root; " +
      "missing targetPath, unknown target path and heading, missing arguments",
    ["/api/filetree/heading2Doc"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const src = await ctx.doc(
        nb,
        "/Source",
        "intro\n\n## A **bold**/slash\n\na1\n\n### A sub\n\na2\n\n## B\n\nb1",
      );
      const [, head, , sub, , b] = await children(ctx, src);
      await ctx.quiet("/api/attr/setBlockAttrs", {
        id: head?.id,
        attrs: { "custom-owner": "ana", fold: "1" },
      });
      await ctx.quiet("/api/attr/setBlockAttrs", { id: sub?.id, attrs: { fold: "1" } });
      await ctx.flush();
      const srcPath = await pathOf(ctx, src);
      await ctx.post("to a sub-document", "/api/filetree/heading2Doc", {
        srcHeadingID: head?.id,
        targetNoteBook: nb,
        targetPath: srcPath,
      });
      await ctx.flush();
      ctx.note("new document kramdown", await kramdown(ctx, head?.id as string));
      ctx.note("source kramdown after", await kramdown(ctx, src));
      await ctx.post("new document's path", "/api/filetree/getPathByID", { id: head?.id });
      await ctx.post(
        "source's children",
        "/api/filetree/listDocsByPath",
        { notebook: nb, path: srcPath },
        { keep: listing },
      );
      await ctx.post("to the notebook root", "/api/filetree/heading2Doc", {
        srcHeadingID: b?.id,
        targetNoteBook: nb,
        targetPath: "/",
      });
      await ctx.flush();
      ctx.note("root document kramdown", await kramdown(ctx, b?.id as string));
      ctx.note("source kramdown at last", await kramdown(ctx, src));
      await ctx.post(
        "root listing",
        "/api/filetree/listDocsByPath",
        { notebook: nb, path: "/" },
        { keep: listing },
      );
      const lone = await ctx.doc(nb, "/Lone", "## Only\n\nbody");
      const [only] = await children(ctx, lone);
      await ctx.post("the whole body", "/api/filetree/heading2Doc", {
        srcHeadingID: only?.id,
        targetNoteBook: nb,
        targetPath: "/",
      });
      await ctx.flush();
      ctx.note(
        "emptied source kramdown",
        (await kramdown(ctx, lone)).replace(/ ?id="[^"]+"/g, "").replace(/\{:\s+/g, "{: "),
      );
      await ctx.post("without targetPath", "/api/filetree/heading2Doc", {
        srcHeadingID: only?.id,
        targetNoteBook: nb,
      });
      await ctx.post("unknown target path", "/api/filetree/heading2Doc", {
        srcHeadingID: only?.id,
        targetNoteBook: nb,
        targetPath: `/${UNKNOWN_ID}.sy`,
      });
      await ctx.post("unknown heading", "/api/filetree/heading2Doc", {
        srcHeadingID: UNKNOWN_ID,
        targetNoteBook: nb,
        targetPath: "/",
      });
      await ctx.post("without srcHeadingID", "/api/filetree/heading2Doc", {
        targetNoteBook: nb,
        targetPath: "/",
      });
    },
  ),
  probe(
    "filetree.doc2Heading",
    "doc2Heading: a document becomes a heading (its ID, attributes, title; its tags a paragraph) " +
      "with its blocks, before or after a target heading (after its section) or block (one level " +
      "below), its headings shifted; the file is gone; a document with children, unknown and " +
      "malformed IDs, missing arguments",
    ["/api/filetree/doc2Heading"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const target = await ctx.doc(nb, "/Target", "## T1\n\nt1 body\n\n## T2\n\nt2 body");
      const [t1, , t2, t2body] = await children(ctx, target);
      const src = await ctx.doc(nb, "/Moved", "m body\n\n### M sub\n\nm sub body");
      await ctx.quiet("/api/attr/setBlockAttrs", {
        id: src,
        attrs: { "custom-owner": "ana", tags: "x,y" },
      });
      await ctx.flush();
      const answer = await ctx.post("after a heading", "/api/filetree/doc2Heading", {
        srcID: src,
        targetID: t1?.id,
        after: true,
      });
      await ctx.flush();
      ctx.note(
        "answer path is the source's",
        data<{ srcTreePath: string }>(answer).srcTreePath === `/${src}.sy`,
      );
      ctx.note("target kramdown", await kramdown(ctx, target));
      await ctx.post("source's path now", "/api/filetree/getPathByID", { id: src });
      await ctx.post(
        "root listing",
        "/api/filetree/listDocsByPath",
        { notebook: nb, path: "/" },
        { keep: listing },
      );
      const second = await ctx.doc(nb, "/Second", "## S head\n\ns body");
      await ctx.post("before a paragraph", "/api/filetree/doc2Heading", {
        srcID: second,
        targetID: t2body?.id,
        after: false,
      });
      await ctx.flush();
      ctx.note("target kramdown at last", await kramdown(ctx, target));
      const parent = await ctx.doc(nb, "/Parent", "p");
      await ctx.doc(nb, "/Parent/Kid", "k");
      await ctx.post("a document with a child", "/api/filetree/doc2Heading", {
        srcID: parent,
        targetID: t2?.id,
        after: false,
      });
      await ctx.post("unknown target", "/api/filetree/doc2Heading", {
        srcID: parent,
        targetID: UNKNOWN_ID,
        after: false,
      });
      await ctx.post("unknown source", "/api/filetree/doc2Heading", {
        srcID: UNKNOWN_ID,
        targetID: t2?.id,
        after: false,
      });
      await ctx.post("malformed source", "/api/filetree/doc2Heading", {
        srcID: "x",
        targetID: t2?.id,
        after: false,
      });
      await ctx.post("without after", "/api/filetree/doc2Heading", {
        srcID: parent,
        targetID: t2?.id,
      });
      await ctx.post("parent still there", "/api/filetree/getPathByID", { id: parent });
    },
  ),
  probe(
    "filetree.getDoc",
    "getDoc: the loaded-content shape, size 1, unknown ID",
    ["/api/filetree/getDoc"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const id = await ctx.doc(nb, "/Loaded", "# Title\n\nA paragraph\n\nAnother");
      await ctx.post("get", "/api/filetree/getDoc", { id });
      await ctx.post(
        "size 1",
        "/api/filetree/getDoc",
        { id, size: 1 },
        {
          keep: (j) => {
            const e = j as { code: number; data: Record<string, unknown> };
            return { code: e.code, rootID: e.data?.["rootID"], blockCount: e.data?.["blockCount"] };
          },
        },
      );
      await ctx.post("unknown", "/api/filetree/getDoc", { id: UNKNOWN_ID });
    },
  ),
];

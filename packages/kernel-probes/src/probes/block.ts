/** Blocks (contract §4.4): writes, their transactions and quirks, and the block reads. */
import { childAt, children, env, kramdown, probe, UNKNOWN_ID } from "./kit.js";

const BODY = "# Heading one\n\nFirst paragraph\n\n- item a\n- item b\n\nLast paragraph";

export const blockProbes = [
  probe(
    "block.insertBlock",
    "insertBlock by previousID, nextID and parentID: the transaction, the result, anchor errors",
    ["/api/block/insertBlock"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Insert", BODY);
      const first = await childAt(ctx, doc, 1);
      const last = await childAt(ctx, doc, 3);
      const list = await childAt(ctx, doc, 2);
      await ctx.post("after previousID", "/api/block/insertBlock", {
        dataType: "markdown",
        data: "Inserted after",
        previousID: first.id,
      });
      await ctx.post("before nextID", "/api/block/insertBlock", {
        dataType: "markdown",
        data: "Inserted **before**",
        nextID: last.id,
      });
      await ctx.post("two blocks into the doc", "/api/block/insertBlock", {
        dataType: "markdown",
        data: "Block one\n\nBlock two",
        parentID: doc,
      });
      await ctx.post("dom data", "/api/block/insertBlock", {
        dataType: "dom",
        data: '<div data-type="NodeParagraph" class="p"><div contenteditable="true" spellcheck="false">From DOM</div><div class="protyle-attr" contenteditable="false"></div></div>',
        previousID: last.id,
      });
      await ctx.flush();
      ctx.note("doc after", await kramdown(ctx, doc));
      await ctx.post("parentID a leaf", "/api/block/insertBlock", {
        dataType: "markdown",
        data: "x",
        parentID: first.id,
      });
      await ctx.post("parentID a list", "/api/block/insertBlock", {
        dataType: "markdown",
        data: "- into the list",
        parentID: list.id,
      });
      await ctx.post("parentID unknown", "/api/block/insertBlock", {
        dataType: "markdown",
        data: "x",
        parentID: UNKNOWN_ID,
      });
      await ctx.post("previousID malformed", "/api/block/insertBlock", {
        dataType: "markdown",
        data: "x",
        previousID: "nope",
      });
      await ctx.post("no anchor", "/api/block/insertBlock", { dataType: "markdown", data: "x" });
      const before = await kramdown(ctx, doc);
      await ctx.post(
        "previousID unknown",
        "/api/block/insertBlock",
        { dataType: "markdown", data: "orphan", previousID: UNKNOWN_ID },
        { mask: ["data.0.doOperations.0.id"] },
      );
      await ctx.flush();
      ctx.note("unknown anchor changed the doc", (await kramdown(ctx, doc)) !== before);
    },
  ),
  probe(
    "block.append-prepend",
    "appendBlock / prependBlock into a doc and a list item; leaf parent errors",
    ["/api/block/appendBlock", "/api/block/prependBlock"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Append", BODY);
      const list = await childAt(ctx, doc, 2);
      const item = await childAt(ctx, list.id, 0);
      const para = await childAt(ctx, doc, 1);
      await ctx.post("append to doc", "/api/block/appendBlock", {
        dataType: "markdown",
        data: "Appended",
        parentID: doc,
      });
      await ctx.post("prepend to doc", "/api/block/prependBlock", {
        dataType: "markdown",
        data: "Prepended",
        parentID: doc,
      });
      await ctx.post("append to list item", "/api/block/appendBlock", {
        dataType: "markdown",
        data: "Inside the item",
        parentID: item.id,
      });
      await ctx.flush();
      ctx.note("doc after", await kramdown(ctx, doc));
      await ctx.post("append to leaf", "/api/block/appendBlock", {
        dataType: "markdown",
        data: "x",
        parentID: para.id,
      });
      await ctx.post("prepend to unknown", "/api/block/prependBlock", {
        dataType: "markdown",
        data: "x",
        parentID: UNKNOWN_ID,
      });
      await ctx.post("append empty markdown", "/api/block/appendBlock", {
        dataType: "markdown",
        data: "",
        parentID: doc,
      });
    },
  ),
  probe(
    "block.updateBlock",
    "updateBlock: the reply, a read right after, the read after flush, attributes, errors",
    ["/api/block/updateBlock"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Update", BODY);
      const para = await childAt(ctx, doc, 1);
      await ctx.quiet("/api/attr/setBlockAttrs", {
        id: para.id,
        attrs: { "custom-keep": "kept?", name: "named" },
      });
      await ctx.flush();
      await ctx.sleep(1100);
      await ctx.post("update", "/api/block/updateBlock", {
        id: para.id,
        dataType: "markdown",
        data: "Updated *text*",
      });
      await ctx.post("read right after", "/api/block/getBlockKramdown", { id: para.id });
      await ctx.flush();
      await ctx.post("read after flush", "/api/block/getBlockKramdown", { id: para.id });
      const attrs = await ctx.quiet<Record<string, string>>("/api/attr/getBlockAttrs", {
        id: para.id,
      });
      ctx.note("attrs after update", Object.keys(attrs).sort());
      ctx.note("updated changed", attrs["updated"] !== para.id.slice(0, 14));
      await ctx.post("update with IAL", "/api/block/updateBlock", {
        id: para.id,
        dataType: "markdown",
        data: 'With IAL\n{: custom-keep="again"}',
      });
      await ctx.flush();
      await ctx.post(
        "attrs after IAL update",
        "/api/attr/getBlockAttrs",
        { id: para.id },
        {
          mask: ["data.updated"],
        },
      );
      await ctx.post("update to two blocks", "/api/block/updateBlock", {
        id: para.id,
        dataType: "markdown",
        data: "Split one\n\nSplit two",
      });
      await ctx.flush();
      ctx.note(
        "children after split",
        (await children(ctx, doc)).map((c) => c.type),
      );
      await ctx.post("update unknown", "/api/block/updateBlock", {
        id: UNKNOWN_ID,
        dataType: "markdown",
        data: "x",
      });
      await ctx.post("update malformed id", "/api/block/updateBlock", {
        id: "nope",
        dataType: "markdown",
        data: "x",
      });
      await ctx.post("update without id", "/api/block/updateBlock", {
        dataType: "markdown",
        data: "x",
      });
      await ctx.post("update the doc", "/api/block/updateBlock", {
        id: doc,
        dataType: "markdown",
        data: "Whole doc replaced",
      });
      await ctx.flush();
      ctx.note("doc after doc update", await kramdown(ctx, doc));
    },
  ),
  probe(
    "block.batchUpdateBlock",
    "batchUpdateBlock: two blocks in one call; an unknown block",
    ["/api/block/batchUpdateBlock"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Batch", BODY);
      const a = await childAt(ctx, doc, 1);
      const b = await childAt(ctx, doc, 3);
      await ctx.post("batch", "/api/block/batchUpdateBlock", {
        blocks: [
          { id: a.id, dataType: "markdown", data: "Batch A" },
          { id: b.id, dataType: "markdown", data: "Batch B" },
        ],
      });
      await ctx.flush();
      ctx.note("doc after", await kramdown(ctx, doc));
      await ctx.post("batch with unknown", "/api/block/batchUpdateBlock", {
        blocks: [
          { id: a.id, dataType: "markdown", data: "Batch A2" },
          { id: UNKNOWN_ID, dataType: "markdown", data: "x" },
        ],
      });
      await ctx.flush();
      ctx.note("first block after the failed batch", await kramdown(ctx, a.id));
      await ctx.post("batch empty", "/api/block/batchUpdateBlock", { blocks: [] });
    },
  ),
  probe(
    "block.deleteBlock",
    "deleteBlock: the reply, a check right after, after flush; unknown ID",
    ["/api/block/deleteBlock", "/api/block/checkBlockExist"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Delete", BODY);
      const para = await childAt(ctx, doc, 1);
      await ctx.post("delete", "/api/block/deleteBlock", { id: para.id });
      // the quirk under test: the kernel answers a delete before it applies it
      await ctx.post("exists right after", "/api/block/checkBlockExist", { id: para.id });
      await ctx.flush();
      await ctx.post("exists after flush", "/api/block/checkBlockExist", { id: para.id });
      await ctx.post("kramdown after flush", "/api/block/getBlockKramdown", { id: para.id });
      await ctx.post("delete unknown", "/api/block/deleteBlock", { id: UNKNOWN_ID });
      await ctx.post("delete malformed", "/api/block/deleteBlock", { id: "nope" });
      await ctx.post("exists unknown", "/api/block/checkBlockExist", { id: UNKNOWN_ID });
      await ctx.post("exists doc", "/api/block/checkBlockExist", { id: doc });
    },
  ),
  probe(
    "block.moveBlock",
    "moveBlock by previousID and parentID; errors",
    ["/api/block/moveBlock"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Move", BODY);
      const [h, p1, list, p2] = await children(ctx, doc);
      if (!h || !p1 || !list || !p2) throw new Error("unexpected children");
      const item = await childAt(ctx, list.id, 0);
      await ctx.post("after previousID", "/api/block/moveBlock", { id: p2.id, previousID: h.id });
      await ctx.post("into a list item", "/api/block/moveBlock", { id: p1.id, parentID: item.id });
      await ctx.flush();
      ctx.note("doc after", await kramdown(ctx, doc));
      await ctx.post("unknown id", "/api/block/moveBlock", { id: UNKNOWN_ID, previousID: h.id });
      await ctx.post("previousID a doc", "/api/block/moveBlock", { id: p2.id, previousID: doc });
      await ctx.post("previousID unknown", "/api/block/moveBlock", {
        id: p2.id,
        previousID: UNKNOWN_ID,
      });
      await ctx.post("parentID unknown", "/api/block/moveBlock", {
        id: p2.id,
        parentID: UNKNOWN_ID,
      });
      await ctx.post("parentID a leaf", "/api/block/moveBlock", { id: p2.id, parentID: h.id });
      await ctx.post("item into an item", "/api/block/moveBlock", {
        id: item.id,
        parentID: (await childAt(ctx, list.id, 1)).id,
      });
      await ctx.post("no anchor", "/api/block/moveBlock", { id: p2.id });
    },
  ),
  probe(
    "block.fold",
    "foldBlock / unfoldBlock on a heading and a list item; doc and unknown errors",
    ["/api/block/foldBlock", "/api/block/unfoldBlock"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Fold", BODY);
      const [h, , list] = await children(ctx, doc);
      if (!h || !list) throw new Error("unexpected children");
      const item = await childAt(ctx, list.id, 0);
      await ctx.post("fold heading", "/api/block/foldBlock", { id: h.id });
      await ctx.post("fold item", "/api/block/foldBlock", { id: item.id });
      await ctx.flush();
      await ctx.post("heading attrs", "/api/attr/getBlockAttrs", { id: h.id });
      await ctx.post("item attrs", "/api/attr/getBlockAttrs", { id: item.id });
      const para = await childAt(ctx, doc, 1);
      await ctx.post("under folded heading attrs", "/api/attr/getBlockAttrs", { id: para.id });
      await ctx.post("unfold heading", "/api/block/unfoldBlock", { id: h.id });
      await ctx.post("unfold item", "/api/block/unfoldBlock", { id: item.id });
      await ctx.flush();
      await ctx.post("heading attrs after", "/api/attr/getBlockAttrs", { id: h.id });
      await ctx.post("item attrs after", "/api/attr/getBlockAttrs", { id: item.id });
      await ctx.post("fold doc", "/api/block/foldBlock", { id: doc });
      await ctx.post("unfold doc", "/api/block/unfoldBlock", { id: doc });
      await ctx.post("fold unknown", "/api/block/foldBlock", { id: UNKNOWN_ID });
    },
  ),
  probe(
    "block.fold-kinds",
    "foldBlock on a paragraph, a thematic break, a one-line list item and a list (fold=1 on any " +
      "non-document block), folding twice, unfolding an unfolded block, a block under a folded heading",
    ["/api/block/foldBlock", "/api/block/unfoldBlock"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(
        nb,
        "/Fold kinds",
        "# Head\n\nFirst\n\n---\n\n- one\n- two\n\nLast",
      );
      const [h, p, hr, list] = await children(ctx, doc);
      if (!h || !p || !hr || !list) throw new Error("unexpected children");
      const item = await childAt(ctx, list.id, 0);
      for (const [label, id] of [
        ["paragraph", p.id],
        ["thematic break", hr.id],
        ["one-line item", item.id],
        ["list", list.id],
      ] as const) {
        await ctx.post(`fold ${label}`, "/api/block/foldBlock", { id });
        await ctx.flush();
        ctx.note(`${label} kramdown`, await kramdown(ctx, id));
      }
      await ctx.post("fold paragraph again", "/api/block/foldBlock", { id: p.id });
      await ctx.post("unfold paragraph", "/api/block/unfoldBlock", { id: p.id });
      await ctx.post("unfold paragraph again", "/api/block/unfoldBlock", { id: p.id });
      await ctx.flush();
      ctx.note("paragraph after unfolds", await kramdown(ctx, p.id));
      await ctx.post("fold heading", "/api/block/foldBlock", { id: h.id });
      await ctx.flush();
      ctx.note("heading kramdown (its own block only)", await kramdown(ctx, h.id));
      await ctx.post("unfold a block under the folded heading", "/api/block/unfoldBlock", {
        id: p.id,
      });
      await ctx.flush();
      ctx.note("that block after", await kramdown(ctx, p.id));
      ctx.note("the heading after", await kramdown(ctx, h.id));
      await ctx.post("fold without id", "/api/block/foldBlock", {});
      await ctx.post("fold a bad id", "/api/block/foldBlock", { id: "not-an-id" });
    },
  ),
  probe(
    "block.transferBlockRef",
    "transferBlockRef: every reference (dynamic anchors take the target's text, static ones stay) " +
      "or only refIDs' blocks, updated kept, the refs index after; unknown target, unknown source, " +
      "the same block, no toID",
    ["/api/block/transferBlockRef"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const defs = await ctx.doc(nb, "/Defs", "Old target\n\n## New target heading\n\nThird");
      const [from, to, third] = await children(ctx, defs);
      if (!from || !to || !third) throw new Error("unexpected children");
      const refs = await ctx.doc(
        nb,
        "/Refs",
        `see ((${from.id} 'old')) and ((${from.id} "fixed")) twice\n\nalso ((${from.id} 'x'))\n\nonly ((${third.id} 'third'))`,
      );
      const [r1, r2] = await children(ctx, refs);
      if (!r1 || !r2) throw new Error("unexpected children");
      await ctx.flush();
      const names: Record<string, string> = {
        [r1.id]: "first",
        [r2.id]: "second",
        [from.id]: "from",
        [to.id]: "to",
      };
      // block IDs made in the same second sort at random: rows by name, sorted
      const refRows = (j: unknown) => {
        const e = j as { code: number; data: Array<Record<string, unknown>> | null };
        const name = (v: unknown) => names[String(v)] ?? String(v);
        const rows = (e.data ?? []).map(
          (r) => `${name(r["block_id"])} → ${name(r["def_block_id"])}`,
        );
        return { code: e.code, rows: rows.sort() };
      };
      await ctx.post(
        "refs before",
        "/api/query/sql",
        {
          stmt: `SELECT block_id, def_block_id FROM refs WHERE def_block_id = '${from.id}'`,
        },
        { keep: refRows },
      );
      await ctx.post("transfer refIDs [second]", "/api/block/transferBlockRef", {
        fromID: from.id,
        toID: to.id,
        refIDs: [r2.id],
      });
      await ctx.flush();
      ctx.note("first after a refIDs transfer", await kramdown(ctx, r1.id));
      ctx.note("second after a refIDs transfer", await kramdown(ctx, r2.id));
      await ctx.post("transfer all", "/api/block/transferBlockRef", {
        fromID: from.id,
        toID: to.id,
        reloadUI: false,
      });
      await ctx.flush();
      ctx.note("first after", await kramdown(ctx, r1.id));
      await ctx.post(
        "refs to the target after",
        "/api/query/sql",
        {
          stmt: `SELECT block_id, def_block_id FROM refs WHERE def_block_id IN ('${from.id}', '${to.id}')`,
        },
        { keep: refRows },
      );
      await ctx.post("transfer again (none left)", "/api/block/transferBlockRef", {
        fromID: from.id,
        toID: to.id,
      });
      await ctx.post("unknown target", "/api/block/transferBlockRef", {
        fromID: to.id,
        toID: UNKNOWN_ID,
      });
      await ctx.post("unknown source", "/api/block/transferBlockRef", {
        fromID: UNKNOWN_ID,
        toID: to.id,
      });
      await ctx.post("same block", "/api/block/transferBlockRef", { fromID: to.id, toID: to.id });
      await ctx.flush();
      ctx.note("first after the same-block call", await kramdown(ctx, r1.id));
      await ctx.post("bad fromID", "/api/block/transferBlockRef", { fromID: "x", toID: to.id });
    },
  ),
  probe(
    "block.reads",
    "getBlockKramdown(s), getBlockDOM(s), getChildBlocks, getBlockInfo, getBlockBreadcrumb",
    [
      "/api/block/getBlockKramdown",
      "/api/block/getBlockKramdowns",
      "/api/block/getBlockDOM",
      "/api/block/getBlockDOMs",
      "/api/block/getChildBlocks",
      "/api/block/getBlockInfo",
      "/api/block/getBlockBreadcrumb",
    ],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(
        nb,
        "/Reads/Deep",
        "# Heading one\n\nUnder the heading with **bold** and `code`\n\n## Sub heading\n\nUnder sub\n\n- item a\n  - nested item\n- item b\n\n> quoted\n\n```js\nlet x = 1;\n```",
      );
      const kids = await children(ctx, doc);
      const [h1, p1, h2] = kids;
      if (!h1 || !p1 || !h2) throw new Error("unexpected children");
      const list = kids.find((k) => k.type === "l");
      const item = list ? await childAt(ctx, list.id, 0) : null;
      const nested = item ? (await children(ctx, item.id)).find((k) => k.type === "l") : undefined;
      const nestedItem = nested ? await childAt(ctx, nested.id, 0) : null;
      await ctx.post("kramdown of paragraph", "/api/block/getBlockKramdown", { id: p1.id });
      await ctx.post("kramdown textmark", "/api/block/getBlockKramdown", {
        id: p1.id,
        mode: "textmark",
      });
      await ctx.post("kramdown bad mode", "/api/block/getBlockKramdown", { id: p1.id, mode: "x" });
      await ctx.post("kramdown of doc", "/api/block/getBlockKramdown", { id: doc });
      await ctx.post("kramdown of list", "/api/block/getBlockKramdown", { id: list?.id });
      await ctx.post("kramdown unknown", "/api/block/getBlockKramdown", { id: UNKNOWN_ID });
      await ctx.post("kramdowns", "/api/block/getBlockKramdowns", {
        ids: [p1.id, h1.id, UNKNOWN_ID],
      });
      await ctx.post("dom of paragraph", "/api/block/getBlockDOM", { id: p1.id });
      await ctx.post("dom of heading", "/api/block/getBlockDOM", { id: h1.id });
      await ctx.post("dom of list", "/api/block/getBlockDOM", { id: list?.id });
      await ctx.post("dom unknown", "/api/block/getBlockDOM", { id: UNKNOWN_ID });
      await ctx.post("doms", "/api/block/getBlockDOMs", { ids: [p1.id, UNKNOWN_ID] });
      await ctx.post("children of doc", "/api/block/getChildBlocks", { id: doc });
      await ctx.post("children of heading", "/api/block/getChildBlocks", { id: h1.id });
      await ctx.post("children of list", "/api/block/getChildBlocks", { id: list?.id });
      await ctx.post("children of leaf", "/api/block/getChildBlocks", { id: p1.id });
      await ctx.post("children unknown", "/api/block/getChildBlocks", { id: UNKNOWN_ID });
      await ctx.post("info of nested item", "/api/block/getBlockInfo", { id: nestedItem?.id });
      await ctx.post("info of doc", "/api/block/getBlockInfo", { id: doc });
      await ctx.post("info unknown", "/api/block/getBlockInfo", { id: UNKNOWN_ID });
      const under = await childAt(ctx, doc, 3);
      await ctx.post("breadcrumb under sub heading", "/api/block/getBlockBreadcrumb", {
        id: under.id,
      });
      await ctx.post("breadcrumb of nested item", "/api/block/getBlockBreadcrumb", {
        id: nestedItem?.id,
      });
      const nestedPara = nestedItem ? await childAt(ctx, nestedItem.id, 0) : null;
      await ctx.post("breadcrumb of nested paragraph", "/api/block/getBlockBreadcrumb", {
        id: nestedPara?.id,
      });
      await ctx.post("breadcrumb of doc", "/api/block/getBlockBreadcrumb", { id: doc });
      await ctx.post("breadcrumb unknown", "/api/block/getBlockBreadcrumb", { id: UNKNOWN_ID });
      const e = env(
        await ctx.quietRaw({ path: "/api/block/checkBlockExist", json: { id: p1.id } }),
      );
      ctx.note("checkBlockExist of paragraph", e.data);
    },
  ),
  probe(
    "block.appendBlock.mixed-lists",
    "list items that change from task to plain or back, or change the ordered delimiter, start a new list",
    ["/api/block/appendBlock"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Mixed lists", "- a\n- [ ] b\n- c\n\n1. [ ] x\n2. y");
      await ctx.post("task then plain", "/api/block/appendBlock", {
        dataType: "markdown",
        data: "- [ ] p\n- q",
        parentID: doc,
      });
      await ctx.post("delimiter change", "/api/block/appendBlock", {
        dataType: "markdown",
        data: "1. one\n2) two\n\n* [ ] s\n\n- t",
        parentID: doc,
      });
      await ctx.flush();
      ctx.note("doc after", await kramdown(ctx, doc));
    },
  ),
];

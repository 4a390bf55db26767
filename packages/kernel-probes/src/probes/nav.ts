/** Navigation and daily notes (contract §4.10): backlinks, outline, recent docs, daily notes. */
import { children, data, kramdown, probe, txId, UNKNOWN_ID } from "./kit.js";

export const navProbes = [
  probe(
    "ref.getBacklink2",
    "getBacklink2: one Path per referencing doc, counts, mentions; string sorts; unknown ID",
    ["/api/ref/getBacklink2"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const target = await ctx.doc(nb, "/Linked target", "Target body");
      await ctx.doc(
        nb,
        "/Linker",
        `First ((${target} "anchor one"))\n\nSecond ((${target} 'dynamic'))\n\nNo ref here`,
      );
      await ctx.doc(nb, "/Mentioner", "This mentions Linked target by name");
      const sorted = (j: unknown) => {
        const e = j as {
          code: number;
          msg: string;
          data: { backlinks?: Array<{ name: string }>; backmentions?: Array<{ name: string }> };
        };
        if (e.code !== 0 || !e.data) return e;
        const by = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
        return {
          ...e,
          data: {
            ...e.data,
            backlinks: e.data.backlinks && [...e.data.backlinks].sort(by),
            backmentions: e.data.backmentions && [...e.data.backmentions].sort(by),
          },
        };
      };
      await ctx.post(
        "backlinks",
        "/api/ref/getBacklink2",
        {
          id: target,
          k: "",
          mk: "",
          sort: "3",
          mSort: "3",
        },
        { keep: sorted },
      );
      await ctx.post(
        "backlinks filtered",
        "/api/ref/getBacklink2",
        {
          id: target,
          k: "Second",
          mk: "",
          sort: "3",
          mSort: "3",
        },
        { keep: sorted },
      );
      await ctx.post(
        "numeric sort",
        "/api/ref/getBacklink2",
        {
          id: target,
          k: "",
          mk: "",
          sort: 3,
          mSort: 3,
        },
        { keep: sorted },
      );
      await ctx.post("unknown id", "/api/ref/getBacklink2", { id: UNKNOWN_ID, k: "", mk: "" });
      await ctx.post("no id", "/api/ref/getBacklink2", { k: "", mk: "" });
    },
  ),
  probe(
    "outline.getDocOutline",
    "getDocOutline: nested headings; a doc without headings; unknown ID",
    ["/api/outline/getDocOutline"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(
        nb,
        "/Outlined",
        "# One\n\ntext\n\n## One.A\n\n### One.A.i\n\n## One **B**\n\n# Two\n\n> # Quoted heading",
      );
      const flat = await ctx.doc(nb, "/Flat", "no headings here");
      await ctx.post("outline", "/api/outline/getDocOutline", { id: doc });
      await ctx.post("no headings", "/api/outline/getDocOutline", { id: flat });
      await ctx.post("unknown", "/api/outline/getDocOutline", { id: UNKNOWN_ID });
      await ctx.post("malformed", "/api/outline/getDocOutline", { id: "nope" });
    },
  ),
  probe(
    "storage.getRecentDocs",
    "getRecentDocs: empty without UI calls; sortBy updated lists by SQL",
    ["/api/storage/getRecentDocs"],
    async (ctx) => {
      await ctx.post("default", "/api/storage/getRecentDocs", {});
      await ctx.call("empty body", { path: "/api/storage/getRecentDocs", raw: "" });
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Recent one", "text");
      await ctx.post(
        "sortBy updated",
        "/api/storage/getRecentDocs",
        { sortBy: "updated" },
        {
          keep: (j) => {
            const e = j as { code: number; data: Array<{ rootID: string }> | null };
            const mine = (e.data ?? []).filter((d) => d.rootID === doc);
            return { code: e.code, isArray: Array.isArray(e.data), mine };
          },
        },
      );
    },
  ),
  probe(
    "daily.createDailyNote",
    "createDailyNote: created once a day, its hpath and attribute; closed and unknown notebook",
    ["/api/filetree/createDailyNote"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const first = await ctx.post("create", "/api/filetree/createDailyNote", { notebook: nb });
      const id = data<{ id: string }>(first).id;
      const again = await ctx.post("again", "/api/filetree/createDailyNote", { notebook: nb });
      ctx.note("again: the same note", data<{ id: string }>(again).id === id);
      await ctx.flush();
      await ctx.post("hpath", "/api/filetree/getHPathByID", { id });
      await ctx.post("attrs", "/api/attr/getBlockAttrs", { id });
      await ctx.post("kramdown", "/api/block/getBlockKramdown", { id });
      await ctx.post("unknown notebook", "/api/filetree/createDailyNote", { notebook: UNKNOWN_ID });
      await ctx.post("no notebook", "/api/filetree/createDailyNote", {});
      const closed = await ctx.notebook(" closed");
      await ctx.quiet("/api/notebook/closeNotebook", { notebook: closed });
      await ctx.post("closed notebook", "/api/filetree/createDailyNote", { notebook: closed });
      const custom = await ctx.notebook(" custom");
      await ctx.quiet("/api/notebook/setNotebookConf", {
        notebook: custom,
        conf: { dailyNoteSavePath: '/journal/{{now | date "2006-01-02"}}' },
      });
      const c = await ctx.post("custom save path", "/api/filetree/createDailyNote", {
        notebook: custom,
      });
      await ctx.flush();
      await ctx.post("custom hpath", "/api/filetree/getHPathByID", {
        id: data<{ id: string }>(c).id,
      });
    },
  ),
  probe(
    "daily.dailyNoteBlock",
    "appendDailyNoteBlock / prependDailyNoteBlock: today's note created when absent (with its " +
      "empty paragraph), the transaction, the block's place; unknown and closed notebooks",
    ["/api/block/appendDailyNoteBlock", "/api/block/prependDailyNoteBlock"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const a = await ctx.post("append (note absent)", "/api/block/appendDailyNoteBlock", {
        notebook: nb,
        dataType: "markdown",
        data: "hello **daily**",
      });
      const appended = txId(a);
      const p = await ctx.post("prepend", "/api/block/prependDailyNoteBlock", {
        notebook: nb,
        dataType: "markdown",
        data: "first\n\nsecond",
      });
      const prepended = txId(p);
      await ctx.flush();
      const note = data<{ id: string }>(
        await ctx.post("the note", "/api/filetree/createDailyNote", { notebook: nb }),
      ).id;
      const kids = (await children(ctx, note)).map((c) => c.id);
      ctx.note("appended is last", kids.at(-1) === appended);
      ctx.note("prepended is first", kids[0] === prepended);
      ctx.note("note kramdown", await kramdown(ctx, note));
      await ctx.post("appended block info", "/api/block/getBlockInfo", { id: appended });
      await ctx.post("unknown notebook", "/api/block/appendDailyNoteBlock", {
        notebook: UNKNOWN_ID,
        dataType: "markdown",
        data: "x",
      });
      const closed = await ctx.notebook(" closed");
      await ctx.quiet("/api/notebook/closeNotebook", { notebook: closed });
      await ctx.post("closed notebook", "/api/block/prependDailyNoteBlock", {
        notebook: closed,
        dataType: "markdown",
        data: "x",
      });
    },
  ),
];

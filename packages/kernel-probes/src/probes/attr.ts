/** Attributes (contract §4.5): set/get, `updated`, deletion, name rules, batches. */
import { childAt, probe, UNKNOWN_ID } from "./kit.js";

export const attrProbes = [
  probe(
    "attr.set-get",
    "setBlockAttrs then getBlockAttrs: values, escaping, tags, and whether `updated` moves",
    ["/api/attr/setBlockAttrs", "/api/attr/getBlockAttrs"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Attrs", "A paragraph");
      const para = await childAt(ctx, doc, 0);
      await ctx.post("get before", "/api/attr/getBlockAttrs", { id: para.id });
      await ctx.sleep(1100); // a changed `updated` must show at second resolution
      await ctx.post("set", "/api/attr/setBlockAttrs", {
        id: para.id,
        attrs: {
          "custom-plain": "value",
          "custom-spaced": "  padded  ",
          "custom-html": '<b>&"quoted"</b>',
          "Custom-Upper": "upper name",
          name: "a name",
        },
      });
      await ctx.post("get right after", "/api/attr/getBlockAttrs", { id: para.id });
      await ctx.flush();
      const after = await ctx.post("get after flush", "/api/attr/getBlockAttrs", { id: para.id });
      const updated = (after.json as { data: Record<string, string> }).data["updated"];
      ctx.note("updated moved", updated !== para.id.slice(0, 14));
      await ctx.post("kramdown after", "/api/block/getBlockKramdown", { id: para.id });
      await ctx.post("set doc tags", "/api/attr/setBlockAttrs", {
        id: doc,
        attrs: { tags: " b, a ,b,, c " },
      });
      await ctx.post("doc attrs", "/api/attr/getBlockAttrs", { id: doc });
      await ctx.post("delete with null and empty", "/api/attr/setBlockAttrs", {
        id: para.id,
        attrs: { "custom-plain": null, "custom-spaced": "" },
      });
      await ctx.post("get after delete", "/api/attr/getBlockAttrs", { id: para.id });
      await ctx.post("get unknown", "/api/attr/getBlockAttrs", { id: UNKNOWN_ID });
      await ctx.post("get malformed", "/api/attr/getBlockAttrs", { id: "nope" });
    },
  ),
  probe(
    "attr.icon",
    "setBlockAttrs icon: an emoji stored as its hex code points (a joined sequence too), hex and " +
      'file names kept, a batch normalised the same, "" removes it',
    ["/api/attr/setBlockAttrs", "/api/attr/batchSetBlockAttrs"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Icons", "A paragraph");
      const icon = async (label: string, value: string) => {
        await ctx.post(`set ${label}`, "/api/attr/setBlockAttrs", {
          id: doc,
          attrs: { icon: value },
        });
        await ctx.post(`get after ${label}`, "/api/attr/getBlockAttrs", { id: doc });
      };
      await icon("an emoji", "📔");
      await icon("a joined emoji", "👨‍👩‍👧");
      await icon("hex", "1f600");
      await icon("a file name", "folder/my icon.png");
      await ctx.post("batch an emoji", "/api/attr/batchSetBlockAttrs", {
        blockAttrs: [{ id: doc, attrs: { icon: "❤️" } }],
      });
      await ctx.post("get after batch", "/api/attr/getBlockAttrs", { id: doc });
      await icon("empty", "");
    },
  ),
  probe(
    "attr.errors",
    "setBlockAttrs refusals: non-string value, bad names, data-task, unknown block",
    ["/api/attr/setBlockAttrs"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Attr errors", "A paragraph");
      const para = await childAt(ctx, doc, 0);
      await ctx.post("number value", "/api/attr/setBlockAttrs", {
        id: para.id,
        attrs: { "custom-n": 1 },
      });
      await ctx.post("bad name", "/api/attr/setBlockAttrs", {
        id: para.id,
        attrs: { "custom-1x": "v" },
      });
      await ctx.post("underscore name", "/api/attr/setBlockAttrs", {
        id: para.id,
        attrs: { custom_x: "v" },
      });
      await ctx.post("data-task", "/api/attr/setBlockAttrs", {
        id: para.id,
        attrs: { "data-task": "v" },
      });
      await ctx.post("unknown block", "/api/attr/setBlockAttrs", {
        id: UNKNOWN_ID,
        attrs: { "custom-x": "v" },
      });
      await ctx.post("attrs not an object", "/api/attr/setBlockAttrs", {
        id: para.id,
        attrs: "x",
      });
      await ctx.post("empty attrs", "/api/attr/setBlockAttrs", { id: para.id, attrs: {} });
      await ctx.post("attrs after", "/api/attr/getBlockAttrs", { id: para.id });
    },
  ),
  probe(
    "attr.batch",
    "batchSetBlockAttrs / batchGetBlockAttrs, with an unknown ID",
    ["/api/attr/batchSetBlockAttrs", "/api/attr/batchGetBlockAttrs"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Batch attrs", "One\n\nTwo");
      const a = await childAt(ctx, doc, 0);
      const b = await childAt(ctx, doc, 1);
      await ctx.post("batch set", "/api/attr/batchSetBlockAttrs", {
        blockAttrs: [
          { id: a.id, attrs: { "custom-a": "1" } },
          { id: b.id, attrs: { "custom-b": "2" } },
        ],
      });
      await ctx.post("batch get", "/api/attr/batchGetBlockAttrs", {
        ids: [a.id, b.id, UNKNOWN_ID],
      });
      await ctx.post("batch set with unknown", "/api/attr/batchSetBlockAttrs", {
        blockAttrs: [
          { id: a.id, attrs: { "custom-a": "changed" } },
          { id: UNKNOWN_ID, attrs: { "custom-x": "v" } },
        ],
      });
      await ctx.post("a after", "/api/attr/getBlockAttrs", { id: a.id });
    },
  ),
];

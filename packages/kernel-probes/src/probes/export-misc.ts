/** Export, notifications and sync (contract §4.9). */
import { data, probe, UNKNOWN_ID } from "./kit.js";

export const exportMiscProbes = [
  probe(
    "export.exportMdContent",
    "exportMdContent: hPath and Markdown without IALs (front matter by default); bad IDs",
    ["/api/export/exportMdContent"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const id = await ctx.doc(
        nb,
        "/Exported/Doc",
        "# Heading\n\nText with **bold**\n\n- a\n- b\n\n```\ncode\n```",
      );
      await ctx.quiet("/api/attr/setBlockAttrs", { id, attrs: { "custom-x": "y", tags: "t1" } });
      await ctx.flush();
      await ctx.post("export", "/api/export/exportMdContent", { id });
      await ctx.post("export without front matter", "/api/export/exportMdContent", {
        id,
        yfm: false,
      });
      await ctx.post("export unknown", "/api/export/exportMdContent", { id: UNKNOWN_ID });
      await ctx.post("export malformed", "/api/export/exportMdContent", { id: "nope" });
    },
  ),
  probe(
    "export.exportResources",
    "exportResources: the zip path, GET /export/… (whole and a range); missing paths",
    ["/api/export/exportResources", "GET /export/*"],
    async (ctx) => {
      const dir = `/data/storage/probe-${ctx.probeId}`;
      await ctx.quietRaw({
        path: "/api/file/putFile",
        form: [
          { name: "path", value: `${dir}/one.txt` },
          { name: "file", filename: "one.txt", bytes: new TextEncoder().encode("one") },
        ],
      });
      const a = await ctx.post("export", "/api/export/exportResources", {
        paths: [`data/storage/probe-${ctx.probeId}/one.txt`],
        name: "probe-export",
      });
      const zip = data<{ path: string }>(a).path;
      const url = `/export/${zip
        .replace(/^temp\/export\//, "")
        .split("/")
        .map(encodeURIComponent)
        .join("/")}`;
      await ctx.call(
        "GET the zip",
        { method: "GET", path: url },
        {
          headers: ["content-type", "accept-ranges"],
          keep: () => "zip",
        },
      );
      const whole = await ctx.quietRaw({ method: "GET", path: url });
      ctx.note("zip magic", Buffer.from(whole.bytes.slice(0, 2)).toString("latin1"));
      await ctx.call(
        "GET a range",
        { method: "GET", path: url, headers: { range: "bytes=0-1" } },
        {
          headers: ["content-range", "content-length"],
        },
      );
      await ctx.post("export without paths", "/api/export/exportResources", {});
      await ctx.post("export a missing path", "/api/export/exportResources", {
        paths: [`data/storage/probe-${ctx.probeId}/none.txt`],
      });
      await ctx.call("GET a missing zip", { method: "GET", path: "/export/none.zip" });
    },
  ),
  probe(
    "notification.push",
    "pushMsg / pushErrMsg: the reply (a random message ID); an empty message",
    ["/api/notification/pushMsg", "/api/notification/pushErrMsg"],
    async (ctx) => {
      const idShape = (j: unknown) => {
        const e = j as { code: number; msg: string; data: { id?: unknown } | null };
        return {
          ...e,
          data: e.data && {
            ...e.data,
            id: typeof e.data.id === "string" ? `<${e.data.id.length} chars>` : e.data.id,
          },
        };
      };
      await ctx.post(
        "push",
        "/api/notification/pushMsg",
        { msg: "kernel-probes", timeout: 1000 },
        {
          keep: idShape,
        },
      );
      await ctx.post(
        "push error",
        "/api/notification/pushErrMsg",
        { msg: "kernel-probes" },
        {
          keep: idShape,
        },
      );
      await ctx.post("push empty", "/api/notification/pushMsg", { msg: "" });
      await ctx.post("push without msg", "/api/notification/pushMsg", {});
    },
  ),
  probe(
    "sync.performSync",
    "performSync on a workspace without cloud sync",
    ["/api/sync/performSync"],
    async (ctx) => {
      await ctx.post("sync", "/api/sync/performSync", {});
    },
  ),
];

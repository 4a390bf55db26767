/**
 * Renaming an asset (`renameAsset`) and removing unused ones (`removeUnusedAsset`,
 * `removeUnusedAssets`). Last in the list: the bulk removal takes every unused asset of the
 * workspace, other probes' too.
 */
import { data, type Envelope, probe, utf8 } from "./kit.js";

export const assetProbes = [
  probe(
    "asset.renameAsset",
    "renameAsset: the new name (filtered, a new ID, the extension kept), links and text mentions rewritten in every document, a closed notebook's too; missing, unchanged, empty and absent names",
    ["/api/asset/renameAsset"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const closed = await ctx.notebook(" closed");
      const put = (path: string) =>
        ctx.quietRaw({
          path: "/api/file/putFile",
          form: [
            { name: "path", value: path },
            { name: "file", filename: path.split("/").pop() ?? path, bytes: utf8(path) },
          ],
        });
      const old = "zren-20240101120000-abcdefg.png";
      await put(`/data/assets/${old}`);
      const doc = await ctx.doc(nb, "/Links", `![c](assets/${old})\n\nmention ${old} in text`);
      const other = await ctx.doc(closed, "/Closed links", `![c](assets/${old})`);
      await ctx.quiet("/api/notebook/closeNotebook", { notebook: closed });
      const url = "/api/asset/renameAsset";
      const renamed = await ctx.post("rename", url, {
        oldPath: `assets/${old}`,
        newName: " zren a/b(c) ",
      });
      const newPath = (data<{ newPath: string }>(renamed).newPath ?? "") as string;
      await ctx.flush();
      await ctx.post("the document after", "/api/block/getBlockKramdown", { id: doc });
      await ctx.quiet("/api/notebook/openNotebook", { notebook: closed });
      // a reopened notebook's documents load a moment later
      await ctx.poll(
        async () => {
          await ctx.flush();
          return ctx.quiet<{ kramdown: string }>("/api/block/getBlockKramdown", { id: other });
        },
        (k) => k.kramdown !== "",
      );
      await ctx.post("the closed notebook's document after", "/api/block/getBlockKramdown", {
        id: other,
      });
      const file = (label: string, path: string) =>
        ctx.call(label, { path: "/api/file/getFile", json: { path: `/data/${path}` } });
      await file("the old file", `assets/${old}`);
      await file("the new file", newPath);
      await ctx.post("missing", url, { oldPath: "assets/zren-none.png", newName: "x" });
      await ctx.post("unchanged name", url, {
        oldPath: newPath,
        newName: newPath.split("/").pop() ?? "",
      });
      await ctx.post("empty name", url, { oldPath: newPath, newName: "  " });
      await ctx.post("no newName", url, { oldPath: newPath });
    },
  ),
  probe(
    "asset.removeUnused",
    "removeUnusedAsset: a file, a folder, a linked asset (removed too: no link check), a missing path, no path; removeUnusedAssets: every unused asset, absolute paths",
    ["/api/asset/removeUnusedAsset", "/api/asset/removeUnusedAssets"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const put = (path: string) =>
        ctx.quietRaw({
          path: "/api/file/putFile",
          form: [
            { name: "path", value: path },
            { name: "file", filename: path.split("/").pop() ?? path, bytes: utf8(path) },
          ],
        });
      for (const name of ["zrm-one.png", "zrm-used.png", "zrm-dir/inner.png", "zrm-bulk.png"]) {
        await put(`/data/assets/${name}`);
      }
      await put(`/data/${nb}/assets/zrm-nb.png`);
      await ctx.doc(nb, "/Links one", "![u](assets/zrm-used.png)");
      await ctx.flush();
      const one = "/api/asset/removeUnusedAsset";
      const gone = (label: string, path: string) =>
        ctx.call(label, { path: "/api/file/getFile", json: { path } });
      await ctx.post("one file", one, { path: "assets/zrm-one.png" });
      await gone("the file after", "/data/assets/zrm-one.png");
      await ctx.post("a linked file", one, { path: "assets/zrm-used.png" });
      await gone("the linked file after", "/data/assets/zrm-used.png");
      await ctx.post("a folder", one, { path: "assets/zrm-dir" });
      await ctx.call("the folder after", {
        path: "/api/file/readDir",
        json: { path: "/data/assets/zrm-dir" },
      });
      await ctx.post("missing", one, { path: "assets/zrm-none.png" });
      await ctx.post("no path", one, {});
      const mine = (j: unknown) => {
        const e = j as Envelope<{ paths: string[] | null } | null>;
        const paths = e.data?.paths;
        return {
          code: e.code,
          isArray: Array.isArray(paths),
          mine: (paths ?? []).filter((p) => p.includes("zrm")).sort(),
        };
      };
      await ctx.post("bulk", "/api/asset/removeUnusedAssets", {}, { keep: mine });
      await gone("a notebook's asset after", `/data/${nb}/assets/zrm-nb.png`);
      await ctx.post("bulk again", "/api/asset/removeUnusedAssets", {}, { keep: mine });
    },
  ),
];

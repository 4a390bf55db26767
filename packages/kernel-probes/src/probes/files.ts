/** Assets and workspace files (contract §4.8): upload naming, GET /assets, the file API. */
import type { ProbeAnswer } from "../http.js";
import { data, probe, UNKNOWN_ID, utf8 } from "./kit.js";

/** A 1×1 transparent PNG. */
const PNG = Uint8Array.from(
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "base64",
  ),
);

export const fileProbes = [
  probe(
    "asset.upload",
    "upload naming (case, spaces, duplicates, empty files), the reply, GET /assets/…",
    ["/api/asset/upload", "GET /assets/*"],
    async (ctx) => {
      const stamp = ctx.probeId.length; // fixed content: same bytes on every kernel
      const up = await ctx.call("upload", {
        path: "/api/asset/upload",
        form: [
          { name: "file[]", filename: "Probe Image.PNG", bytes: PNG },
          { name: "file[]", filename: "notes (draft)#1.txt", bytes: utf8(`probe notes ${stamp}`) },
        ],
      });
      const succ = data<{ succMap: Record<string, string> }>(up).succMap;
      const nameOf = (a: ProbeAnswer) =>
        data<{ succMap: Record<string, string> }>(a).succMap["Probe Image.PNG"];
      const same = await ctx.call("upload same bytes and name", {
        path: "/api/asset/upload",
        form: [{ name: "file[]", filename: "Probe Image.PNG", bytes: PNG }],
      });
      ctx.note(
        "same bytes and name: the first asset again",
        nameOf(same) === succ["Probe Image.PNG"],
      );
      const other = await ctx.call("upload same name other bytes", {
        path: "/api/asset/upload",
        form: [{ name: "file[]", filename: "Probe Image.PNG", bytes: utf8("not a png") }],
      });
      ctx.note(
        "same name, other bytes: the first asset again",
        nameOf(other) === succ["Probe Image.PNG"],
      );
      await ctx.call("upload empty file", {
        path: "/api/asset/upload",
        form: [{ name: "file[]", filename: "empty.txt", bytes: new Uint8Array(0) }],
      });
      await ctx.call("upload into a folder", {
        path: "/api/asset/upload",
        form: [
          { name: "assetsDirPath", value: "/assets/probe-folder/" },
          { name: "file[]", filename: "in-folder.txt", bytes: utf8("in folder") },
        ],
      });
      await ctx.call("upload name with node id", {
        path: "/api/asset/upload",
        form: [
          { name: "file[]", filename: "kept-20200101000000-abcdefg.txt", bytes: utf8("kept") },
        ],
      });
      await ctx.call("upload not multipart", { path: "/api/asset/upload", json: {} });
      const png = succ["Probe Image.PNG"];
      if (png) {
        await ctx.call(
          "GET the asset",
          { method: "GET", path: `/${png}` },
          {
            headers: ["content-type", "content-length"],
          },
        );
        await ctx.call(
          "GET the asset as a file",
          {
            path: "/api/file/getFile",
            json: { path: `/data/${png}` },
          },
          { headers: ["content-type"] },
        );
      }
      await ctx.call("GET a missing asset", { method: "GET", path: "/assets/no-such-file.png" });
      await ctx.call(
        "GET an asset without a token",
        {
          method: "GET",
          path: `/${png ?? "assets/x.png"}`,
          auth: false,
        },
        { keep: () => "answered" },
      );
    },
  ),
  probe(
    "file.getFile",
    "getFile: bytes and type on success; 202 with 404/409/403 codes on errors",
    ["/api/file/getFile"],
    async (ctx) => {
      const path = `/data/storage/probe-${ctx.probeId}/hello.json`;
      await ctx.quietRaw({
        path: "/api/file/putFile",
        form: [
          { name: "path", value: path },
          { name: "file", filename: "hello.json", bytes: utf8('{"hello":"world"}') },
        ],
      });
      await ctx.call(
        "file",
        { path: "/api/file/getFile", json: { path } },
        {
          headers: ["content-type"],
        },
      );
      await ctx.call(
        "missing",
        { path: "/api/file/getFile", json: { path: `${path}.missing` } },
        {
          headers: ["content-type"],
        },
      );
      await ctx.call("directory", {
        path: "/api/file/getFile",
        json: { path: `/data/storage/probe-${ctx.probeId}` },
      });
      await ctx.call("outside the workspace", {
        path: "/api/file/getFile",
        json: { path: "/../../etc/passwd" },
      });
      await ctx.call("no path", { path: "/api/file/getFile", json: {} });
      await ctx.call("not JSON", { path: "/api/file/getFile", raw: "x" });
    },
  ),
  probe(
    "file.putFile",
    "putFile: create, overwrite, directories, modTime, errors",
    ["/api/file/putFile"],
    async (ctx) => {
      const dir = `/data/storage/probe-${ctx.probeId}`;
      await ctx.call("put", {
        path: "/api/file/putFile",
        form: [
          { name: "path", value: `${dir}/a/b.txt` },
          { name: "modTime", value: "1700000000000" },
          { name: "file", filename: "b.txt", bytes: utf8("first") },
        ],
      });
      await ctx.call("overwrite", {
        path: "/api/file/putFile",
        form: [
          { name: "path", value: `${dir}/a/b.txt` },
          { name: "file", filename: "b.txt", bytes: utf8("second") },
        ],
      });
      await ctx.call("read back", { path: "/api/file/getFile", json: { path: `${dir}/a/b.txt` } });
      await ctx.call(
        "read dir for mtime",
        { path: "/api/file/readDir", json: { path: `${dir}/a` } },
        {
          mask: ["data.*.updated"],
        },
      );
      await ctx.call("make dir", {
        path: "/api/file/putFile",
        form: [
          { name: "path", value: `${dir}/made` },
          { name: "isDir", value: "true" },
        ],
      });
      await ctx.call("file over a dir", {
        path: "/api/file/putFile",
        form: [
          { name: "path", value: `${dir}/made` },
          { name: "file", filename: "made", bytes: utf8("x") },
        ],
      });
      await ctx.call("no file", {
        path: "/api/file/putFile",
        form: [{ name: "path", value: `${dir}/nofile.txt` }],
      });
      await ctx.call("empty path", {
        path: "/api/file/putFile",
        form: [
          { name: "path", value: "" },
          { name: "file", filename: "x", bytes: utf8("x") },
        ],
      });
      await ctx.call("outside the workspace", {
        path: "/api/file/putFile",
        form: [
          { name: "path", value: "/../outside.txt" },
          { name: "file", filename: "x", bytes: utf8("x") },
        ],
      });
    },
  ),
  probe(
    "file.readDir-remove-rename",
    "readDir entries, removeFile, renameFile, and their errors",
    ["/api/file/readDir", "/api/file/removeFile", "/api/file/renameFile"],
    async (ctx) => {
      const dir = `/data/storage/probe-${ctx.probeId}`;
      for (const name of ["b.txt", "a.txt", "sub/c.txt"]) {
        await ctx.quietRaw({
          path: "/api/file/putFile",
          form: [
            { name: "path", value: `${dir}/${name}` },
            { name: "file", filename: name, bytes: utf8(name) },
          ],
        });
      }
      const sorted = (j: unknown) => {
        const e = j as { code: number; msg: string; data: Array<{ name: string }> | null };
        return Array.isArray(e.data)
          ? { ...e, data: [...e.data].sort((x, y) => x.name.localeCompare(y.name)) }
          : e;
      };
      await ctx.call(
        "readDir",
        { path: "/api/file/readDir", json: { path: dir } },
        {
          keep: sorted,
          mask: ["data.*.updated"],
        },
      );
      await ctx.call("readDir missing", {
        path: "/api/file/readDir",
        json: { path: `${dir}/none` },
      });
      await ctx.call("readDir a file", {
        path: "/api/file/readDir",
        json: { path: `${dir}/a.txt` },
      });
      await ctx.call("rename", {
        path: "/api/file/renameFile",
        json: { path: `${dir}/a.txt`, newPath: `${dir}/moved/a2.txt` },
      });
      await ctx.call("rename onto existing", {
        path: "/api/file/renameFile",
        json: { path: `${dir}/b.txt`, newPath: `${dir}/moved/a2.txt` },
      });
      await ctx.call("rename missing", {
        path: "/api/file/renameFile",
        json: { path: `${dir}/none.txt`, newPath: `${dir}/x.txt` },
      });
      await ctx.call("rename dir into itself", {
        path: "/api/file/renameFile",
        json: { path: `${dir}/sub`, newPath: `${dir}/sub/inner` },
      });
      await ctx.call("remove file", {
        path: "/api/file/removeFile",
        json: { path: `${dir}/b.txt` },
      });
      await ctx.call("remove dir", { path: "/api/file/removeFile", json: { path: `${dir}/sub` } });
      await ctx.call("remove missing", {
        path: "/api/file/removeFile",
        json: { path: `${dir}/none.txt` },
      });
      await ctx.call(
        "readDir after",
        { path: "/api/file/readDir", json: { path: dir } },
        {
          keep: sorted,
          mask: ["data.*.updated"],
        },
      );
    },
  ),
  probe(
    "template.docSaveAsTemplate",
    "docSaveAsTemplate: the file it writes (IALs less updated, spans, template code as text, the document's IAL last), an existing name, overwrite, a heading's ID, a name filtered, an unknown ID, no overwrite field",
    ["/api/template/docSaveAsTemplate"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(
        nb,
        "/Tpl doc",
        "# Head\n\npara **b** `code` and *i*\n\n- item\n\n```template\n.action{now}\n```\n\n## Sub\n\nunder sub",
      );
      const url = "/api/template/docSaveAsTemplate";
      const file = (label: string, name: string) =>
        ctx.call(label, { path: "/api/file/getFile", json: { path: `/data/templates/${name}` } });
      await ctx.post("save", url, { id: doc, name: "zprobe-tpl", overwrite: false });
      await file("the file", "zprobe-tpl.md");
      await ctx.post("existing", url, { id: doc, name: "zprobe-tpl", overwrite: false });
      await ctx.post("overwrite", url, { id: doc, name: "zprobe-tpl", overwrite: true });
      const rows = await ctx.quiet<Array<{ id: string }>>("/api/query/sql", {
        stmt: `SELECT id FROM blocks WHERE root_id = '${doc}' AND type = 'h' AND content = 'Sub'`,
      });
      await ctx.post("a heading", url, { id: rows[0]?.id, name: "zprobe-head", overwrite: false });
      await file("the heading's file", "zprobe-head.md");
      await ctx.post("name filtered", url, { id: doc, name: " zprobe a'b/c. ", overwrite: false });
      await file("the filtered file", "zprobe a_b_c.md");
      await ctx.post("unknown", url, { id: UNKNOWN_ID, name: "zprobe-unknown", overwrite: false });
      await file("no file for the unknown", "zprobe-unknown.md");
      await ctx.post("no overwrite field", url, { id: doc, name: "zprobe-nofield" });
      await file("no file without the field", "zprobe-nofield.md");
      // the template search's probe, later, lists every template: leave none behind
      for (const name of ["zprobe-tpl.md", "zprobe-head.md", "zprobe a_b_c.md"]) {
        await ctx.quiet("/api/file/removeFile", { path: `/data/templates/${name}` });
      }
    },
  ),
];

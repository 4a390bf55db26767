/**
 * Reads of issue 34: word counts (`getBlocksWordCount`), the paragraphs updated last
 * (`getRecentUpdatedBlocks`), a document's asset links (`getDocAssets`), the template search
 * (`searchTemplate`).
 */
import { children, type Envelope, probe, UNKNOWN_ID, utf8 } from "./kit.js";

/** Paragraphs whose counts show Lute's rules (zero-width spaces around code, tags, keys, images). */
const COUNTED = [
  "Hello world 你好 [link](https://x.y)",
  "![img](assets/a.png)",
  "![i](assets/x.png)![j](assets/y.png)",
  "a ![i](assets/x.png) b",
  "a `code` b",
  "`code` b",
  "#t# b",
  "a #t#",
  "**b** *i* ~~s~~ ==m== <kbd>k</kbd> <u>u</u>",
  "a-b c_d 1.5 你好world",
  "$x^2$ and **多字节** text",
];

export const readProbes = [
  probe(
    "reads.getBlocksWordCount",
    "getBlocksWordCount: runes, words, links, images, refs per block and summed; repeats and unknown IDs; bad ids",
    ["/api/block/getBlocksWordCount"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const target = await ctx.doc(nb, "/Count target", "target");
      const doc = await ctx.doc(
        nb,
        "/Counted",
        [
          ...COUNTED,
          `see ((${target} "anchor")) and ((${target} 'static'))`,
          "# Head **one**",
          "- one\n- two\n  - nested",
          "> quote",
          "```\nc d\n```",
        ].join("\n\n"),
      );
      const kids = await children(ctx, doc);
      const url = "/api/block/getBlocksWordCount";
      await ctx.post("document", url, { ids: [doc] });
      for (const [i, kid] of kids.entries()) {
        await ctx.post(`child ${i} (${kid.type})`, url, { ids: [kid.id] });
      }
      await ctx.post("two blocks", url, { ids: [kids[0]?.id, kids[1]?.id] });
      await ctx.post("repeated and unknown", url, { ids: [doc, doc, UNKNOWN_ID, "nope"] });
      await ctx.post("reqId echoed", url, { ids: [kids[0]?.id], reqId: 7 });
      await ctx.post("empty ids", url, { ids: [] });
      await ctx.post("no ids", url, {});
      await ctx.post("ids not an array", url, { ids: "x" });
      await ctx.post("ids not strings", url, { ids: [1] });
    },
  ),
  probe(
    "reads.getRecentUpdatedBlocks",
    "getRecentUpdatedBlocks: paragraphs longer than one character, latest update first (this probe's)",
    ["/api/block/getRecentUpdatedBlocks"],
    async (ctx) => {
      const nb = await ctx.notebook();
      // `updated` has one-second steps and the list stops at 16: the blocks of an earlier probe
      // written in the same second could hide these
      await ctx.sleep(1100);
      const doc = await ctx.doc(
        nb,
        "/Recent blocks",
        "x\n\nRecent **one** a < b & c \"q\" 's'\n\n# Not a paragraph\n\n- listed item\n\nRecent two {{{",
      );
      await ctx.flush();
      await ctx.post(
        "recent",
        "/api/block/getRecentUpdatedBlocks",
        {},
        {
          keep: (j) => {
            const e = j as Envelope<Array<{
              id: string;
              rootID: string;
              content: string;
            }> | null>;
            // one entry per block (SiYuan's index may hold a row twice), by content: blocks
            // written in one second have no order of their own
            const mine = new Map<string, { content: string }>();
            for (const b of e.data ?? []) if (b.rootID === doc) mine.set(b.id, b);
            return {
              code: e.code,
              isArray: Array.isArray(e.data),
              atMost16: (e.data ?? []).length <= 16,
              mine: [...mine.values()].sort((a, b) => a.content.localeCompare(b.content)),
            };
          },
        },
      );
    },
  ),
  probe(
    "reads.getDocAssets",
    "getDocAssets: asset links in order, once each, query kept or cut; attributes; a child's ID; unknown and missing IDs",
    ["/api/asset/getDocAssets"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(
        nb,
        "/With assets",
        "![i](assets/x.png) and [f](assets/doc.pdf?p=1) and [web](https://x.y/a.png)\n\n" +
          "[again](assets/x.png) [rtf](assets/note.rtfd) [up](../assets/no.png)\n\nplain",
      );
      const kids = await children(ctx, doc);
      const last = kids[kids.length - 1];
      await ctx.quiet("/api/attr/setBlockAttrs", {
        id: last?.id,
        attrs: { "custom-data-assets": "assets/attr.png", "custom-data-assets-2": "https://x.y" },
      });
      await ctx.flush();
      const url = "/api/asset/getDocAssets";
      await ctx.post("document", url, { id: doc });
      await ctx.post("query cut", url, { id: doc, retainQueryStr: false });
      await ctx.post("a child's ID", url, { id: kids[0]?.id });
      const bare = await ctx.doc(nb, "/No assets", "nothing here");
      await ctx.post("none", url, { id: bare });
      await ctx.post("unknown", url, { id: UNKNOWN_ID });
      await ctx.post("no id", url, {});
    },
  ),
  probe(
    "reads.getUnusedAssets",
    "getUnusedAssets: files and folders of data/assets and a notebook's assets no document links; prefixes, .sya, OCR texts, hidden files",
    ["/api/asset/getUnusedAssets"],
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
      for (const name of [
        "zunused-a.png",
        "zunused-b.png",
        "zunused-a.p",
        "zunused-c.pdf",
        "zunused-c.pdf.sya",
        "zunused-d.pdf.sya",
        "zunused-dir/inner.png",
        "zunused-other/inner.png",
        "zunused-ocr-texts.json",
        ".zunused-hidden.png",
      ]) {
        await put(`/data/assets/${name}`);
      }
      await put(`/data/${nb}/assets/zunused-nb.png`);
      await ctx.doc(
        nb,
        "/Links assets",
        "![a](assets/zunused-a.png) [c](assets/zunused-c.pdf?p=2) [d](assets/zunused-dir/inner.png)",
      );
      await ctx.flush();
      await ctx.post(
        "unused",
        "/api/asset/getUnusedAssets",
        {},
        {
          keep: (j) => {
            const e = j as Envelope<Array<{ item: string; name: string }> | null>;
            return {
              code: e.code,
              isArray: Array.isArray(e.data),
              // this probe's, by path: files written in one second have no order of their own
              mine: (e.data ?? [])
                .filter((a) => a.item.includes("zunused"))
                .sort((a, b) => a.item.localeCompare(b.item)),
            };
          },
        },
      );
    },
  ),
  probe(
    "reads.listInvalidBlockRefs",
    "listInvalidBlockRefs: blocks with a ((ref)) or siyuan://blocks/ link to a missing ID, sorted by ID, paged; counts; bad page",
    ["/api/search/listInvalidBlockRefs"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const live = await ctx.doc(nb, "/Live target", "alive");
      await ctx.doc(
        nb,
        "/Dead refs",
        [
          `dead ((${UNKNOWN_ID} "gone")) here`,
          "link [x](siyuan://blocks/20200101000000-yyyyyyy?focus=1)",
          `live ((${live} "ok")) only`,
          `mixed ((${live} "ok")) and ((20200101000000-xxxxxxx 'static'))`,
          "- item ((20200101000000-wwwwwww))",
          "# Head ((20200101000000-vvvvvvv))",
          "plain",
        ].join("\n\n"),
      );
      await ctx.flush();
      type Page = {
        blocks: Array<Record<string, unknown>> | null;
        matchedBlockCount: number;
        matchedRootCount: number;
        pageCount: number;
      };
      const url = "/api/search/listInvalidBlockRefs";
      // other probes' notebooks may hold dead references too: this notebook's blocks, and facts
      const keep =
        (pageSize: number, withMine = true) =>
        (j: unknown) => {
          const e = j as Envelope<Page | null>;
          if (e.code !== 0 || !e.data) return e;
          const d = e.data;
          const ids = (d.blocks ?? []).map((b) => String(b["id"]));
          return {
            code: e.code,
            isArray: Array.isArray(d.blocks),
            sortedByID: ids.every((id, i) => i === 0 || (ids[i - 1] as string) < id),
            pageCountIsCeil: d.pageCount === Math.ceil(d.matchedBlockCount / pageSize),
            atMostPageSize: ids.length <= pageSize,
            mine: (withMine ? (d.blocks ?? []) : [])
              .filter((b) => b["box"] === nb)
              .map((b) => ({
                id: b["id"],
                rootID: b["rootID"],
                hPath: b["hPath"],
                type: b["type"],
                content: b["content"],
              }))
              .sort((a, b) => String(a.content).localeCompare(String(b.content))),
          };
        };
      await ctx.post("all", url, { page: 1, pageSize: 1000 }, { keep: keep(1000) });
      await ctx.post("defaults", url, {}, { keep: keep(32) });
      await ctx.post("page size 1", url, { page: 2, pageSize: 1 }, { keep: keep(1, false) });
      await ctx.post("zero and negative", url, { page: 0, pageSize: -3 }, { keep: keep(32) });
      await ctx.post("past the end", url, { page: 1000000, pageSize: 1000 });
      await ctx.post("page not a number", url, { page: "2" });
    },
  ),
  probe(
    "reads.searchAsset",
    "searchAsset: data/assets files by k (whole and words) in name or path, exts with their dot, IDs cut from names, .sya and hidden left out",
    ["/api/search/searchAsset"],
    async (ctx) => {
      const put = (path: string) =>
        ctx.quietRaw({
          path: "/api/file/putFile",
          form: [
            { name: "path", value: `/data/assets/${path}` },
            { name: "file", filename: path.split("/").pop() ?? path, bytes: utf8(path) },
          ],
        });
      for (const name of [
        "zasset Cat-20240101120000-abcdefg.png",
        "zasset-cat-notes.pdf",
        "zassetdir/zasset-inner.PNG",
        "zasset-dog.png",
        "zasset-cat.png.sya",
        ".zasset-hidden.png",
        ".zassethidden/zasset-x.png",
      ]) {
        await put(name);
      }
      const url = "/api/search/searchAsset";
      type Hit = { hName: string; path: string; updated: number };
      // the kernel's asset cache follows data/assets a moment later
      await ctx.poll(
        () => ctx.quietRaw({ path: url, json: { k: "zasset" } }),
        (a) => a.text.includes("zasset-dog"),
      );
      // this probe's assets only, by path: equal scores have no order of their own
      const mine = (j: unknown) => {
        const e = j as Envelope<Hit[] | null>;
        if (e.code !== 0 || !e.data) return e;
        return {
          code: e.code,
          mine: e.data
            .filter((h) => h.path.includes("zasset"))
            .map((h) => ({
              hName: h.hName,
              path: h.path,
              updatedIsNumber: typeof h.updated === "number",
            }))
            .sort((a, b) => a.path.localeCompare(b.path)),
        };
      };
      await ctx.post("one word", url, { k: "zasset" }, { keep: mine });
      await ctx.post("case", url, { k: "CAT" }, { keep: mine });
      await ctx.post("two words", url, { k: "zasset-cat dog" }, { keep: mine });
      await ctx.post("in the path only", url, { k: "zassetdir" }, { keep: mine });
      await ctx.post("exts with a dot", url, { k: "zasset", exts: [".png"] }, { keep: mine });
      await ctx.post("exts without a dot", url, { k: "zasset", exts: ["png"] }, { keep: mine });
      await ctx.post("no match", url, { k: "zasset-nothing" }, { keep: mine });
      await ctx.post(
        "ranked",
        url,
        { k: "zasset cat" },
        {
          keep: (j) => {
            const e = j as Envelope<Hit[] | null>;
            return (e.data ?? []).filter((h) => h.path.includes("zasset")).map((h) => h.path);
          },
        },
      );
      await ctx.post("no k", url, {});
      await ctx.post("exts not an array", url, { k: "zasset", exts: "png" });
    },
  ),
  probe(
    "reads.getConf",
    "getConf: the settings system.conf answers on a fresh workspace, and the secrets it must not (token, cookieKey, host paths)",
    ["/api/system/getConf"],
    async (ctx) => {
      await ctx.post(
        "conf",
        "/api/system/getConf",
        {},
        {
          keep: (j) => {
            const e = j as Envelope<{
              conf: Record<string, unknown>;
              start: boolean;
              isPublish: boolean;
            }>;
            const c = e.data.conf;
            const at = (o: unknown, path: string): unknown =>
              path
                .split(".")
                .reduce<unknown>(
                  (v, k) =>
                    v !== null && typeof v === "object"
                      ? (v as Record<string, unknown>)[k]
                      : undefined,
                  o,
                );
            const cookieKey = at(c, "cookieKey");
            return {
              code: e.code,
              start: e.data.start,
              isPublish: e.data.isPublish,
              summary: {
                system: {
                  kernelVersion: at(c, "system.kernelVersion"),
                  os: at(c, "system.os"),
                  container: at(c, "system.container"),
                },
                lang: at(c, "lang"),
                readonly: at(c, "readonly"),
                appearance: { mode: at(c, "appearance.mode") },
                fileTree: {
                  sort: at(c, "fileTree.sort"),
                  maxListCount: at(c, "fileTree.maxListCount"),
                  createDocAtTop: at(c, "fileTree.createDocAtTop"),
                },
                search: {
                  limit: at(c, "search.limit"),
                  caseSensitive: at(c, "search.caseSensitive"),
                },
                editor: {
                  readOnly: at(c, "editor.readOnly"),
                  historyRetentionDays: at(c, "editor.historyRetentionDays"),
                  generateHistoryInterval: at(c, "editor.generateHistoryInterval"),
                  blockRefDynamicAnchorTextMaxLen: at(c, "editor.blockRefDynamicAnchorTextMaxLen"),
                },
                sync: { enabled: at(c, "sync.enabled") },
              },
              secrets: {
                apiTokenIsTheToken: at(c, "api.token") === ctx.token,
                cookieKeyIsSet: typeof cookieKey === "string" && cookieKey !== "",
                accessAuthCode: at(c, "accessAuthCode"),
                s3SecretKey: at(c, "sync.s3.secretKey"),
                webdavPassword: at(c, "sync.webdav.password"),
                repoKey: at(c, "repo.key"),
                serverAddrsIsArray: Array.isArray(at(c, "serverAddrs")),
                workspaceDir: at(c, "system.workspaceDir"),
              },
            };
          },
        },
      );
    },
  ),
  probe(
    "reads.searchTemplate",
    "searchTemplate: .md files of data/templates by words of k; README.md, hidden files and other extensions left out",
    ["/api/search/searchTemplate"],
    async (ctx) => {
      const put = (name: string, text: string) =>
        ctx.quietRaw({
          path: "/api/file/putFile",
          form: [
            { name: "path", value: `/data/templates/${name}` },
            { name: "file", filename: name.split("/").pop() ?? name, bytes: utf8(text) },
          ],
        });
      await put("zprobe weekly.md", "# Week {{.title}}");
      await put("zprobe Daily note.md", "# Day");
      await put("zprobe notes.txt", "not a template");
      await put(".zprobe hidden.md", "hidden");
      await put("zprobe group/inner.md", "inner");
      await put("README.md", "read me");
      const mine = (j: unknown) => {
        const e = j as Envelope<{
          k: string;
          templates: Array<{ relativePath: string }> | null;
        } | null>;
        if (e.code !== 0 || !e.data) return e;
        const templates = e.data.templates ?? [];
        return {
          ...e,
          data: {
            k: e.data.k,
            readme: templates.some((t) => t.relativePath === "README.md"),
            templates: templates
              .filter((t) => /zprobe/.test(t.relativePath))
              .sort((a, b) => a.relativePath.localeCompare(b.relativePath)),
          },
        };
      };
      const url = "/api/search/searchTemplate";
      await ctx.post("all", url, { k: "" }, { keep: mine });
      await ctx.post("one word", url, { k: "weekly" }, { keep: mine });
      await ctx.post("case and two words", url, { k: "DAILY zprobe" }, { keep: mine });
      await ctx.post("in a folder", url, { k: "inner" }, { keep: mine });
      await ctx.post("the folder's name", url, { k: "group" }, { keep: mine });
      await ctx.post("no match", url, { k: "zprobe nothing" }, { keep: mine });
      await ctx.post(
        "ranked",
        url,
        { k: "zprobe" },
        {
          keep: (j) => {
            const e = j as Envelope<{ templates: Array<{ relativePath: string }> | null } | null>;
            return (e.data?.templates ?? [])
              .map((t) => t.relativePath)
              .filter((p) => /zprobe/.test(p));
          },
        },
      );
      await ctx.post("no k", url, {});
      await ctx.post("k not a string", url, { k: 1 });
    },
  ),
];

/** SQL and search (contract §2.4, §4.6): doc rows, columns, the default limit, errors, search. */
import { probe } from "./kit.js";

const COLUMNS =
  "id, parent_id, root_id, box, path, hpath, name, alias, memo, tag, content, fcontent, markdown, length, type, subtype, ial, sort";

export const sqlProbes = [
  probe(
    "sql.notebook-index",
    "rows of a new notebook's own document and of a document created right after the notebook",
    ["/api/notebook/createNotebook", "/api/query/sql"],
    async (ctx) => {
      // no settling here: this probe records what a client that does not wait sees
      const created = await ctx.quiet<{ notebook: { id: string } }>(
        "/api/notebook/createNotebook",
        { name: `probe ${ctx.probeId}` },
      );
      const nb = created.notebook.id;
      const doc = await ctx.quiet<string>("/api/filetree/createDocWithMd", {
        notebook: nb,
        path: "/Early doc",
        markdown: "Early text",
      });
      await ctx.flush();
      const count = (root: string) => ({
        stmt: `SELECT COUNT(*) AS n, COUNT(DISTINCT id) AS d FROM blocks WHERE root_id = '${root}'`,
      });
      await ctx.post("early doc rows at once", "/api/query/sql", count(doc));
      await ctx.sleep(4000); // SiYuan indexes a new notebook again after ~2.5 s
      await ctx.flush();
      await ctx.post("early doc rows later", "/api/query/sql", count(doc));
      await ctx.post("notebook doc rows later", "/api/query/sql", count(nb));
      await ctx.post("notebook doc row", "/api/query/sql", {
        stmt: `SELECT DISTINCT id, box, path, hpath, content, type, ial FROM blocks WHERE id = '${nb}'`,
      });
    },
  ),
  probe(
    "sql.doc-row",
    "the blocks table: a document's own row (markdown/content) and its blocks' rows",
    ["/api/query/sql", "/api/sqlite/flushTransaction"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const id = await ctx.quiet<string>("/api/filetree/createDocWithMd", {
        notebook: nb,
        path: "/Row doc",
        markdown: "# Row heading\n\nRow paragraph with **bold** and #tag#\n\n- row item",
      });
      await ctx.post("flush", "/api/sqlite/flushTransaction", {});
      await ctx.post("doc row", "/api/query/sql", {
        stmt: `SELECT ${COLUMNS} FROM blocks WHERE id = '${id}'`,
      });
      await ctx.post("block rows", "/api/query/sql", {
        stmt: `SELECT ${COLUMNS} FROM blocks WHERE root_id = '${id}' AND id != '${id}' ORDER BY sort, type, content`,
      });
      await ctx.post("find doc by body text", "/api/query/sql", {
        stmt: `SELECT id, type FROM blocks WHERE root_id = '${id}' AND markdown LIKE '%Row paragraph%' ORDER BY type`,
      });
      await ctx.post("find doc by title", "/api/query/sql", {
        stmt: `SELECT id, type FROM blocks WHERE box = '${nb}' AND content = 'Row doc' ORDER BY type`,
      });
      await ctx.post("count duplicates", "/api/query/sql", {
        stmt: `SELECT COUNT(*) AS n, COUNT(DISTINCT id) AS d FROM blocks WHERE root_id = '${id}'`,
      });
    },
  ),
  probe(
    "sql.index-after-write",
    "the index after updateBlock and setBlockAttrs, once flushed",
    ["/api/query/sql"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Index doc", "Before text");
      const [p] = await ctx.quiet<Array<{ id: string }>>("/api/block/getChildBlocks", { id: doc });
      await ctx.quiet("/api/block/updateBlock", {
        id: p?.id,
        dataType: "markdown",
        data: "After text",
      });
      await ctx.quiet("/api/attr/setBlockAttrs", { id: p?.id, attrs: { "custom-k": "v" } });
      await ctx.flush();
      await ctx.post(
        "row after",
        "/api/query/sql",
        {
          stmt: `SELECT content, markdown, ial FROM blocks WHERE id = '${p?.id}'`,
        },
        { mask: [] },
      );
      await ctx.post("attributes table", "/api/query/sql", {
        stmt: `SELECT name, value, type, block_id, root_id, box, path FROM attributes WHERE block_id = '${p?.id}' ORDER BY name`,
      });
      await ctx.post("doc row after", "/api/query/sql", {
        stmt: `SELECT content, markdown FROM blocks WHERE id = '${doc}'`,
      });
    },
  ),
  probe(
    "sql.like-escape",
    "LIKE … ESCAPE answers no rows (SiYuan's rewriter panics on it); instr() finds the same text",
    ["/api/query/sql"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const id = await ctx.doc(nb, "/Escape doc", "to_do 50% done");
      await ctx.post("like escape", "/api/query/sql", {
        stmt: `SELECT id FROM blocks WHERE root_id = '${id}' AND content LIKE '%to!_do%' ESCAPE '!'`,
      });
      await ctx.post("instr", "/api/query/sql", {
        stmt: `SELECT type FROM blocks WHERE root_id = '${id}' AND instr(content, 'to_do') > 0 ORDER BY type`,
      });
      await ctx.post("escape inside a string", "/api/query/sql", {
        stmt: `SELECT type FROM blocks WHERE root_id = '${id}' AND content != 'an ESCAPE ''x'' inside' ORDER BY type`,
      });
    },
  ),
  probe("sql.refs", "the refs table for a block reference", ["/api/query/sql"], async (ctx) => {
    const nb = await ctx.notebook();
    const target = await ctx.doc(nb, "/Ref target", "Target text");
    const src = await ctx.doc(nb, "/Ref source", `See ((${target} "the target")) here`);
    await ctx.post("refs", "/api/query/sql", {
      stmt: `SELECT def_block_id, def_block_root_id, block_id, root_id, box, content, markdown, type FROM refs WHERE root_id = '${src}'`,
    });
  }),
  probe(
    "sql.limits-and-errors",
    "the default LIMIT 64, an explicit limit, SQL errors, modes, write statements",
    ["/api/query/sql"],
    async (ctx) => {
      const series =
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100) SELECT x FROM c";
      const count = (j: unknown) => {
        const e = j as { code: number; msg: string; data: unknown[] | null };
        return { code: e.code, msg: e.msg, rows: Array.isArray(e.data) ? e.data.length : e.data };
      };
      await ctx.post("no limit", "/api/query/sql", { stmt: series }, { keep: count });
      await ctx.post(
        "explicit limit",
        "/api/query/sql",
        { stmt: `${series} LIMIT 80` },
        {
          keep: count,
        },
      );
      await ctx.post(
        "lower-case limit",
        "/api/query/sql",
        { stmt: `${series} limit 70` },
        {
          keep: count,
        },
      );
      await ctx.post("syntax error", "/api/query/sql", { stmt: "SELEC nothing" });
      await ctx.post("unknown table", "/api/query/sql", { stmt: "SELECT * FROM no_such_table" });
      await ctx.post("empty stmt", "/api/query/sql", { stmt: "" });
      await ctx.post("no stmt", "/api/query/sql", {});
      await ctx.post("readonly mode write", "/api/query/sql", {
        stmt: "DELETE FROM blocks WHERE id = 'x'",
        mode: "readonly",
      });
      await ctx.post("readonly mode select", "/api/query/sql", {
        stmt: "SELECT 1 AS one",
        mode: "readonly",
      });
      await ctx.post("two statements", "/api/query/sql", { stmt: "SELECT 1; SELECT 2" });
      await ctx.post("unknown mode", "/api/query/sql", { stmt: "SELECT 1", mode: "x" });
      await ctx.post("empty result", "/api/query/sql", {
        stmt: "SELECT id FROM blocks WHERE id = 'none'",
      });
      await ctx.post("value types", "/api/query/sql", {
        stmt: "SELECT 1 AS i, 1.5 AS f, 'x' AS s, NULL AS n",
      });
    },
  ),
  probe(
    "search.fullTextSearchBlock",
    "fullTextSearchBlock: the reply shape, hits marked, paging",
    ["/api/search/fullTextSearchBlock"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const word = "zebraquokka";
      await ctx.doc(
        nb,
        "/Search doc",
        `First ${word} paragraph\n\n# Heading ${word}\n\nNothing here`,
      );
      const keep = (j: unknown) => {
        const e = j as {
          code: number;
          msg: string;
          data: {
            blocks: Array<Record<string, unknown>> | null;
            matchedBlockCount: number;
            matchedRootCount: number;
            pageCount: number;
          };
        };
        if (e.code !== 0) return e;
        const blocks = (e.data.blocks ?? [])
          .map((b) => ({
            id: b["id"],
            rootID: b["rootID"],
            box: b["box"],
            type: b["type"],
            subType: b["subType"],
            content: b["content"],
            hPath: b["hPath"],
          }))
          .sort((x, y) => String(x.type).localeCompare(String(y.type)));
        return {
          code: e.code,
          blocks,
          keys: Object.keys(e.data).sort(),
          blockKeys: Object.keys(e.data.blocks?.[0] ?? {}).sort(),
          matchedBlockCount: e.data.matchedBlockCount,
          matchedRootCount: e.data.matchedRootCount,
          pageCount: e.data.pageCount,
        };
      };
      await ctx.post("search", "/api/search/fullTextSearchBlock", { query: word }, { keep });
      await ctx.post(
        "page size 1",
        "/api/search/fullTextSearchBlock",
        { query: word, page: 1, pageSize: 1 },
        { keep },
      );
      await ctx.post(
        "no hit",
        "/api/search/fullTextSearchBlock",
        { query: "nothingmatchesthisword" },
        { keep },
      );
    },
  ),
];

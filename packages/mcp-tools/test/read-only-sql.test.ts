/**
 * search.sql is read-only: a table of hostile and benign statements through the runtime (hostile
 * ones never reach the kernel), the pure check on the same table, and the issue's
 * `WITH … DELETE` against the sandbox's real SQLite index (the row survives).
 */
import { describe, expect, it } from "vitest";
import { checkReadOnlySql } from "../src/tools/read-only-sql.js";
import { errorCode, useHarness } from "./harness.js";

const h = useHarness();

const HOSTILE: readonly string[] = [
  "WITH x AS (SELECT 1) DELETE FROM blocks WHERE id = 'a'",
  "with x as (select 1) delete from blocks",
  "WITH x AS (SELECT 1) INSERT INTO blocks (id) VALUES ('x')",
  "WITH x AS (SELECT 1) UPDATE blocks SET content = 'x'",
  "WITH x AS (SELECT 1) REPLACE INTO blocks (id) VALUES ('x')",
  "WITH RECURSIVE r(n) AS (SELECT 1) DELETE FROM blocks",
  "WITH x AS (SELECT 1)/**/DELETE/**/FROM blocks",
  "WITH x AS (SELECT 1)\nDELETE\tFROM blocks",
  "WITH x AS (SELECT ')') DELETE FROM blocks",
  'WITH "x" AS (SELECT 1) DELETE FROM blocks',
  "WITH x AS (SELECT 1) -- comment\nDELETE FROM blocks",
  "DELETE FROM blocks",
  "INSERT INTO blocks (id) VALUES ('x')",
  "UPDATE blocks SET content = ''",
  "REPLACE INTO blocks (id) VALUES ('x')",
  "DROP TABLE blocks",
  "ALTER TABLE blocks ADD COLUMN x",
  "CREATE TABLE t (a)",
  "ATTACH DATABASE '/tmp/x.db' AS x",
  "DETACH DATABASE x",
  "PRAGMA writable_schema = 1",
  "VACUUM",
  "REINDEX blocks",
  "EXPLAIN SELECT 1",
  "VALUES (1)",
  "(SELECT 1)",
  "SELECT 1; DELETE FROM blocks",
  "SELECT 1;SELECT 2",
  "SELECT 1; -- fine\nSELECT 2",
  "SELECT 1;;",
  "SELECT 1 /* open comment",
  "SELECT 'open literal",
  'SELECT "open name',
  "SELECT [open name",
  "SELECT '' DELETE",
  "SELECT 'it''s' || 'x' FROM blocks WHERE 1 = 1 UPDATE",
  "SELECT * FROM blocks WHERE id IN (SELECT id FROM blocks) UNION SELECT 1 upsert",
  "select * from pragma_table_info('blocks') where 1 --\n;pragma x",
  "-- leading comment\nDELETE FROM blocks",
  "/* SELECT */ DELETE FROM blocks",
  "",
  "   ",
  "-- only a comment",
];

/**
 * Statements the guard lets through. `kernel` marks the ones the sandbox, like the kernel, then
 * refuses itself (its `readonly` mode wants SELECT/WITH as the very first characters, and its
 * statement counter takes a comment after `;` for a second statement): they still reach it once.
 */
const BENIGN: ReadonlyArray<readonly [string, "rows" | "kernel"]> = [
  ["SELECT * FROM blocks WHERE content LIKE '%delete%'", "rows"],
  ["SELECT * FROM blocks WHERE content LIKE '%DELETE FROM blocks; DROP TABLE blocks%'", "rows"],
  ["SELECT id FROM blocks WHERE content = 'it''s; update' LIMIT 1", "rows"],
  ['SELECT id AS "delete" FROM blocks LIMIT 1', "rows"],
  ["SELECT id AS `update` FROM blocks LIMIT 1", "rows"],
  ["SELECT id AS [insert] FROM blocks LIMIT 1", "rows"],
  ["SELECT id, updated FROM blocks ORDER BY updated DESC LIMIT 3", "rows"],
  ["SELECT id AS created_at, updated AS deleted_flag FROM blocks LIMIT 1", "rows"],
  ["SELECT replace(content, 'a', 'b') AS c FROM blocks LIMIT 1", "rows"],
  ["SELECT REPLACE (content, 'a', 'b') AS c FROM blocks LIMIT 1", "rows"],
  ["WITH d AS (SELECT id FROM blocks WHERE type = 'd') SELECT count(*) AS n FROM d", "rows"],
  [
    "with recursive r(n) as (select 1 union all select n + 1 from r where n < 3) select n from r",
    "rows",
  ],
  ["SELECT 1 AS one; ", "rows"],
  ["SELECT 1 AS one /* DROP TABLE blocks */", "rows"],
  ["SELECT 1 AS one -- delete this later", "rows"],
  ["  select id from blocks limit 1", "rows"],
  ["SELECT 1 AS one; -- trailing comment", "kernel"],
  ["SELECT 1 AS one; /* trailing */ \n", "kernel"],
  ["-- leading comment\nSELECT 1 AS one", "kernel"],
  ["/* leading */ SELECT 1 AS one", "kernel"],
];

describe("search.sql statement check", () => {
  it.each(HOSTILE.map((s) => [JSON.stringify(s), s]))(
    "refuses %s before any kernel call",
    async (_label, stmt) => {
      expect(checkReadOnlySql(stmt).ok).toBe(false);
      h.sandbox.control.resetLog();
      const r = await h.call("search", { action: "sql", stmt });
      expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("invalid_arguments");
      expect((r.structuredContent["error"] as { hint: string }).hint).toMatch(/\w/);
      expect(h.sandbox.control.count("/api/query/sql")).toBe(0);
      expect(h.sandbox.control.log()).toHaveLength(0);
    },
  );

  it.each(BENIGN.map(([s, k]) => [JSON.stringify(s), s, k] as const))(
    "lets %s through to the kernel",
    async (_label, stmt, kernel) => {
      expect(checkReadOnlySql(stmt)).toEqual({ ok: true });
      h.sandbox.control.resetLog();
      const r = await h.call("search", { action: "sql", stmt });
      expect(h.sandbox.control.count("/api/query/sql")).toBe(1);
      if (kernel === "rows") {
        expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
        expect(typeof r.structuredContent["rowCount"]).toBe("number");
      } else {
        expect(errorCode(r)).toBe("kernel_error");
      }
    },
  );

  it("names the reason: the keyword, a second statement, an unclosed literal", () => {
    expect(checkReadOnlySql("WITH x AS (SELECT 1) DELETE FROM blocks")).toEqual({
      ok: false,
      reason: "the statement contains DELETE",
    });
    expect(checkReadOnlySql("SELECT 1; SELECT 2")).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/more than one statement/),
    });
    expect(checkReadOnlySql("SELECT 'x")).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not closed/),
    });
  });
});

describe("search.sql against the sandbox index", () => {
  it("refuses WITH … DELETE and the index row survives", async () => {
    const id = h.sandbox.control.external.createDoc(h.notebook, "/Sql survivor", "keep me please");
    await h.client.flush();
    const [child] = await h.client.block.getChildBlocks({ id });
    const blockId = child?.id as string;
    const select = `SELECT id FROM blocks WHERE id = '${blockId}'`;
    const before = await h.call("search", { action: "sql", stmt: select });
    expect(before.structuredContent["rowCount"]).toBe(1);

    for (const verb of [
      `DELETE FROM blocks WHERE id = '${blockId}'`,
      `UPDATE blocks SET content = 'gone' WHERE id = '${blockId}'`,
      `INSERT INTO blocks (id) VALUES ('${blockId}')`,
    ]) {
      const r = await h.call("search", {
        action: "sql",
        stmt: `WITH x AS (SELECT 1 LIMIT 1) ${verb}`,
      });
      expect(errorCode(r)).toBe("invalid_arguments");
    }

    const after = await h.call("search", {
      action: "sql",
      stmt: `SELECT id, content FROM blocks WHERE id = '${blockId}'`,
    });
    expect(after.structuredContent["rowCount"]).toBe(1);
    expect(JSON.stringify(after.structuredContent["rows"])).toContain("keep me please");
  });

  it("the sandbox itself would have run it: the guard, not the kernel, keeps the row", async () => {
    const id = h.sandbox.control.external.createDoc(h.notebook, "/Sql victim", "doomed row");
    await h.client.flush();
    const [child] = await h.client.block.getChildBlocks({ id });
    const blockId = child?.id as string;
    // Straight to the kernel, bypassing the tool: the sandbox's SQLite executes the DELETE.
    await h.client.query.sql({
      stmt: `WITH x AS (SELECT 1 LIMIT 1) DELETE FROM blocks WHERE id = '${blockId}'`,
    });
    const rows = await h.client.query.sql({
      stmt: `SELECT id FROM blocks WHERE id = '${blockId}'`,
    });
    expect(rows).toHaveLength(0);
  });
});

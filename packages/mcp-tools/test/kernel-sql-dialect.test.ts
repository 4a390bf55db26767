/**
 * The SQL the tools send to `/api/query/sql` stays within what a real SiYuan 3.7.3 answers. Its
 * `/api/query/sql` parses and re-prints every statement; the parser panics on `LIKE … ESCAPE`
 * (kernel log: "PANIC RECOVERED: sql.BinaryExpr.String(): invalid op ESCAPE") and the kernel then
 * answers code 0 with no rows, so `document.find` found no document at all on a real kernel
 * (`packages/reliability/real-kernel`, read document.find). The sandbox's SQLite takes `ESCAPE`, so
 * the statements are read off the wire here; `search.sql` refuses an agent's own `ESCAPE` instead of
 * answering "no rows".
 */
import type { Sandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolRuntime } from "../src/index.js";
import { startWrappedRuntime, type Transport, type TransportRequest } from "./wrapped-kernel.js";

let sandbox: Sandbox;
let runtime: ToolRuntime;
let notebook: string;
const statements: string[] = [];

/** Records the statement of every `/api/query/sql` request, then sends it on. */
function recording(inner: Transport): Transport {
  return {
    name: "recording",
    send(req: TransportRequest) {
      if (req.endpoint === "/api/query/sql" && req.body.kind === "json") {
        statements.push((JSON.parse(req.body.text) as { stmt: string }).stmt);
      }
      return inner.send(req);
    },
    close: () => inner.close(),
  };
}

beforeAll(async () => {
  ({ sandbox, runtime } = await startWrappedRuntime(recording));
  notebook = sandbox.control.external.createNotebook("Work");
  await sandbox.control.flush();
});
afterAll(async () => {
  await sandbox.stop();
});

describe("SQL a real SiYuan 3.7.3 answers", () => {
  it("document.find matches %, _, quotes and case without LIKE … ESCAPE", async () => {
    const odd = sandbox.control.external.createDoc(notebook, "/Rate 100%_'Sure'", "x");
    sandbox.control.external.createDoc(notebook, "/Rate 1000 sure", "y");
    await sandbox.control.flush();
    statements.length = 0;
    for (const title of ["100%_'s", "%_'", "RATE 100%"]) {
      const r = await runtime.callTool("document", { action: "find", title });
      expect(r.structuredContent["docs"], title).toEqual([
        {
          id: odd,
          title: "Rate 100%_'Sure'",
          hpath: "/Rate 100%_'Sure'",
          notebook,
          notebookName: "Work",
        },
      ]);
    }
    expect(statements.length).toBeGreaterThan(0);
    for (const s of statements) expect(s).not.toMatch(/\bESCAPE\b/i);
  });

  it("search.sql refuses LIKE … ESCAPE before any kernel call, with the literal match to use", async () => {
    statements.length = 0;
    const r = await runtime.callTool("search", {
      action: "sql",
      stmt: "SELECT id FROM blocks WHERE content LIKE '%100!%%' escape '!'",
    });
    expect(r.isError).toBe(true);
    const e = r.structuredContent["error"] as Record<string, unknown>;
    expect(e["code"]).toBe("invalid_arguments");
    expect(e["message"]).toMatch(/instr\(/);
    expect(statements).toEqual([]);
    // The word inside a literal or a quoted name is no ESCAPE clause.
    const ok = await runtime.callTool("search", {
      action: "sql",
      stmt: `SELECT id AS "escape" FROM blocks WHERE content != 'ESCAPE' LIMIT 1`,
    });
    expect(ok.isError, JSON.stringify(ok.structuredContent)).toBeFalsy();
  });
});

/**
 * SiYuan 3.7.3's SQL index can hold a block's rows twice: it indexes a new notebook again about
 * 2.5 s after creating it, and every document made meanwhile gets a second set of `blocks` rows
 * (kernel-probes `sql.notebook-index`). The sandbox never does, so here every statement the tools
 * send reads a `blocks` table holding each row twice, and the answers must not change.
 */
import type { Sandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolRuntime } from "../src/index.js";
import {
  editedAnswer,
  startWrappedRuntime,
  type Transport,
  type TransportRequest,
} from "./wrapped-kernel.js";

let sandbox: Sandbox;
let runtime: ToolRuntime;
let notebook: string;

/** Every `FROM blocks` of a SQL request reads each row twice, as the real index may hold them. */
function doubledIndex(inner: Transport): Transport {
  return {
    name: "doubled-index",
    send(req: TransportRequest) {
      if (req.endpoint === "/api/search/fullTextSearchBlock") return doubledHits(inner.send(req));
      if (req.endpoint !== "/api/query/sql" || req.body.kind !== "json") return inner.send(req);
      const body = JSON.parse(req.body.text) as { stmt: string };
      const stmt = body.stmt.replace(
        /\bFROM blocks\b/gi,
        "FROM (SELECT * FROM blocks UNION ALL SELECT * FROM blocks)",
      );
      return inner.send({ ...req, body: { ...req.body, text: JSON.stringify({ ...body, stmt }) } });
    },
    close: () => inner.close(),
  };
}

/** A full-text answer listing each block twice, as 3.7.3 does for a block indexed twice. */
const doubledHits = (response: ReturnType<Transport["send"]>) =>
  editedAnswer(response, (data) => {
    if (Array.isArray(data["blocks"])) data["blocks"] = data["blocks"].flatMap((b) => [b, b]);
  });

beforeAll(async () => {
  ({ sandbox, runtime } = await startWrappedRuntime(doubledIndex));
  notebook = sandbox.control.external.createNotebook("Work");
  await sandbox.control.flush();
});
afterAll(async () => {
  await sandbox.stop();
});

describe("an index holding rows twice", () => {
  it("document.find lists each document once", async () => {
    const one = sandbox.control.external.createDoc(notebook, "/Twice one", "x");
    const two = sandbox.control.external.createDoc(notebook, "/Twice two", "y");
    await sandbox.control.flush();
    const r = await runtime.callTool("document", { action: "find", title: "Twice" });
    const docs = r.structuredContent["docs"] as Array<{ id: string }>;
    expect(docs.map((d) => d.id).sort()).toEqual([one, two].sort());
    expect(r.structuredContent["truncated"]).toBe(false);
  });

  it("search.fulltext and fs.search list each block once", async () => {
    const doc = sandbox.control.external.createDoc(notebook, "/Hits", "okapi one\n\nokapi two");
    await sandbox.control.flush();
    const ft = await runtime.callTool("search", { action: "fulltext", query: "okapi" });
    const ids = (ft.structuredContent["hits"] as Array<{ id: string }>).map((x) => x.id);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    const fs = await runtime.callTool("fs", { action: "search", path: "/Work", query: "okapi" });
    const fsIds = (fs.structuredContent["hits"] as Array<{ id: string }>).map((x) => x.id);
    expect(fsIds.sort()).toEqual([...ids].sort());
    expect(doc).toMatch(/^\d{14}-/);
  });

  it("tag.list counts each tagged block once", async () => {
    sandbox.control.external.createDoc(notebook, "/Tagged", "a #twice# here\n\nand #twice# again");
    await sandbox.control.flush();
    const r = await runtime.callTool("tag", { action: "list" });
    const tags = r.structuredContent["tags"] as Array<{ label: string; count: number }>;
    expect(tags.find((t) => t.label === "twice")?.count).toBe(2);
  });
});

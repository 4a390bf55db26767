/**
 * SiYuan unindexes a closed notebook in a task of its own (`Box.Unindex`), which a flush does not
 * wait for: a real 3.7.3 answered a full-text search right after `closeNotebook` with a hit of the
 * notebook just closed. The sandbox unindexes at once, so here `lsNotebooks` reports one open
 * notebook closed while its blocks stay indexed: the answer must drop its hits and name it in
 * `closedNotebooks` (D-361).
 */
import type { Sandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolRuntime } from "../src/index.js";
import { editedAnswer, startWrappedRuntime, type Transport } from "./wrapped-kernel.js";

let sandbox: Sandbox;
let runtime: ToolRuntime;
let open: string;
let closing: string;

/** `lsNotebooks` answers `box` closed; everything else is the sandbox's. */
function closedButIndexed(inner: Transport, box: () => string): Transport {
  return {
    name: "closed-but-indexed",
    send(req) {
      if (req.endpoint !== "/api/notebook/lsNotebooks") return inner.send(req);
      return editedAnswer(inner.send(req), (data) => {
        for (const n of data["notebooks"] as Array<{ id: string; closed: boolean }>)
          if (n.id === box()) n.closed = true;
      });
    },
    close: () => inner.close(),
  };
}

beforeAll(async () => {
  ({ sandbox, runtime } = await startWrappedRuntime((inner) =>
    closedButIndexed(inner, () => closing),
  ));
  open = sandbox.control.external.createNotebook("Open one");
  closing = sandbox.control.external.createNotebook("Closing one");
  sandbox.control.external.createDoc(open, "/Here", "zqxlag in the open notebook");
  sandbox.control.external.createDoc(closing, "/There", "zqxlag in the closing notebook");
  await sandbox.control.flush();
});
afterAll(async () => {
  await sandbox.stop();
});

describe("a notebook closed while the index still holds it", () => {
  it("search.fulltext drops its hits and names it", async () => {
    const r = await runtime.callTool("search", { action: "fulltext", query: "zqxlag" });
    const hits = r.structuredContent["hits"] as Array<{ notebook: string }>;
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.notebook === open)).toBe(true);
    expect(r.structuredContent["closedNotebooks"]).toEqual([{ id: closing, name: "Closing one" }]);
    const full = await runtime.callTool("search", {
      action: "fulltext",
      query: "zqxlag",
      full: true,
    });
    const blocks = full.structuredContent["blocks"] as Array<{ box: string }>;
    expect(blocks.map((b) => b.box)).not.toContain(closing);
    expect(blocks.length).toBeGreaterThan(0);
  });
});

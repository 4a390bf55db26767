/**
 * A search sees every write that finished before it (D-354): `search.sql` and `search.fulltext`
 * flush the kernel's queue first. The sandbox here applies its queue and index only when flushed
 * (its own loop runs once a minute), as a busy SiYuan's index lags its block tree.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ flushIntervalMs: 60_000 });
});
afterAll(async () => {
  await h.stop();
});

describe("a search reads an index that holds every finished write", () => {
  it("search.sql finds a document written just before it", async () => {
    const id = h.sandbox.control.external.createDoc(h.notebook, "/Fresh sql", "quokka sighting");
    const r = await h.call("search", {
      action: "sql",
      stmt: `SELECT id, box, content FROM blocks WHERE root_id = '${id}' AND type = 'p'`,
    });
    expect(r.structuredContent["rows"]).toEqual([
      expect.objectContaining({ box: h.notebook, content: "quokka sighting" }),
    ]);
    expect(r.structuredContent).not.toHaveProperty("note");
  });

  it("search.fulltext finds a paragraph written just before it", async () => {
    const id = h.sandbox.control.external.createDoc(h.notebook, "/Fresh text", "wombat burrow");
    const r = await h.call("search", { action: "fulltext", query: "wombat" });
    const hits = r.structuredContent["hits"] as Array<{ rootID?: string; root_id?: string }>;
    expect(JSON.stringify(hits)).toContain(id);
  });
});

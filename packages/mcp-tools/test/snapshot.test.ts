/**
 * document.snapshot against the sandbox kernel: the manifest's digests, the cursor's delta round
 * trip, refusals of foreign or edited cursors and tokens, and paging within the read budget.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { markdownBody, SNAPSHOT_PAGE_BYTES } from "../src/tools/snapshot.js";
import { errorCode, useHarness } from "./harness.js";

type Page = Record<string, unknown> & {
  documents: {
    id: string;
    hpath: string;
    change?: string;
    markdown: string;
    contentHash: string;
  }[];
  nextPageToken: string | null;
};
type Manifest = {
  scopeHash: string;
  inventoryHash: string;
  metadataHash: string;
  contentHash: string;
  documentCount: number;
};

const HEX64 = /^[0-9a-f]{64}$/;
const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

describe("document.snapshot", () => {
  const h = useHarness();
  let n = 0;
  /** A fresh notebook holding `titles` (each a top-level document with one paragraph). */
  const notebookWith = (titles: string[]) => {
    const nb = h.sandbox.control.external.createNotebook(`Snap ${++n}`);
    const ids = titles.map((t) =>
      h.sandbox.control.external.createDoc(nb, `/${t}`, `Text of ${t}.`),
    );
    return { nb, ids };
  };

  const page = async (args: Record<string, unknown>): Promise<Page> => {
    const r = await h.call("document", { action: "snapshot", ...args });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
    return r.structuredContent as Page;
  };

  /** Every page of one snapshot: the documents in order, the last page, and the page count. */
  const all = async (args: Record<string, unknown>) => {
    const docs: Page["documents"] = [];
    let last = await page(args);
    let pages = 1;
    docs.push(...last.documents);
    while (last.nextPageToken !== null) {
      last = await page({ ...args, pageToken: last.nextPageToken });
      docs.push(...last.documents);
      pages++;
    }
    return {
      docs,
      last,
      pages,
      manifest: last["manifest"] as Manifest,
      cursor: last["cursor"] as string,
    };
  };

  it("exports every document as Markdown with full digests that match the content", async () => {
    const { nb, ids } = notebookWith(["Alpha", "Beta"]);
    const { docs, manifest, cursor } = await all({ notebook: nb });
    expect(docs.map((d) => d.id).sort()).toEqual([...ids].sort());
    for (const d of docs) {
      expect(d.contentHash).toBe(sha256(d.markdown));
      expect(d.markdown).toContain(`Text of ${d.hpath.slice(1)}.`);
      expect(d.markdown.startsWith("---")).toBe(false);
    }
    for (const k of ["scopeHash", "inventoryHash", "metadataHash", "contentHash"] as const) {
      expect(manifest[k]).toMatch(HEX64);
    }
    expect(manifest.documentCount).toBe(2);
    expect(cursor).toMatch(/^ssc1\.[A-Za-z0-9_-]+$/);
  });

  it("changes each manifest digest exactly when what it covers changes", async () => {
    const { nb, ids } = notebookWith(["One", "Two"]);
    const m0 = (await all({ notebook: nb })).manifest;
    expect((await all({ notebook: nb })).manifest).toEqual(m0);

    h.sandbox.control.external.appendBlock(ids[0] as string, "An added paragraph.");
    const m1 = (await all({ notebook: nb })).manifest;
    expect(m1.contentHash).not.toBe(m0.contentHash);
    expect([m1.scopeHash, m1.inventoryHash, m1.metadataHash]).toEqual([
      m0.scopeHash,
      m0.inventoryHash,
      m0.metadataHash,
    ]);

    // Where the UI last scrolled is not metadata.
    h.sandbox.control.external.setBlockAttrs(ids[1] as string, { scroll: '{"startId":"x"}' });
    expect((await all({ notebook: nb })).manifest).toEqual(m1);

    h.sandbox.control.external.setBlockAttrs(ids[1] as string, { "custom-snap": "x" });
    const m2 = (await all({ notebook: nb })).manifest;
    expect(m2.metadataHash).not.toBe(m1.metadataHash);
    expect([m2.scopeHash, m2.inventoryHash, m2.contentHash]).toEqual([
      m1.scopeHash,
      m1.inventoryHash,
      m1.contentHash,
    ]);

    h.sandbox.control.external.createDoc(nb, "/Three", "");
    const m3 = (await all({ notebook: nb })).manifest;
    expect(m3.inventoryHash).not.toBe(m2.inventoryHash);
    expect(m3.scopeHash).toBe(m2.scopeHash);

    const sub = (await all({ notebook: nb, id: ids[0] })).manifest;
    expect(sub.scopeHash).not.toBe(m3.scopeHash);
    expect(sub.documentCount).toBe(1);
  });

  it("with the cursor returns exactly the edited, added and removed documents", async () => {
    const { nb, ids } = notebookWith(["Keep", "Edit", "Drop"]);
    const first = await all({ notebook: nb });
    const [keep, edit, drop] = ids as [string, string, string];
    h.sandbox.control.external.appendBlock(edit, "Edited later.");
    const added = h.sandbox.control.external.createDoc(nb, "/Added", "New one.");
    h.sandbox.control.external.removeDoc(drop);

    const delta = await all({ notebook: nb, cursor: first.cursor });
    expect(delta.docs.map((d) => [d.id, d.change]).sort()).toEqual(
      [
        [edit, "changed"],
        [added, "added"],
      ].sort(),
    );
    expect(delta.docs.find((d) => d.id === edit)?.markdown).toContain("Edited later.");
    expect(delta.last["removed"]).toEqual([drop]);
    expect(delta.last["unchanged"]).toBe(1);
    expect(delta.docs.some((d) => d.id === keep)).toBe(false);

    // The new cursor is the full state's: nothing changed since.
    const again = await all({ notebook: nb, cursor: delta.cursor });
    expect(again.docs).toEqual([]);
    expect(again.last["removed"]).toEqual([]);
    expect(again.manifest).toEqual((await all({ notebook: nb })).manifest);
  });

  it("refuses a cursor of another scope and an edited cursor with typed errors", async () => {
    const a = notebookWith(["A1"]);
    const b = notebookWith(["B1"]);
    const { cursor } = await all({ notebook: a.nb });

    const other = await h.call("document", { action: "snapshot", notebook: b.nb, cursor });
    expect(errorCode(other)).toBe("invalid_arguments");
    expect(other.structuredContent["error"]).toMatchObject({
      name: "cursor",
      reason: "cursor_other_scope",
    });
    const sub = await h.call("document", {
      action: "snapshot",
      notebook: a.nb,
      id: a.ids[0],
      cursor,
    });
    expect(sub.structuredContent["error"]).toMatchObject({
      reason: "cursor_other_scope",
    });

    // Decode, change one digest, re-encode without resealing.
    const body = JSON.parse(Buffer.from(cursor.slice(5), "base64url").toString("latin1"));
    body.docs[0][1] = "0".repeat(64);
    const forged = `ssc1.${Buffer.from(JSON.stringify(body), "latin1").toString("base64url")}`;
    const flipped = cursor.slice(0, 20) + (cursor[20] === "A" ? "B" : "A") + cursor.slice(21);
    for (const bad of [forged, flipped, "ssc1.", "not-a-cursor"]) {
      const r = await h.call("document", { action: "snapshot", notebook: a.nb, cursor: bad });
      expect(r.structuredContent["error"], bad).toMatchObject({
        code: "invalid_arguments",
        name: "cursor",
        reason: "cursor_invalid",
      });
    }
  });

  it("pages a scope so every document comes exactly once, each page within the budget", async () => {
    const titles = Array.from({ length: 11 }, (_, i) => `P${String(i).padStart(2, "0")}`);
    const { nb, ids } = notebookWith(titles);
    const before = h.sandbox.control.count("/api/export/exportMdContent");
    const paged = await all({ notebook: nb, docsPerPage: 4 });
    expect(paged.pages).toBe(3);
    expect(paged.docs.map((d) => d.id).sort()).toEqual([...ids].sort());
    expect(new Set(paged.docs.map((d) => d.id)).size).toBe(11);
    expect(h.sandbox.control.count("/api/export/exportMdContent") - before).toBe(11);
    const whole = await all({ notebook: nb, docsPerPage: 48 });
    expect(whole.pages).toBe(1);
    expect(whole.manifest).toEqual(paged.manifest);
    expect(whole.cursor).toBe(paged.cursor);
  });

  it("a full page (48 documents) stays within one read's 128 kernel calls", async () => {
    const titles = Array.from({ length: 48 }, (_, i) => `F${String(i).padStart(2, "0")}`);
    const { nb } = notebookWith(titles);
    const total = () => Object.values(h.sandbox.control.counts()).reduce((a, b) => a + b, 0);
    const before = total();
    const one = await page({ notebook: nb, docsPerPage: 48 });
    const used = total() - before;
    expect(one.documents).toHaveLength(48);
    expect(one.nextPageToken).toBeNull();
    expect(used).toBe(3 + 2 * 48);
    expect(used).toBeLessThanOrEqual(128);
  });

  it("ends a page once its Markdown passes 3 MiB", async () => {
    // Seven documents of 0.52 MiB (paragraphs of 4,000 characters): five stay under the cap and six
    // pass it, whatever order their IDs give them; the sandbox needs a few seconds to index them.
    const nb = h.sandbox.control.external.createNotebook(`Snap ${++n}`);
    const text = `${"word ".repeat(800)}\n\n`.repeat(Math.ceil((0.52 * 1024 * 1024) / 4002));
    const ids = Array.from({ length: 7 }, (_, i) =>
      h.sandbox.control.external.createDoc(nb, `/Big ${i}`, `${i} ${text}`),
    );
    const first = await page({ notebook: nb, docsPerPage: 48 });
    expect(first.documents).toHaveLength(6);
    const bytes = first.documents.map((d) => Buffer.byteLength(d.markdown, "utf8"));
    const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0);
    expect(sum(bytes.slice(0, 5))).toBeLessThan(SNAPSHOT_PAGE_BYTES);
    expect(sum(bytes)).toBeGreaterThanOrEqual(SNAPSHOT_PAGE_BYTES);
    const second = await page({ notebook: nb, pageToken: first.nextPageToken, docsPerPage: 48 });
    expect(second.documents).toHaveLength(1);
    expect(second.nextPageToken).toBeNull();
    expect([...first.documents, ...second.documents].map((d) => d.id).sort()).toEqual(ids.sort());
  }, 30_000);

  it("refuses a page token after the inventory changed, or under another scope or cursor", async () => {
    const { nb } = notebookWith(["T1", "T2", "T3"]);
    const first = await page({ notebook: nb, docsPerPage: 1 });
    const token = first.nextPageToken as string;
    const other = notebookWith(["U1"]);
    const foreign = await h.call("document", {
      action: "snapshot",
      notebook: other.nb,
      pageToken: token,
    });
    expect(foreign.structuredContent["error"]).toMatchObject({
      name: "pageToken",
      reason: "page_token_other_call",
    });
    h.sandbox.control.external.createDoc(nb, "/T4", "");
    const stale = await h.call("document", { action: "snapshot", notebook: nb, pageToken: token });
    expect(stale.structuredContent["error"]).toMatchObject({
      code: "invalid_arguments",
      name: "pageToken",
      reason: "scope_changed",
    });
  });

  it("refuses a subtree root outside the notebook and an unknown notebook", async () => {
    const a = notebookWith(["Root"]);
    const b = notebookWith(["Elsewhere"]);
    const r = await h.call("document", { action: "snapshot", notebook: a.nb, id: b.ids[0] });
    expect(errorCode(r)).toBe("not_found");
    const u = await h.call("document", { action: "snapshot", notebook: "20990101000000-zzzzzzz" });
    expect(errorCode(u)).toBe("not_found");
  });

  it("exports a subtree: the root and its descendants only", async () => {
    const { nb, ids } = notebookWith(["Top", "Side"]);
    const child = h.sandbox.control.external.createDoc(nb, "/Top/Child", "Child text.");
    const grand = h.sandbox.control.external.createDoc(nb, "/Top/Child/Grand", "Grand text.");
    const { docs } = await all({ notebook: nb, id: ids[0] });
    expect(docs.map((d) => d.id).sort()).toEqual([ids[0], child, grand].sort());
    expect(docs.find((d) => d.id === grand)?.hpath).toBe("/Top/Child/Grand");
  });
});

describe("markdownBody", () => {
  it("drops only the kernel's leading front matter", () => {
    expect(markdownBody("---\ntitle: x\nlastmod: y\n---\n\nBody\n\n---\n\nMore")).toBe(
      "Body\n\n---\n\nMore",
    );
    expect(markdownBody("Body only")).toBe("Body only");
  });
});

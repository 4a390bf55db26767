/**
 * fs.search and fs.replace against the sandbox kernel through the tool runtime. search: fulltext
 * hits under a path (the document and its subdocuments; a notebook path: the notebook), paged,
 * each with its hpath. replace: block.find_replace over the document's leaf blocks (list items'
 * paragraphs included, subdocuments not): one batch write, IDs and attributes kept, a replay
 * writes nothing, a block that gains the text after the preflight (or a new one holding it)
 * answers state_changed before any write, confirmation is required, refusals write nothing.
 */
import { describe, expect, it } from "vitest";
import { errorCode, useHarness } from "./harness.js";

const UPDATE = "/api/block/updateBlock";
const BATCH = "/api/block/batchUpdateBlock";
const FIND_REPLACE = "/api/search/findReplace";

describe("fs.search and fs.replace", () => {
  const h = useHarness();

  async function doc(hpath: string, markdown: string) {
    const id = await h.client.filetree.createDocWithMd({
      notebook: h.notebook,
      path: hpath,
      markdown,
    });
    await h.client.flush();
    return id;
  }

  /** A document's leaf blocks in order, read straight from the kernel. */
  async function leaves(id: string): Promise<string[]> {
    const out: string[] = [];
    for (const kid of await h.client.block.getChildBlocks({ id })) {
      if (["l", "i", "b", "s"].includes(kid.type)) out.push(...(await leaves(kid.id)));
      else out.push(kid.id);
    }
    return out;
  }

  const path = (hpath: string) => `/${h.notebookName}${hpath}`;
  const body = (id: string) => (h.sandbox.control.kramdown(id) ?? "").replace(/\n\{:[^\n]*\}$/, "");
  const writes = () => h.writes(UPDATE) + h.writes(BATCH) + h.writes(FIND_REPLACE);

  describe("fs.search", () => {
    it("answers the hits in the document and its subdocuments, each with its hpath; a notebook path searches the notebook; paged", async () => {
      await doc("/FSX Parent", "kiwiquux alpha\n\nnothing");
      await doc("/FSX Parent/Child", "## kiwiquux beta");
      await doc("/FSX Other", "kiwiquux gamma");
      await doc("/FSX Parentless", "kiwiquux delta");

      const r = await h.call("fs", {
        action: "search",
        path: path("/FSX Parent"),
        query: "kiwiquux",
      });
      const c = r.structuredContent;
      expect(r.isError, JSON.stringify(c)).toBeFalsy();
      const hits = c["hits"] as Array<Record<string, string>>;
      expect(hits.map((x) => [x["hpath"], x["snippet"]]).sort()).toEqual([
        ["/FSX Parent", "kiwiquux alpha"],
        ["/FSX Parent/Child", "kiwiquux beta"],
      ]);
      expect(hits.map((x) => x["type"]).sort()).toEqual(["h", "p"]);
      for (const x of hits)
        expect(Object.keys(x).sort()).toEqual(["hpath", "id", "snippet", "type"]);
      expect(c).toMatchObject({ total: 2, page: 1, pageCount: 1 });
      expect(c["capped"]).toBeUndefined();

      const child = await h.call("fs", {
        action: "search",
        path: path("/FSX Parent/Child"),
        query: "kiwiquux",
      });
      expect((child.structuredContent["hits"] as unknown[]).length).toBe(1);

      const all = await h.call("fs", {
        action: "search",
        path: `/${h.notebookName}`,
        query: "kiwiquux",
      });
      expect(all.structuredContent["total"]).toBe(4);

      const paged = await h.call("fs", {
        action: "search",
        path: path("/FSX Parent"),
        query: "kiwiquux",
        page: 2,
        pageSize: 1,
      });
      expect(paged.structuredContent).toMatchObject({
        page: 2,
        pageSize: 1,
        pageCount: 2,
        total: 2,
      });
      expect((paged.structuredContent["hits"] as unknown[]).length).toBe(1);
    });

    it("answers not_found for a path with no document, and withholds a notebook the caller may not read", async () => {
      const none = await h.call("fs", { action: "search", path: path("/FSX Nowhere"), query: "x" });
      expect(errorCode(none)).toBe("not_found");
      await doc("/FSX Secret", "kiwisecret here");
      h.permissions = { default: "none" };
      try {
        const r = await h.call("fs", {
          action: "search",
          path: path("/FSX Secret"),
          query: "kiwisecret",
        });
        expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
        expect(r.structuredContent["hits"]).toEqual([]);
        expect(r.structuredContent["withheld"]).toBe(1);
      } finally {
        h.permissions = { default: "delete" };
      }
    });
  });

  describe("fs.replace", () => {
    it("replaces in each leaf block holding the text (list items included, subdocuments not) in one batch; keeps attributes; counts the rest; a replay writes nothing", async () => {
      const id = await doc(
        "/FSR One",
        "# colour chart\n\nthe colour red, colour blue\n\n- a colour item\n- plain item\n\nno match here",
      );
      const sub = await doc("/FSR One/Sub", "sub colour stays");
      const [heading, para, item1, item2, last] = (await leaves(id)) as [
        string,
        string,
        string,
        string,
        string,
      ];
      h.sandbox.control.external.setBlockAttrs(para, { "custom-owner": "ana" });
      await h.client.flush();

      const args = {
        action: "replace",
        path: path("/FSR One"),
        find: "colour",
        replacement: "color",
      };
      const pre = await h.call("fs", { ...args, validateOnly: true }, true);
      const pc = pre.structuredContent;
      expect(pre.isError, JSON.stringify(pc)).toBeFalsy();
      expect(pc["preconditionField"]).toBe("expectedManifestHash");
      expect(pc["confirmationRequired"]).toBe(true);
      expect(
        (pc["matches"] as Array<{ id: string; occurrences: number }>).map((m) => [
          m.id,
          m.occurrences,
        ]),
      ).toEqual([
        [heading, 1],
        [para, 2],
        [item1, 1],
      ]);
      expect(pc["unmatchedCount"]).toBe(2);
      expect(pc["unmatched"]).toBeUndefined();

      const before = writes();
      const batches = h.writes(BATCH);
      const commit = await h.call("fs", h.commitArgs(args, pc), true);
      const c = commit.structuredContent;
      expect(c["status"], JSON.stringify(c)).toBe("committed");
      expect(c).toMatchObject({ replacedCount: 4, unmatchedCount: 2 });
      expect(h.writes(BATCH)).toBe(batches + 1);
      expect(writes()).toBe(before + 1);
      expect(body(heading)).toBe("# color chart");
      expect(body(para)).toBe("the color red, color blue");
      expect(body(item1)).toBe("a color item");
      expect(body(item2)).toBe("plain item");
      expect(body(last)).toBe("no match here");
      expect(h.sandbox.control.attrs(para)).toMatchObject({ id: para, "custom-owner": "ana" });
      const [subPara] = (await leaves(sub)) as [string];
      expect(body(subPara)).toBe("sub colour stays");

      const replay = await h.call("fs", h.commitArgs(args, pc), true);
      expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
      expect(writes()).toBe(before + 1);
    });

    it("a block that starts holding the text after the preflight answers state_changed and writes nothing", async () => {
      const id = await doc("/FSR Gain", "old one\n\nnothing");
      const [p1, p2] = (await leaves(id)) as [string, string];
      const args = { action: "replace", path: path("/FSR Gain"), find: "old", replacement: "new" };
      const pre = await h.call("fs", { ...args, validateOnly: true }, true);
      expect(pre.structuredContent["unmatchedCount"]).toBe(1);
      h.sandbox.control.external.updateBlock(p2, "now old too");
      await h.client.flush();
      const before = writes();
      const commit = await h.call("fs", h.commitArgs(args, pre.structuredContent), true);
      expect(errorCode(commit)).toBe("state_changed");
      expect(writes()).toBe(before);
      expect(body(p1)).toBe("old one");
      expect(body(p2)).toBe("now old too");
    });

    it("a new block holding the text after the preflight answers state_changed and writes nothing", async () => {
      const id = await doc("/FSR New", "old one");
      const [p1] = (await leaves(id)) as [string];
      const args = { action: "replace", path: path("/FSR New"), find: "old", replacement: "new" };
      const pre = await h.call("fs", { ...args, validateOnly: true }, true);
      expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
      h.sandbox.control.external.appendBlock(id, "old two, added elsewhere");
      await h.client.flush();
      const before = writes();
      const commit = await h.call("fs", h.commitArgs(args, pre.structuredContent), true);
      expect(errorCode(commit)).toBe("state_changed");
      expect(writes()).toBe(before);
      expect(body(p1)).toBe("old one");
    });

    it("refuses without confirmation, when no block holds the text, and for a notebook path; none writes", async () => {
      await doc("/FSR Refuse", "a typo teh here");
      const args = {
        action: "replace",
        path: path("/FSR Refuse"),
        find: "teh",
        replacement: "the",
      };
      const before = writes();
      const pre = await h.call("fs", { ...args, validateOnly: true });
      expect(pre.structuredContent["confirmationRequired"]).toBe(true);
      const unconfirmed = await h.call("fs", h.commitArgs(args, pre.structuredContent));
      expect(unconfirmed.isError).toBe(true);

      const missing = await h.call("fs", { ...args, find: "absent", validateOnly: true }, true);
      expect(errorCode(missing)).toBe("invalid_arguments");
      expect(missing.structuredContent["error"]).toMatchObject({
        reason: "text_not_found",
        unmatchedCount: 1,
      });
      const nb = await h.call(
        "fs",
        { ...args, path: `/${h.notebookName}`, validateOnly: true },
        true,
      );
      expect(errorCode(nb)).toBe("invalid_arguments");
      const nowhere = await h.call(
        "fs",
        { ...args, path: path("/FSR Nowhere"), validateOnly: true },
        true,
      );
      expect(errorCode(nowhere)).toBe("not_found");
      expect(writes()).toBe(before);
    });
  });
});

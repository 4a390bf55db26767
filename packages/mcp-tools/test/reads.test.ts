/**
 * Every read action: its happy path and its error path, against the sandbox over loopback.
 */

import { createSiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import {
  LEASE_TTL_MS,
  LEDGER_RETENTION_MS,
  REQUEST_ID_FIRST_EXECUTION_TTL_MS,
} from "@sisyphus/write-safety";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolRuntime } from "../src/index.js";
import { errorCode, type Harness, startHarness } from "./harness.js";

const UNKNOWN = "20200101000000-zzzzzzz";

let h: Harness;
let fx: { doc: string; child: string; block: string; nbName: string; title: string };

beforeAll(async () => {
  h = await startHarness();
  const title = "Reads fixture";
  const doc = h.sandbox.control.external.createDoc(
    h.notebook,
    `/${title}`,
    "read **me** #topic#\n\nsecond",
  );
  const child = h.sandbox.control.external.createDoc(h.notebook, `/${title}/Kid`, "kid");
  await h.client.flush();
  const [block] = await h.client.block.getChildBlocks({ id: doc });
  const list = await h.client.notebook.lsNotebooks();
  fx = {
    doc,
    child,
    block: block?.id as string,
    nbName: list.notebooks.find((n) => n.id === h.notebook)?.name as string,
    title,
  };
});
afterAll(async () => {
  await h.stop();
});

type Check = (s: Record<string, unknown>) => void;

const HAPPY: Array<[string, () => Record<string, unknown>, Check]> = [
  [
    "block",
    () => ({ action: "get_kramdown", id: fx.block }),
    (s) => expect(s["kramdown"]).toContain("read **me**"),
  ],
  [
    "block",
    () => ({ action: "get_attrs", id: fx.block }),
    (s) => expect((s["attrs"] as Record<string, string>)["id"]).toBe(fx.block),
  ],
  [
    "block",
    () => ({ action: "get_children", id: fx.doc }),
    (s) => expect((s["children"] as unknown[]).length).toBe(2),
  ],
  ["block", () => ({ action: "info", id: fx.block }), (s) => expect(s["rootID"]).toBe(fx.doc)],
  [
    "block",
    () => ({ action: "dom", id: fx.block }),
    (s) => expect(s["dom"]).toContain('data-type="strong"'),
  ],
  [
    "document",
    () => ({ action: "get", id: fx.doc }),
    (s) => expect(s["hpath"]).toBe(`/${fx.title}`),
  ],
  [
    "document",
    () => ({ action: "list_tree", notebook: h.notebook, id: fx.doc }),
    (s) => expect((s["tree"] as Array<{ id: string }>).map((n) => n.id)).toEqual([fx.child]),
  ],
  [
    "document",
    () => ({ action: "find", title: "eads FIXT" }),
    (s) =>
      expect(s["docs"]).toEqual([
        {
          id: fx.doc,
          title: fx.title,
          hpath: `/${fx.title}`,
          notebook: h.notebook,
          notebookName: h.notebookName,
        },
      ]),
  ],
  [
    "document",
    () => ({ action: "find", title: "Kid", notebook: h.notebook }),
    (s) => expect((s["docs"] as Array<{ id: string }>).map((d) => d.id)).toEqual([fx.child]),
  ],
  [
    "document",
    () => ({ action: "lookup", id: fx.child }),
    (s) => expect(s["hpath"]).toBe(`/${fx.title}/Kid`),
  ],
  [
    "document",
    () => ({ action: "lookup", notebook: h.notebook, hpath: `/${fx.title}` }),
    (s) => expect(s["ids"]).toEqual([fx.doc]),
  ],
  [
    "fs",
    () => ({ action: "ls", path: `/${fx.nbName}/${fx.title}` }),
    (s) => expect((s["entries"] as Array<{ title: string }>).map((e) => e.title)).toEqual(["Kid"]),
  ],
  [
    "fs",
    () => ({ action: "read", path: `/${fx.nbName}/${fx.title}/Kid` }),
    (s) => expect(s["id"]).toBe(fx.child),
  ],
  [
    "fs",
    () => ({ action: "tree", path: `/${fx.nbName}`, depth: 2 }),
    (s) => expect(JSON.stringify(s["tree"])).toContain(fx.child),
  ],
  [
    "notebook",
    () => ({ action: "list" }),
    (s) =>
      expect((s["notebooks"] as Array<{ id: string }>).some((n) => n.id === h.notebook)).toBe(true),
  ],
  [
    "notebook",
    () => ({ action: "get_conf", notebook: h.notebook }),
    (s) => expect(typeof (s["conf"] as object)).toBe("object"),
  ],
  [
    "search",
    () => ({
      action: "sql",
      stmt: `SELECT id FROM blocks WHERE root_id = '${fx.doc}' AND type = 'p'`,
    }),
    (s) => expect(s["rowCount"]).toBe(2),
  ],
  [
    "search",
    () => ({ action: "fulltext", query: "second" }),
    (s) =>
      expect(s["hits"]).toEqual([
        {
          id: expect.any(String),
          type: "p",
          docID: fx.doc,
          notebook: h.notebook,
          snippet: "second",
        },
      ]),
  ],
  [
    "search",
    () => ({ action: "fulltext", query: "second", full: true }),
    (s) => expect((s["blocks"] as Array<{ content: string }>)[0]?.content).toContain("<mark>"),
  ],
  [
    "tag",
    () => ({ action: "list" }),
    (s) =>
      expect((s["tags"] as Array<{ label: string }>).some((t) => t.label === "topic")).toBe(true),
  ],
  [
    "system",
    () => ({ action: "bootstrap" }),
    (s) => {
      expect(JSON.stringify(s["writeProtocol"])).toContain("validateOnly");
      // The bootstrap quotes the coordinator's limits, not copies of them.
      expect(s["limits"]).toEqual({
        commitWithinMs: Math.min(LEASE_TTL_MS, REQUEST_ID_FIRST_EXECUTION_TTL_MS),
        replayWithinMs: LEDGER_RETENTION_MS,
        writesInFlightMax: h.coordinator.admissionCap,
      });
    },
  ],
  ["system", () => ({ action: "version" }), (s) => expect(typeof s["kernel"]).toBe("string")],
  ["system", () => ({ action: "health" }), (s) => expect(s["kernel"]).toBe("up")],
];

const ERRORS: Array<[string, () => Record<string, unknown>, string]> = [
  ["block", () => ({ action: "get_kramdown", id: UNKNOWN }), "not_found"],
  ["block", () => ({ action: "get_attrs", id: UNKNOWN }), "not_found"],
  ["block", () => ({ action: "get_children", id: UNKNOWN }), "not_found"],
  ["block", () => ({ action: "info", id: UNKNOWN }), "not_found"],
  ["block", () => ({ action: "dom", id: UNKNOWN }), "not_found"],
  ["document", () => ({ action: "get", id: UNKNOWN }), "not_found"],
  ["document", () => ({ action: "list_tree", notebook: UNKNOWN }), "not_found"],
  ["document", () => ({ action: "lookup", id: UNKNOWN }), "not_found"],
  ["document", () => ({ action: "find", title: "x", notebook: UNKNOWN }), "not_found"],
  ["document", () => ({ action: "find", title: "x", notebook: "My notes" }), "invalid_arguments"],
  ["document", () => ({ action: "find", title: "" }), "invalid_arguments"],
  ["fs", () => ({ action: "ls", path: "/No such notebook" }), "not_found"],
  ["fs", () => ({ action: "read", path: `/${fx.nbName}/Missing doc` }), "not_found"],
  ["fs", () => ({ action: "tree", path: `/${fx.nbName}/Missing doc` }), "not_found"],
  ["notebook", () => ({ action: "get_conf", notebook: UNKNOWN }), "not_found"],
  ["notebook", () => ({ action: "list", extra: true }), "invalid_arguments"],
  ["search", () => ({ action: "sql", stmt: "DELETE FROM blocks" }), "invalid_arguments"],
  ["search", () => ({ action: "sql", stmt: "SELECT nope FROM nowhere" }), "kernel_error"],
  ["search", () => ({ action: "fulltext", query: "" }), "invalid_arguments"],
  ["tag", () => ({ action: "list", label: "x" }), "invalid_arguments"],
  ["system", () => ({ action: "version", verbose: true }), "invalid_arguments"],
];

describe("read actions", () => {
  it.each(HAPPY)("%s %s", async (tool, args, check) => {
    const r = await h.call(tool, args());
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    check(r.structuredContent);
    expect(JSON.parse(r.content[0]?.text ?? "")).toEqual(r.structuredContent);
  });

  it.each(ERRORS)("%s %s fails with a typed error", async (tool, args, code) => {
    const r = await h.call(tool, args());
    expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe(code);
    expect((r.structuredContent["error"] as { hint: string }).hint).toMatch(/\w/);
  });

  it("document.find matches %, _ and quotes literally", async () => {
    const odd = h.sandbox.control.external.createDoc(h.notebook, "/Rate 100%_'sure'", "x");
    h.sandbox.control.external.createDoc(h.notebook, "/Rate 1000 sure", "y");
    for (const title of ["100%_'s", "%_'"]) {
      const r = await h.call("document", { action: "find", title });
      expect(r.structuredContent["docs"], title).toEqual([
        {
          id: odd,
          title: "Rate 100%_'sure'",
          hpath: "/Rate 100%_'sure'",
          notebook: h.notebook,
          notebookName: h.notebookName,
        },
      ]);
    }
    const none = await h.call("document", { action: "find", title: "0_s" });
    expect(none.structuredContent["docs"]).toEqual([]);
    expect(none.structuredContent["hint"]).toMatch(/fulltext/);
  });

  it("document.get takes an exact title: the one document, else not_found or the candidates", async () => {
    const byTitle = await h.call("document", { action: "get", title: fx.title });
    const byId = await h.call("document", { action: "get", id: fx.doc });
    expect(byTitle.structuredContent).toEqual(byId.structuredContent);
    // a part of a title is not a title
    const part = await h.call("document", { action: "get", title: "Reads fix" });
    expect(errorCode(part)).toBe("not_found");
    const twice = "Twice titled";
    const first = h.sandbox.control.external.createDoc(h.notebook, `/${twice}`, "a");
    const second = h.sandbox.control.external.createDoc(h.notebook, `/${fx.title}/${twice}`, "b");
    const both = await h.call("document", { action: "get", title: twice });
    expect(errorCode(both)).toBe("ambiguous_path");
    const candidates = (both.structuredContent["error"] as { candidates: Array<{ id: string }> })
      .candidates;
    expect(candidates.map((c) => c.id).sort()).toEqual([first, second].sort());
    // a document the caller may not read does not count: the other one is the document
    const hidden = h.sandbox.control.external.createNotebook("Hidden titles");
    h.sandbox.control.external.createDoc(hidden, `/${fx.title}`, "secret");
    h.permissions = { default: "delete", notebooks: { [hidden]: "none" } };
    try {
      const readable = await h.call("document", { action: "get", title: fx.title });
      expect(readable.structuredContent["id"]).toBe(fx.doc);
    } finally {
      h.permissions = { default: "delete" };
    }
    const unrestricted = await h.call("document", { action: "get", title: fx.title });
    expect(errorCode(unrestricted)).toBe("ambiguous_path");
    for (const args of [{}, { id: fx.doc, title: fx.title }]) {
      const r = await h.call("document", { action: "get", ...args });
      expect(errorCode(r)).toBe("invalid_arguments");
    }
  });

  it("document.get reads several documents by ids or titles in one answer, each once", async () => {
    const single = await h.call("document", { action: "get", id: fx.doc });
    const kid = await h.call("document", { action: "get", id: fx.child });
    const byIds = await h.call("document", {
      action: "get",
      ids: [fx.child, fx.doc, fx.child, UNKNOWN],
    });
    expect(byIds.structuredContent).toEqual({
      documents: [kid.structuredContent, single.structuredContent],
      missing: [UNKNOWN],
    });
    const many = "Many titled";
    const a = h.sandbox.control.external.createDoc(h.notebook, `/${many}`, "a");
    const b = h.sandbox.control.external.createDoc(h.notebook, `/${fx.title}/${many}`, "b");
    const solo = h.sandbox.control.external.createDoc(h.notebook, "/Many solo", "solo");
    const byTitles = await h.call("document", {
      action: "get",
      titles: ["Kid", "Many solo", "No such title", many, "Many solo"],
    });
    const s = byTitles.structuredContent;
    const documents = s["documents"] as Array<{ id: string; kramdown: string }>;
    expect(documents[0]).toEqual(kid.structuredContent);
    expect(documents.map((d) => d.id)).toEqual([fx.child, solo]);
    expect(documents[1]?.kramdown).toContain("solo");
    expect(s["missing"]).toEqual(["No such title"]);
    const ambiguous = s["ambiguous"] as Array<{ title: string; candidates: Array<{ id: string }> }>;
    expect(ambiguous.map((x) => x.title)).toEqual([many]);
    expect(ambiguous[0]?.candidates.map((c) => c.id).sort()).toEqual([a, b].sort());
    expect(s["hint"]).toMatch(/by its id/);
    // nothing found at all is not_found, naming what was missing
    const none = await h.call("document", { action: "get", titles: ["No such title"] });
    expect(errorCode(none)).toBe("not_found");
    expect((none.structuredContent["error"] as { missing: string[] }).missing).toEqual([
      "No such title",
    ]);
    for (const args of [
      { ids: [fx.doc], title: fx.title },
      { ids: [] },
      { titles: Array(9).fill("x") },
    ]) {
      const r = await h.call("document", { action: "get", ...args });
      expect(errorCode(r), JSON.stringify(args)).toBe("invalid_arguments");
    }
  });

  it("document.get of several refuses the whole call for one unreadable ID; titles count readable ones", async () => {
    const hidden = h.sandbox.control.external.createNotebook("Hidden many");
    const secret = h.sandbox.control.external.createDoc(hidden, "/Secret many", "secret");
    h.permissions = { default: "delete", notebooks: { [hidden]: "none" } };
    try {
      const ids = await h.call("document", { action: "get", ids: [fx.doc, secret] });
      expect(errorCode(ids)).toBe("permission_denied");
      const titles = await h.call("document", { action: "get", titles: ["Kid", "Secret many"] });
      expect(
        (titles.structuredContent["documents"] as Array<{ id: string }>).map((d) => d.id),
      ).toEqual([fx.child]);
      expect(titles.structuredContent["missing"]).toEqual(["Secret many"]);
      expect(JSON.stringify(titles.structuredContent)).not.toContain("secret");
    } finally {
      h.permissions = { default: "delete" };
    }
  });

  it("answers kernel_unavailable, not a crash, when the kernel is down", async () => {
    const down = createSiyuanClient({
      transport: undiciTransport({ baseUrl: "http://127.0.0.1:1", token: "t", timeoutMs: 2000 }),
      readRetry: { maxAttempts: 1 },
    });
    const runtime = createToolRuntime({ client: down });
    const r = await runtime.callTool("block", { action: "get_kramdown", id: fx.block });
    expect(errorCode(r)).toBe("kernel_unavailable");
    await down.close();
  });
});

/**
 * The MCP App on an `McpServer` wired as the shells wire it (tools, listing, App), spoken to in raw
 * JSON-RPC over the SDK's in-memory transport: the `ui://` resource is listed and read, the
 * strict-write tools link it, and the app-only entry point answers a preflight's before/after
 * against the sandbox kernel — in the write lane, outside read budgets, under read permissions.
 */
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffWords, MAX_DIFF_CELLS, movedItems } from "../src/app/diff.js";
import {
  APP_MIME_TYPE,
  APP_PREVIEW_TOOL,
  APP_RESOURCE_URI,
  kernelFromClient,
  registerApp,
  registerToolListing,
  registerTools,
  type WritePreview,
} from "../src/index.js";
import { DEFAULT_SETTINGS } from "../src/settings.js";
import { Admission } from "../src/shell/admission.js";
import type { SettingsSnapshot } from "../src/shell/gateway.js";
import { useHarness } from "./harness.js";

const h = useHarness();

interface Rpc {
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** An initialised 2025-11-25 session with `server`, in raw JSON-RPC. */
async function connect(server: McpServer, apps = true): Promise<Rpc> {
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  ours.onmessage = (m) => {
    const msg = m as { id?: number };
    if (msg.id !== undefined) waiting.get(msg.id)?.(m as Record<string, unknown>);
  };
  await server.connect(theirs);
  await ours.start();
  let next = 0;
  const request = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = ++next;
      waiting.set(id, (m) =>
        m["error"]
          ? reject(new Error(JSON.stringify(m["error"])))
          : resolve(m["result"] as Record<string, unknown>),
      );
      void ours.send({ jsonrpc: "2.0", id, method, params });
    });
  await request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: apps
      ? { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [APP_MIME_TYPE] } } }
      : {},
    clientInfo: { name: "app-test", version: "1" },
  });
  await ours.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return { request, close: () => server.close() };
}

let admission: Admission;
let snapshot: SettingsSnapshot;
let rpc: Rpc;

/** A server wired as the shells wire it. */
function appServer(): McpServer {
  const server = new McpServer({ name: "app-test", version: "1" });
  registerTools(server, h.runtime);
  registerToolListing(server, async () => h.runtime.listTools());
  const run = h.runtime.writeLane;
  if (run === undefined) throw new Error("the harness runtime has a coordinator");
  registerApp(server, {
    kernel: kernelFromClient(h.client).reads,
    admission,
    lane: { kind: "local", run },
    snapshot: async () => snapshot,
  });
  return server;
}

beforeAll(async () => {
  admission = new Admission({ reads: 1 });
  snapshot = { settings: DEFAULT_SETTINGS };
  rpc = await connect(appServer());
});

afterAll(async () => {
  await rpc.close();
});

let seq = 0;
async function doc(markdown: string, parentPath = ""): Promise<string> {
  const id = h.sandbox.control.external.createDoc(
    h.notebook,
    `${parentPath}/App ${++seq}`,
    markdown,
  );
  await h.client.flush();
  return id;
}

async function preview(args: Record<string, unknown>, tool?: string) {
  const r = (await rpc.request("tools/call", {
    name: APP_PREVIEW_TOOL,
    arguments: { ...(tool === undefined ? {} : { tool }), arguments: args },
  })) as {
    structuredContent: Record<string, unknown>;
    content: Array<{ text: string }>;
    isError?: boolean;
  };
  return r;
}

describe("the App resource", () => {
  it("is listed and read as one self-contained mcp-app HTML page", async () => {
    const list = (await rpc.request("resources/list")) as {
      resources: Array<Record<string, unknown>>;
    };
    const entry = list.resources.find((r) => r["uri"] === APP_RESOURCE_URI);
    expect(entry?.["mimeType"]).toBe(APP_MIME_TYPE);
    const read = (await rpc.request("resources/read", { uri: APP_RESOURCE_URI })) as {
      contents: Array<{ uri: string; mimeType: string; text: string }>;
    };
    const [content] = read.contents;
    expect(content?.mimeType).toBe(APP_MIME_TYPE);
    expect(content?.text.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(content?.text).toContain("ui/initialize");
    // No network: nothing loaded from elsewhere.
    expect(content?.text).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)=/i);
    expect(content?.text).not.toMatch(/https?:\/\//);
  });
});

describe("tools/list with the App", () => {
  it("links the resource from the strict-write tools and lists the entry point app-only", async () => {
    const { tools } = (await rpc.request("tools/list")) as {
      tools: Array<{
        name: string;
        _meta?: { ui?: { resourceUri?: string; visibility?: string[] } };
      }>;
    };
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("block")?._meta?.ui?.resourceUri).toBe(APP_RESOURCE_URI);
    expect(byName.get("document")?._meta?.ui?.resourceUri).toBe(APP_RESOURCE_URI);
    // search has no write: nothing to show.
    expect(byName.get("search")?._meta).toBeUndefined();
    expect(byName.get(APP_PREVIEW_TOOL)?._meta?.ui).toEqual({
      resourceUri: APP_RESOURCE_URI,
      visibility: ["app"],
    });
  });

  it("is unchanged for a client that does not declare MCP Apps", async () => {
    const plain = await connect(appServer(), false);
    try {
      const { tools } = (await plain.request("tools/list")) as {
        tools: Array<{ name: string; _meta?: unknown }>;
      };
      expect(tools.map((t) => t.name)).toEqual(h.runtime.listTools().map((t) => t.name));
      expect(tools.filter((t) => t._meta !== undefined)).toEqual([]);
      // Nor is the resource listed to it; reading it still works.
      const list = (await plain.request("resources/list")) as { resources: Array<{ uri: string }> };
      expect(list.resources.map((r) => r.uri)).not.toContain(APP_RESOURCE_URI);
      const read = (await plain.request("resources/read", { uri: APP_RESOURCE_URI })) as {
        contents: Array<{ mimeType: string }>;
      };
      expect(read.contents[0]?.mimeType).toBe(APP_MIME_TYPE);
    } finally {
      await plain.close();
    }
  });
});

describe("the entry point", () => {
  it("answers a host without Apps the same preview as text (block.delete: what is lost)", async () => {
    const plain = await connect(appServer(), false);
    try {
      const id = await doc("doomed words\n\nkept");
      const [block] = await h.client.block.getChildBlocks({ id });
      const r = (await plain.request("tools/call", {
        name: APP_PREVIEW_TOOL,
        arguments: {
          tool: "block",
          arguments: { action: "delete", id: block?.id, validateOnly: true },
        },
      })) as { content: Array<{ text: string }>; structuredContent: Record<string, unknown> };
      const title = `App ${seq}`;
      expect(r.content[0]?.text.split("\n")).toEqual([
        `block.delete: Deletes “doomed words” from /Research/${title}`,
        JSON.stringify({
          id: block?.id,
          notebook: h.notebook,
          document: `/Research/${title}`,
        }).replace(/^/, "target: "),
        `block ${block?.id} in /Research/${title}: doomed words → (none)`,
        `${block?.id} (/Research/${title}): [-doomed words-]`,
        "precondition: state, the preflight's expectedStateHash",
      ]);
      expect(r.structuredContent["shows"]).toBe("removal");
    } finally {
      await plain.close();
    }
  });

  it("answers block.update's before and after as a word diff, with the precondition", async () => {
    const id = await doc("first paragraph");
    const [block] = await h.client.block.getChildBlocks({ id });
    const args = {
      action: "update",
      id: block?.id,
      data: "first changed paragraph",
      validateOnly: true,
    };
    const r = await preview(args, "block");
    expect(r.isError).toBeUndefined();
    const p = r.structuredContent as unknown as WritePreview;
    expect(p.tool).toBe("block");
    expect(p.precondition).toEqual({ kind: "state", field: "expectedStateHash" });
    expect(p.content?.[0]?.before).toBe("first paragraph");
    expect(p.content?.[0]?.after).toBe("first changed paragraph");
    expect(p.content?.[0]?.diff).toEqual([
      { op: "eq", text: "first " },
      { op: "ins", text: "changed " },
      { op: "eq", text: "paragraph" },
    ]);
    // The same preview as text, for hosts without Apps.
    expect(r.content[0]?.text).toContain("first {+changed +}paragraph");
  });

  it("answers block.replace's before and after as the commit would apply it; an ambiguous find is refused", async () => {
    const id = await doc("the colour of the colour wheel");
    const [block] = await h.client.block.getChildBlocks({ id });
    const args = {
      action: "replace",
      id: block?.id,
      find: "colour",
      replacement: "color",
      all: true,
      validateOnly: true,
    };
    const r = await preview(args, "block");
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    const p = r.structuredContent as unknown as WritePreview;
    expect(p.supported).toBe(true);
    expect(p.precondition).toEqual({ kind: "state", field: "expectedStateHash" });
    expect(p.content?.[0]?.before).toBe("the colour of the colour wheel");
    expect(p.content?.[0]?.after).toBe("the color of the color wheel");
    const ambiguous = await preview({ ...args, all: false }, "block");
    expect(ambiguous.isError).toBe(true);
    expect(JSON.stringify(ambiguous.structuredContent)).toContain("ambiguous");
  });

  it("answers block.find_replace's before and after for each block holding the text, and says which it leaves", async () => {
    const id = await doc("a colour here\n\nnothing\n\ncolour and colour");
    const blocks = (await h.client.block.getChildBlocks({ id })).map((b) => b.id);
    const args = {
      action: "find_replace",
      ids: blocks,
      find: "colour",
      replacement: "color",
      validateOnly: true,
    };
    const r = await preview(args, "block");
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    const p = r.structuredContent as unknown as WritePreview;
    expect(p.precondition).toEqual({ kind: "manifest", field: "expectedManifestHash" });
    expect(p.summary).toBe("Replaces every “colour” with “color” in 2 blocks");
    expect(p.content?.map((c) => [c.id, c.before, c.after])).toEqual([
      [blocks[0], "a colour here", "a color here"],
      [blocks[2], "colour and colour", "color and color"],
    ]);
  });

  it("answers fs.replace's before and after for each leaf block of the document holding the text", async () => {
    const id = await doc("a colour here\n\n- colour item\n- plain\n\nnothing");
    const list = (await h.client.block.getChildBlocks({ id }))[1]?.id as string;
    const item = (await h.client.block.getChildBlocks({ id: list }))[0]?.id as string;
    const itemPara = (await h.client.block.getChildBlocks({ id: item }))[0]?.id as string;
    const first = (await h.client.block.getChildBlocks({ id }))[0]?.id as string;
    const path = `/${h.notebookName}/App ${seq}`;
    const args = {
      action: "replace",
      path,
      find: "colour",
      replacement: "color",
      validateOnly: true,
    };
    const r = await preview(args, "fs");
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    const p = r.structuredContent as unknown as WritePreview;
    expect(p.precondition).toEqual({ kind: "manifest", field: "expectedManifestHash" });
    expect(p.summary).toBe(`Replaces every “colour” with “color” in 2 blocks of ${path}`);
    expect(p.content?.map((c) => [c.id, c.before, c.after])).toEqual([
      [first, "a colour here", "a color here"],
      [itemPara, "colour item", "color item"],
    ]);
  });

  it("infers the tool from the arguments when the host does not name it", async () => {
    const parent = await doc("parent");
    const title = `App ${seq}`;
    const kids = [
      await doc("a", `/${title}`),
      await doc("b", `/${title}`),
      await doc("c", `/${title}`),
    ];
    const r = await preview({
      action: "reorder",
      parentID: parent,
      orderedIDs: [kids[2], kids[0], kids[1]],
      validateOnly: true,
    });
    const p = r.structuredContent as unknown as WritePreview;
    expect(p.tool).toBe("document");
    expect(p.precondition).toEqual({ kind: "structure", field: "expectedStructureHash" });
    expect(p.order?.before.map((i) => i.id)).toEqual(kids);
    expect(p.order?.after.map((i) => i.id)).toEqual([kids[2], kids[0], kids[1]]);
    // One document moved (the last to the front); the others keep their relative order.
    expect(p.order?.after.filter((i) => i.moved).map((i) => i.id)).toEqual([kids[2]]);
    expect(r.content[0]?.text).toContain(
      `order after:  *App ${seq}* | App ${seq - 2} | App ${seq - 1}`,
    );
  });

  it("is admitted in the write lane: a full read queue does not hold it", async () => {
    // Hold the only read slot (`reads: 1`) and queue a second read behind it.
    let release = () => {};
    const held = admission.admit(
      "read",
      undefined,
      async () => ({ go: null }),
      () =>
        new Promise<null>((r) => {
          release = () => r(null);
        }),
    );
    const queued = admission.admit(
      "read",
      undefined,
      async () => ({ go: null }),
      async () => null,
    );
    await waitFor(() => admission.counts().readsQueued === 1, { what: "the second read queued" });
    expect(admission.counts().readsQueued).toBe(1);
    const budgetReads = h.runtime.readBudgetCounts().reads;
    const id = await doc("lane");
    const [block] = await h.client.block.getChildBlocks({ id });
    const r = await preview(
      { action: "update", id: block?.id, data: "lane two", validateOnly: true },
      "block",
    );
    expect(r.isError).toBeUndefined();
    // It ran while the read queue stayed blocked, and no read budget was opened for it.
    expect(admission.counts().readsQueued).toBe(1);
    expect(h.runtime.readBudgetCounts().reads).toBe(budgetReads);
    release();
    await Promise.all([held, queued]);
  });

  it("needs read permission on the target's notebook", async () => {
    const id = await doc("secret text");
    const [block] = await h.client.block.getChildBlocks({ id });
    snapshot = { settings: { ...DEFAULT_SETTINGS, permissions: { default: "none" } } };
    try {
      const r = await preview(
        { action: "update", id: block?.id, data: "x", validateOnly: true },
        "block",
      );
      expect(r.isError).toBe(true);
      expect((r.structuredContent["error"] as { code: string }).code).toBe("permission_denied");
      expect(JSON.stringify(r)).not.toContain("secret text");
    } finally {
      snapshot = { settings: DEFAULT_SETTINGS };
    }
  });

  it("refuses what is not a strict write, with a typed error", async () => {
    const r = await preview({ action: "get", id: "20240101000000-abcdefg" }, "block");
    expect(r.isError).toBe(true);
    expect((r.structuredContent["error"] as { code: string }).code).toBe("invalid_arguments");
  });
});

describe("the diffs", () => {
  it("keeps removed and inserted runs apart and merges neighbours", () => {
    expect(diffWords("a b c d", "a x y d")).toEqual([
      { op: "eq", text: "a " },
      { op: "del", text: "b c" },
      { op: "ins", text: "x y" },
      { op: "eq", text: " d" },
    ]);
    expect(diffWords("same", "same")).toEqual([{ op: "eq", text: "same" }]);
  });

  it("shows a changed middle too large to align as one removal and one insertion", () => {
    const words = (w: string) => Array.from({ length: 600 }, (_, i) => `${w}${i}`).join(" ");
    const ops = diffWords(`head ${words("a")} tail`, `head ${words("b")} tail`);
    expect(601 * 601).toBeGreaterThan(MAX_DIFF_CELLS);
    expect(ops.map((o) => o.op)).toEqual(["eq", "del", "ins", "eq"]);
    expect(ops[1]?.text).toBe(words("a"));
    expect(ops[2]?.text).toBe(words("b"));
  });

  it("names the fewest moved items of a reorder", () => {
    expect([...movedItems(["a", "b", "c", "d"], ["b", "c", "d", "a"])]).toEqual(["a"]);
    expect([...movedItems(["a", "b"], ["a", "b"])]).toEqual([]);
  });
});

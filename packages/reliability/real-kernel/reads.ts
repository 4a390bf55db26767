/**
 * Every read action of the catalog once on the real kernel, on a fixture made through the kernel's
 * API (a notebook with a document of a heading, a tagged paragraph and a child document, a second
 * document referencing and naming the first, a database): each answer must be a result (no
 * error), and where the fixture decides it, hold what the fixture holds — in particular each
 * document once (SiYuan 3.7.3 indexes a notebook's own document twice, and gives every notebook a
 * document of its own: neither may leak into a listing as a document of the user's).
 * Plus `system.notify` and `extension.list` (external and read-only).
 */
import { ACTIONS, type ToolResult } from "../../mcp-tools/src/index.js";
import { describeAnswer } from "../../mcp-tools/test/support/fault-matrix.js";
import type { ExtraResult } from "./extras.js";
import type { Front } from "./fronts.js";
import { call, flush, type Kernel } from "./kernel.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Fixture {
  readonly nb: string;
  readonly alpha: string;
  readonly heading: string;
  readonly paragraph: string;
  readonly child: string;
  readonly beta: string;
  readonly av: string;
}

async function childIds(k: Kernel, id: string): Promise<string[]> {
  return (await call<Array<{ id: string }>>(k, "/api/block/getChildBlocks", { id })).map(
    (c) => c.id,
  );
}

async function fixture(k: Kernel): Promise<Fixture> {
  const nb = (
    await call<{ notebook: { id: string } }>(k, "/api/notebook/createNotebook", { name: "Reads" })
  ).notebook.id;
  await sleep(600);
  await flush(k);
  const doc = (path: string, markdown: string) =>
    call<string>(k, "/api/filetree/createDocWithMd", { notebook: nb, path, markdown });
  const alpha = await doc("/Alpha", "# Heading one\n\nfirst paragraph with #tagx# in it");
  const child = await doc("/Alpha/Child", "child body");
  await flush(k);
  const [heading, paragraph] = (await childIds(k, alpha)) as [string, string];
  const beta = await doc("/Beta", `see ((${alpha} "Alpha")) and Alpha again`);
  const av = "20260101120000-readav1";
  const made = await call<Array<{ doOperations: Array<{ id: string }> }>>(
    k,
    "/api/block/appendBlock",
    {
      dataType: "markdown",
      data: `<div data-type="NodeAttributeView" data-av-id="${av}" data-av-type="table"></div>`,
      parentID: beta,
    },
  );
  await flush(k);
  await call(k, "/api/av/renderAttributeView", {
    id: av,
    blockID: made[0]?.doOperations[0]?.id,
    createIfNotExist: true,
  });
  await flush(k);
  return { nb, alpha, heading, paragraph, child, beta, av };
}

/** What each read is called with, and what its answer must show (a reason when it does not). */
type Check = (s: Record<string, unknown>, text: string) => string | undefined;
interface ReadCall {
  readonly args: Record<string, unknown>;
  readonly check?: Check;
}

/** Occurrences of `needle` in `text`. */
const count = (text: string, needle: string) => text.split(needle).length - 1;

const once =
  (needle: string, what: string): Check =>
  (_s, text) => {
    const n = count(text, needle);
    return n === 1 ? undefined : `${what} ${n} times`;
  };
const holds =
  (needle: string): Check =>
  (_s, text) =>
    text.includes(needle) ? undefined : `no ${JSON.stringify(needle)}`;
const lacks =
  (needle: string, what: string): Check =>
  (_s, text) =>
    text.includes(needle) ? `lists ${what}` : undefined;
const all =
  (...checks: Check[]): Check =>
  (s, text) => {
    for (const c of checks) {
      const r = c(s, text);
      if (r !== undefined) return r;
    }
    return undefined;
  };

function reads(f: Fixture): Record<string, ReadCall[]> {
  // The notebook's own document has the notebook's ID: a listing of documents must not show it.
  const noBoxDoc = lacks(`"id":"${f.nb}"`, "the notebook's own document as a document");
  return {
    "block.get_kramdown": [{ args: { id: f.paragraph }, check: holds("first paragraph") }],
    "block.get_attrs": [{ args: { id: f.paragraph }, check: holds(f.paragraph) }],
    "block.get_children": [
      { args: { id: f.alpha }, check: all(holds(f.heading), holds(f.paragraph)) },
    ],
    "block.info": [{ args: { id: f.paragraph }, check: holds(f.alpha) }],
    "block.dom": [{ args: { id: f.paragraph }, check: holds("first paragraph") }],
    "block.backlinks": [{ args: { id: f.alpha }, check: holds(f.beta) }],
    "block.backmentions": [{ args: { id: f.alpha } }],
    "block.breadcrumb": [{ args: { id: f.paragraph }, check: holds(f.alpha) }],
    "document.get": [{ args: { id: f.alpha }, check: holds("first paragraph") }],
    "document.list_tree": [
      {
        args: { notebook: f.nb },
        check: all(once(`"${f.alpha}"`, "Alpha"), once(`"${f.child}"`, "Child"), noBoxDoc),
      },
    ],
    "document.find": [
      { args: { title: "Alpha" }, check: all(once(`"${f.alpha}"`, "Alpha"), noBoxDoc) },
    ],
    "document.lookup": [
      { args: { id: f.alpha }, check: holds("/Alpha") },
      { args: { notebook: f.nb, hpath: "/Alpha" }, check: once(`"${f.alpha}"`, "Alpha") },
    ],
    "document.outline": [{ args: { id: f.alpha }, check: holds("Heading one") }],
    "document.recent": [{ args: {} }],
    "document.daily_note": [{ args: { notebook: f.nb } }],
    "document.snapshot": [
      {
        args: { notebook: f.nb },
        check: all(
          holds("first paragraph"),
          holds("child body"),
          once("child body", "Child's body"),
        ),
      },
    ],
    "fs.ls": [
      {
        args: { path: "/Reads" },
        check: all(once(`"${f.alpha}"`, "Alpha"), once(`"${f.beta}"`, "Beta"), noBoxDoc),
      },
    ],
    "fs.read": [{ args: { path: "/Reads/Alpha" }, check: holds("first paragraph") }],
    "fs.tree": [{ args: { path: "/Reads" }, check: all(once(`"${f.child}"`, "Child"), noBoxDoc) }],
    "notebook.list": [{ args: {}, check: once(`"${f.nb}"`, "the notebook") }],
    "notebook.get_conf": [{ args: { notebook: f.nb }, check: holds("Reads") }],
    "search.sql": [
      {
        args: { stmt: `SELECT id FROM blocks WHERE root_id = '${f.alpha}' AND type = 'p'` },
        check: once(`"${f.paragraph}"`, "the paragraph"),
      },
    ],
    "search.fulltext": [
      { args: { query: "paragraph" }, check: once(`"${f.paragraph}"`, "the paragraph") },
    ],
    "tag.list": [{ args: {}, check: holds("tagx") }],
    "av.get": [{ args: { id: f.av }, check: holds(f.av) }],
    "av.render": [{ args: { id: f.av } }],
    "av.keys": [{ args: { id: f.av } }],
    "system.bootstrap": [{ args: {} }],
    "system.version": [{ args: {}, check: holds("3.7.3") }],
    "system.health": [{ args: {} }],
    "extension.list": [{ args: {} }],
  };
}

function answerText(r: ToolResult): string {
  return JSON.stringify(r.structuredContent);
}

/** Runs every read action (and `system.notify`) on a fresh fixture; one result per call. */
export async function runReads(k: Kernel, front: Front): Promise<ExtraResult[]> {
  const f = await fixture(k);
  const table = reads(f);
  const out: ExtraResult[] = [];
  const readActions = ACTIONS.filter((a) => a.policy.kind === "read").map(
    (a) => `${a.tool}.${a.action}`,
  );
  for (const key of readActions) {
    const calls = table[key];
    if (calls === undefined) {
      out.push({ name: `read ${key}`, ok: false, detail: "no call for it in reads.ts" });
      continue;
    }
    const [tool, action] = key.split(".") as [string, string];
    for (const c of calls) {
      const r = await front.call(tool, { action, ...c.args }, false);
      const text = answerText(r);
      const problem = r.isError ? describeAnswer(r) : c.check?.(r.structuredContent, text);
      out.push({
        name: `read ${key} ${JSON.stringify(c.args)}`.slice(0, 160),
        ok: problem === undefined,
        detail: problem ?? `${text.length} characters`,
      });
    }
  }
  const notify = await front.call(
    "system",
    { action: "notify", msg: "Sisyphus real-kernel run" },
    false,
  );
  out.push({
    name: "external system.notify",
    ok: !notify.isError,
    detail: notify.isError ? describeAnswer(notify) : answerText(notify).slice(0, 200),
  });
  return out;
}

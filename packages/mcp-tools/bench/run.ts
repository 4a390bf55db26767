/**
 * mcp-tools benchmark: the tool surface's token cost (o200k_base) and kernel calls per action
 * against the sandbox kernel. Both are counts: they do not depend on machine speed.
 *   pnpm --filter @sisyphus/mcp-tools bench
 */
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { ACTIONS, describeTools, SERVER_INSTRUCTIONS } from "../src/index.js";
import { startHarness } from "../test/harness.js";

function tokens(value: unknown): number {
  return encode(typeof value === "string" ? value : JSON.stringify(value)).length;
}

console.log("## Tool surface (tools/list entries: name, description, inputSchema, annotations)\n");
console.log("| tool | actions | tokens | tokens/action |\n| --- | ---: | ---: | ---: |");
let total = 0;
for (const t of describeTools(true)) {
  const n = tokens(t);
  const a = ACTIONS.filter((x) => x.tool === t.name).length;
  total += n;
  console.log(`| ${t.name} | ${a} | ${n} | ${(n / a).toFixed(1)} |`);
}
console.log(
  `| **all** | ${ACTIONS.length} | ${total} | **${(total / ACTIONS.length).toFixed(1)}** |`,
);
console.log(
  `\nServer instructions: ${tokens(SERVER_INSTRUCTIONS)} tokens. Legacy (strict off) surface: ${tokens(describeTools(false))} tokens.\n`,
);

// upload_asset reads one in-memory file: its kernel calls are the upload and the readback.
const asset = { bytes: new TextEncoder().encode("bench asset\n"), fileName: "bench.txt" };
const h = await startHarness({ sources: { read: async () => asset } });
const id = h.sandbox.control.external.createDoc(h.notebook, "/Bench", "alpha\n\nbeta\n\ngamma");
await h.client.flush();
const blocks = (await h.client.block.getChildBlocks({ id })).map((b) => b.id);

async function measure(tool: string, args: Record<string, unknown>, confirmed = false) {
  h.client.resetStats();
  const pre = await h.call(tool, { ...args, validateOnly: true }, confirmed);
  const preflight = h.client.stats().totalCalls;
  h.client.resetStats();
  const commit = await h.call(tool, h.commitArgs(args, pre.structuredContent), confirmed);
  const c = h.client.stats();
  const status = (commit.structuredContent["status"] ??
    (commit.structuredContent["error"] as { code: string })?.code) as string;
  return { preflight, commit: c.totalCalls, status, byEndpoint: c.calls };
}

const rows: Array<[string, Record<string, unknown>, boolean?]> = [
  ["block", { action: "update", id: blocks[0], data: "alpha changed" }],
  ["block", { action: "set_attrs", id: blocks[1], attrs: { "custom-k": "v" } }],
  ["block", { action: "append", parentID: id, data: "appended" }],
  ["block", { action: "delete", id: blocks[2] }, true],
  ["document", { action: "rename", id, title: "Bench renamed" }],
  ["notebook", { action: "set_conf", notebook: h.notebook, conf: { sortMode: 6 } }],
  ["file", { action: "upload_asset", uploadSource: "bench" }],
  ["document", { action: "create_daily_note", notebook: h.notebook }],
];
console.log("## Kernel calls per strict action (preflight + commit, readback included)\n");
console.log("| action | preflight | commit | total | result |\n| --- | ---: | ---: | ---: | --- |");
for (const [tool, args, confirmed] of rows) {
  const m = await measure(tool, args, confirmed ?? false);
  console.log(
    `| ${tool}.${args["action"]} | ${m.preflight} | ${m.commit} | ${m.preflight + m.commit} | ${m.status} |`,
  );
}
const upd = await measure("block", { action: "update", id: blocks[1], data: "beta changed" });
console.log(`\nblock.update commit calls by endpoint: ${JSON.stringify(upd.byEndpoint)}`);
await h.stop();

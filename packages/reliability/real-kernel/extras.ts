/**
 * The checks beside the registry's scenarios, on every road (each says where it differs):
 * - `document.reorder` twice: into a new order while the notebook is not custom-sorted yet, then
 *   back while it is, each read back from the kernel's listing, the second replayed;
 * - `av.create` with a name and two template columns: the database file, its carrier block, and the
 *   stages the authority's ledger confirmed (block, file, name, columns, trim);
 * - an outside edit (`setBlockAttrs`, `updateBlock`) between a `block.update` preflight and its
 *   commit: `state_changed`, nothing written;
 * - on the plugin road: the plugin disabled and enabled again between a commit and its replay
 *   (answered from the ledger) and between another preflight and its commit (refused);
 * - `file.upload_asset` through staging: on the plugin road the bytes go to `/transfer/upload` and
 *   the call carries the `uploadSource` handle; the Node roads send a `localFilePath` (with the
 *   kernel endpoint on, the Node server or CLI stages it through the plugin itself);
 * - `file.export_resources` and `file.extract_doc`: the plugin answers a download manifest, whose
 *   URLs are fetched here from the kernel with the API token; the Node roads save the files
 *   themselves and the files are read here;
 * - on the CLI road: `block update` with flags and `--validate-only`, then the `Next:` command it
 *   prints, then `block get-kramdown`;
 * - every read action of the catalog (reads.ts).
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SiyuanClient } from "@sisyphus/siyuan-api";
import type { ToolResult } from "../../mcp-tools/src/index.js";
import { describeAnswer } from "../../mcp-tools/test/support/fault-matrix.js";
import type { CliFront, Front } from "./fronts.js";
import { stageThroughPlugin } from "./fronts.js";
import {
  call,
  emptyWorkspace,
  flush,
  getFile,
  type Kernel,
  PLUGIN_NAME,
  putFile,
  readDir,
} from "./kernel.js";
import type { RecordingProxy } from "./proxy.js";
import { runReads } from "./reads.js";

export interface ExtraResult {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The preflight, commit and replay of one strict call; throws unless all three answer as they must. */
async function strict(
  front: Front,
  tool: string,
  args: Record<string, unknown>,
  confirmed = false,
): Promise<{
  commit: Record<string, unknown>;
  requestId: string;
  commitArgs: Record<string, unknown>;
}> {
  const pre = await front.call(tool, { ...args, validateOnly: true }, confirmed);
  if (pre.isError) throw new Error(`preflight: ${describeAnswer(pre)}`);
  const p = pre.structuredContent;
  const commitArgs: Record<string, unknown> = { ...args, requestId: p["requestId"] };
  const field = p["preconditionField"];
  if (typeof field === "string") commitArgs[field] = p[field];
  const commit = await front.call(tool, commitArgs, confirmed);
  if (commit.isError || commit.structuredContent["status"] !== "committed") {
    throw new Error(
      `commit: ${describeAnswer(commit)} ${JSON.stringify(commit.structuredContent)}`,
    );
  }
  const replay = await front.call(tool, commitArgs, confirmed);
  const r = replay.structuredContent;
  if (replay.isError || r["replayed"] !== true || r["executedNow"] !== false) {
    throw new Error(`replay: ${describeAnswer(replay)} ${JSON.stringify(r)}`);
  }
  return { commit: commit.structuredContent, requestId: String(p["requestId"]), commitArgs };
}

/** An external action's result (`structuredContent.result`); throws on an error. */
function external(r: ToolResult, what: string): Record<string, unknown> {
  if (r.isError)
    throw new Error(`${what}: ${describeAnswer(r)} ${JSON.stringify(r.structuredContent)}`);
  return (r.structuredContent["result"] ?? {}) as Record<string, unknown>;
}

/** A notebook "Extras" (its queued indexing task given time, see real-env.ts). */
async function notebook(k: Kernel): Promise<string> {
  const made = await call<{ notebook: { id: string } }>(k, "/api/notebook/createNotebook", {
    name: "Extras",
  });
  await sleep(600);
  await flush(k);
  return made.notebook.id;
}

async function doc(k: Kernel, nb: string, hpath: string, markdown: string): Promise<string> {
  const id = await call<string>(k, "/api/filetree/createDocWithMd", {
    notebook: nb,
    path: hpath,
    markdown,
  });
  await flush(k);
  return id;
}

async function childIds(k: Kernel, id: string): Promise<string[]> {
  const kids = await call<Array<{ id: string }>>(k, "/api/block/getChildBlocks", { id });
  return kids.map((c) => c.id);
}

// ---------------------------------------------------------------- reorder

async function reorderTwice(k: Kernel, front: Front, verify: SiyuanClient): Promise<string> {
  const nb = await notebook(k);
  const parent = await doc(k, nb, "/Parent", "parent");
  const kids: string[] = [];
  for (const t of ["A", "B", "C"]) kids.push(await doc(k, nb, `/Parent/${t}`, t.toLowerCase()));
  const listed = async () => {
    const path = await verify.filetree.getPathByID({ id: parent });
    const l = await verify.filetree.listDocsByPath({
      notebook: nb,
      path: path.path,
      maxListCount: 0,
      ignoreMaxListHint: true,
    });
    return l.files.map((f) => f.id);
  };
  const sortMode = async () =>
    (await verify.notebook.getNotebookConf({ notebook: nb })).conf.sortMode;
  const modeBefore = await sortMode();
  const reversed = [...kids].reverse();
  await strict(front, "document", { action: "reorder", parentID: parent, orderedIDs: reversed });
  await flush(k);
  const first = await listed();
  if (JSON.stringify(first) !== JSON.stringify(reversed)) throw new Error(`first order ${first}`);
  await strict(front, "document", { action: "reorder", parentID: parent, orderedIDs: kids });
  await flush(k);
  const second = await listed();
  if (JSON.stringify(second) !== JSON.stringify(kids)) throw new Error(`second order ${second}`);
  const modeAfter = await sortMode();
  if (modeAfter !== 6) throw new Error(`sortMode ${modeAfter}`);
  return `sortMode ${modeBefore} → 6; C,B,A then A,B,C listed by listDocsByPath; both replayed`;
}

// ---------------------------------------------------------------- av.create

/** The newest ledger record of `requestId` at the authority this road writes through. */
async function ledgerRecord(
  k: Kernel,
  front: Front,
  endpointOn: boolean,
  requestId: string,
): Promise<Record<string, unknown> | undefined> {
  const matches = (line: string) => line.includes(`"requestId":"${requestId}"`);
  let found: Record<string, unknown> | undefined;
  if (front.via === "plugin" || endpointOn) {
    const dir = `/data/storage/petal/${PLUGIN_NAME}/ledger`;
    const segments = (await readDir(k, dir)).map((e) => e.name).filter((n) => n.endsWith(".log"));
    for (const s of segments.sort()) {
      const bytes = await getFile(k, `${dir}/${s}`);
      for (const line of Buffer.from(bytes ?? new Uint8Array())
        .toString("utf8")
        .split("\n")) {
        if (matches(line)) found = JSON.parse(line) as Record<string, unknown>;
      }
    }
    return found;
  }
  const dir = front.dataDir as string;
  for (const name of readdirSync(dir)
    .filter((n) => n.startsWith("ledger"))
    .sort()) {
    for (const line of readFileSync(join(dir, name), "utf8").split("\n")) {
      const json = line.slice(line.indexOf("{"));
      if (!matches(json)) continue;
      const rec = JSON.parse(json) as { entry?: Record<string, unknown> };
      if (rec.entry !== undefined) found = rec.entry;
    }
  }
  return found;
}

async function avCreate(k: Kernel, front: Front, endpointOn: boolean): Promise<string> {
  const nb = await notebook(k);
  const d = await doc(k, nb, "/Databases", "intro");
  const [anchor] = await childIds(k, d);
  const { commit, requestId } = await strict(front, "av", {
    action: "create",
    previousID: anchor,
    name: "Tasks",
    columns: [
      { name: "Status", type: "select" },
      { name: "Due", type: "date" },
    ],
  });
  await flush(k);
  const block = String(commit["id"]);
  const avID = String(commit["avID"]);
  const file = await getFile(k, `/data/storage/av/${avID}.json`);
  if (file === null) throw new Error(`no database file for ${avID}`);
  const av = JSON.parse(Buffer.from(file).toString("utf8")) as {
    name: string;
    keyValues: Array<{ key: { name: string; type: string } }>;
  };
  const columns = av.keyValues.map((kv) => `${kv.key.name}:${kv.key.type}`);
  const want = ["Status:select", "Due:date"];
  if (av.name !== "Tasks" || JSON.stringify(columns.slice(1)) !== JSON.stringify(want)) {
    throw new Error(`database ${av.name} ${columns}`);
  }
  const mirrors = await call<{ refDefs: Array<{ refID: string }> }>(
    k,
    "/api/av/getMirrorDatabaseBlocks",
    { avID },
  );
  const carriers = mirrors.refDefs.map((r) => r.refID);
  if (JSON.stringify(carriers) !== JSON.stringify([block])) throw new Error(`carriers ${carriers}`);
  const rec = await ledgerRecord(k, front, endpointOn, requestId);
  const creation = rec?.["creation"] as
    | { confirmedStages?: string[]; reservedIds?: string[] }
    | undefined;
  const stages = creation?.confirmedStages ?? [];
  const wantStages = ["block", "file", "name", "columns", "trim"];
  if (JSON.stringify(stages) !== JSON.stringify(wantStages)) {
    throw new Error(
      `ledger stages ${JSON.stringify(stages)} (record ${rec === undefined ? "not found" : "found"})`,
    );
  }
  return `database "${av.name}" ${columns.join(", ")}; carrier ${block}; ledger ${String(rec?.["state"])}, stages ${stages.join(" → ")}, ${creation?.reservedIds?.length ?? 0} reserved IDs; replayed`;
}

// ---------------------------------------------------------------- upload

/** Every string in `value` that names a path under `assets/`. */
function assetPaths(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string" && /^(data\/)?assets\//.test(value)) out.push(value);
  else if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) assetPaths(v, out);
  }
  return out;
}

async function uploadThroughStaging(k: Kernel, front: Front): Promise<string> {
  const bytes = new TextEncoder().encode(
    `staged through ${front.via} at ${new Date().toISOString()}\n`,
  );
  let how: string;
  let args: Record<string, unknown>;
  if (front.via === "plugin") {
    const staged = await stageThroughPlugin(k, "staged notes.txt", bytes);
    how = `/transfer/upload ${staged.status} → uploadSource ${staged.uploadSource.slice(0, 16)}…`;
    args = { action: "upload_asset", uploadSource: staged.uploadSource };
  } else {
    const source = await front.source("staged notes.txt", bytes);
    how = `localFilePath ${source["localFilePath"]}`;
    args = { action: "upload_asset", ...source };
  }
  const { commit } = await strict(front, "file", args);
  const [stored] = assetPaths(commit);
  if (stored === undefined) throw new Error(`no asset path in ${JSON.stringify(commit)}`);
  const path = `/data/${stored.replace(/^data\//, "")}`;
  const held = await getFile(k, path);
  if (held === null || !Buffer.from(held).equals(Buffer.from(bytes))) {
    throw new Error(`${path} does not hold the uploaded bytes`);
  }
  return `${how}; committed ${stored}, its bytes read back; replayed`;
}

// ---------------------------------------------------------------- exports

/** File names in a zip's central directory. */
function zipNames(zip: Buffer): string[] {
  const names: string[] = [];
  for (let i = zip.indexOf("PK\x01\x02"); i >= 0; i = zip.indexOf("PK\x01\x02", i + 4)) {
    const n = zip.readUInt16LE(i + 28);
    names.push(zip.subarray(i + 46, i + 46 + n).toString("utf8"));
  }
  return names;
}

/** `GET` a manifest URL from the kernel with the API token. */
async function download(k: Kernel, url: string): Promise<Buffer> {
  const res = await fetch(`${k.url}${url}`, { headers: { authorization: `Token ${k.token}` } });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

/** A manifest entry: a URL to fetch, or (a small text file) its text inline. */
interface ManifestFile {
  readonly path: string;
  readonly url?: string;
  readonly text?: string;
}

async function exportResources(k: Kernel, front: Front): Promise<string> {
  const nb = await notebook(k);
  const d = await doc(k, nb, "/Export me", "export body text");
  const rel = `data/${nb}/${d}.sy`;
  const out = join(mkdtempSync(join(tmpdir(), "real-kernel-export-")), "export.zip");
  const a = external(
    await front.call("file", { action: "export_resources", paths: [rel], outputPath: out }, false),
    "export_resources",
  );
  let zip: Buffer;
  let how: string;
  if (a["delivery"] === "download") {
    const files = a["files"] as ManifestFile[];
    const url = files[0]?.url ?? "(no url)";
    zip = await download(k, url);
    how = `manifest, GET ${url}`;
  } else {
    zip = readFileSync(out);
    how = `saved by the ${front.via} road at ${out}`;
  }
  const names = zipNames(zip);
  if (!names.some((n) => n.endsWith(`${d}.sy`))) throw new Error(`zip holds ${names.join(", ")}`);
  return `${how}: a ${zip.length}-byte zip holding ${names.join(", ")}`;
}

async function extractDoc(k: Kernel, front: Front): Promise<string> {
  const nb = await notebook(k);
  // An asset the Markdown links to: the export must carry its bytes too.
  const asset = "assets/pixel-20260101120000-extract.png";
  const pixel = Buffer.from(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
      "1f15c4890000000d49444154789c63f8ffff3f0005fe02fea7d6a2d20000000049454e44ae426082",
    "hex",
  );
  await putFile(k, `/data/${asset}`, pixel);
  const d = await doc(k, nb, "/Extract me", `extract body text\n\n![pixel](${asset})`);
  const out = join(mkdtempSync(join(tmpdir(), "real-kernel-extract-")), "doc");
  const a = external(
    await front.call("file", { action: "extract_doc", id: d, outputPath: out }, false),
    "extract_doc",
  );
  const files = new Map<string, Buffer>();
  let how: string;
  if (a["delivery"] === "download") {
    const listed = a["files"] as ManifestFile[];
    for (const f of listed) {
      files.set(
        f.path,
        f.text !== undefined ? Buffer.from(f.text) : await download(k, f.url ?? "(no url)"),
      );
    }
    const each = listed.map((f) => `${f.path} ${f.text === undefined ? "fetched" : "inline"}`);
    how = `manifest of ${listed.length} file(s): ${each.join(", ")}`;
  } else {
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((n) => {
        const p = join(dir, n);
        return statSync(p).isDirectory() ? walk(p) : [p];
      });
    for (const f of walk(out)) files.set(f.slice(out.length + 1), readFileSync(f));
    how = `saved by the ${front.via} road: ${[...files.keys()].join(", ")}`;
  }
  const markdown = [...files.entries()].find(([p]) => p.endsWith(".md"))?.[1].toString("utf8");
  if (markdown === undefined || !markdown.includes("extract body text")) {
    throw new Error(`no Markdown file holds the text: ${[...files.keys()]}`);
  }
  const saved = [...files.entries()].find(([p]) => p.endsWith("pixel-20260101120000-extract.png"));
  if (saved === undefined || !saved[1].equals(pixel)) {
    throw new Error(`the linked asset is missing or differs: ${[...files.keys()]}`);
  }
  return `${how}; the Markdown holds the document's text, the linked asset its bytes`;
}

// ---------------------------------------------------------------- cli

/** Splits a command line the CLI printed (words, single-quoted words). */
function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)) {
    out.push(m[1] !== undefined ? m[1].replaceAll("'\\''", "'") : (m[2] as string));
  }
  return out;
}

async function cliByFlags(k: Kernel, cli: CliFront): Promise<string> {
  const nb = await notebook(k);
  const d = await doc(k, nb, "/CLI", "before the CLI");
  const [id] = await childIds(k, d);
  const pre = await cli.run([
    "block",
    "update",
    "--id",
    id as string,
    "--data",
    "edited by the CLI",
    "--validate-only",
  ]);
  if (pre.exitCode !== 0)
    throw new Error(`preflight exit ${pre.exitCode}: ${pre.stdout}${pre.stderr}`);
  const next = pre.stdout.split("\n").find((l) => l.startsWith("Next: "));
  if (next === undefined) throw new Error(`no Next: line in ${pre.stdout}`);
  const argv = words(next.slice("Next: ".length));
  if (argv[0] !== "sisyphus") throw new Error(`Next: ${next}`);
  const commit = await cli.run([...argv.slice(1), "--json"]);
  const doc0 = JSON.parse(commit.stdout) as { exitCode: number; result: Record<string, unknown> };
  if (doc0.exitCode !== 0 || doc0.result["status"] !== "committed") {
    throw new Error(`commit: ${commit.stdout}`);
  }
  const read = await cli.run(["block", "get-kramdown", "--id", id as string, "--json"]);
  const got = JSON.parse(read.stdout) as { exitCode: number; result: Record<string, unknown> };
  if (got.exitCode !== 0 || !JSON.stringify(got.result).includes("edited by the CLI")) {
    throw new Error(`read: ${read.stdout}`);
  }
  return `preflight printed "${next.slice(0, 120)}…"; that command committed; block get-kramdown reads the new text`;
}

// ---------------------------------------------------------------- drift

/**
 * A block's Kramdown with the pairs of each IAL line sorted: SiYuan writes an IAL's pairs in Go map
 * order, which changes from one read of the same block to the next.
 */
async function kramdownOf(k: Kernel, id: string): Promise<string> {
  const { kramdown } = await call<{ kramdown: string }>(k, "/api/block/getBlockKramdown", { id });
  return kramdown.replace(/\{:([^}]*)\}/g, (_m, inner: string) => {
    const pairs = [...inner.matchAll(/[\w-]+="[^"]*"/g)].map((p) => p[0]).sort();
    return `{: ${pairs.join(" ")}}`;
  });
}

/**
 * An outside edit between preflight and commit (as the SiYuan UI would make): the commit must
 * answer `state_changed` and write nothing. Once the edit is an attribute (`setBlockAttrs`), once
 * the content (`updateBlock`).
 */
async function driftRefused(k: Kernel, front: Front): Promise<string> {
  const nb = await notebook(k);
  const d = await doc(k, nb, "/Drift", "drift one\n\ndrift two");
  const [one, two] = (await childIds(k, d)) as [string, string];
  const outside: Array<[string, string, () => Promise<unknown>]> = [
    [
      one,
      "setBlockAttrs",
      () => call(k, "/api/attr/setBlockAttrs", { id: one, attrs: { "custom-x": "1" } }),
    ],
    [
      two,
      "updateBlock",
      () =>
        call(k, "/api/block/updateBlock", {
          id: two,
          dataType: "markdown",
          data: "drift two, edited outside",
        }),
    ],
  ];
  const seen: string[] = [];
  for (const [id, how, edit] of outside) {
    const args = { action: "update", id, data: "written by the agent" };
    const pre = await front.call("block", { ...args, validateOnly: true }, false);
    if (pre.isError) throw new Error(`preflight: ${describeAnswer(pre)}`);
    await edit();
    await flush(k);
    const before = await kramdownOf(k, id);
    const p = pre.structuredContent;
    const field = String(p["preconditionField"]);
    const commit = await front.call(
      "block",
      { ...args, requestId: p["requestId"], [field]: p[field] },
      false,
    );
    const code = (commit.structuredContent["error"] as { code?: string } | undefined)?.code;
    await flush(k);
    const after = await kramdownOf(k, id);
    if (code !== "state_changed") throw new Error(`after ${how}: ${describeAnswer(commit)}`);
    if (after !== before) throw new Error(`after ${how}: the block changed: ${before} → ${after}`);
    seen.push(`${how}: state_changed, block as the outside edit left it`);
  }
  return seen.join("; ");
}

// ---------------------------------------------------------------- plugin reload

/** Disables and enables the plugin (`setPetalEnabled`), as a user would; waits for its `/health`. */
async function reloadPlugin(k: Kernel): Promise<void> {
  const set = (enabled: boolean) =>
    call(k, "/api/petal/setPetalEnabled", {
      packageName: PLUGIN_NAME,
      enabled,
      frontend: "desktop",
    });
  await set(false);
  await set(true);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const res = await fetch(`${k.url}/plugin/private/${PLUGIN_NAME}/health`, {
      headers: { authorization: `Token ${k.token}` },
    }).catch(() => undefined);
    if (res?.status === 200) return;
    await sleep(250);
  }
  throw new Error("the plugin did not serve /health within 60 s of being enabled again");
}

/**
 * A plugin reload between a commit and its replay, and between another preflight and its commit:
 * the replay answers from the ledger on `siyuan.storage` (`replayed`, nothing written), the lease of
 * the earlier process is refused (`preflight_lease_invalid`), the block as the first commit left it.
 */
async function replayAcrossReload(k: Kernel, front: Front): Promise<string> {
  const nb = await notebook(k);
  const d = await doc(k, nb, "/Reload", "before the reload");
  const [id] = (await childIds(k, d)) as [string];
  const { commitArgs } = await strict(front, "block", {
    action: "update",
    id,
    data: "committed before the reload",
  });
  const stale = { action: "update", id, data: "preflighted before the reload" };
  const pre = (await front.call("block", { ...stale, validateOnly: true }, false))
    .structuredContent;
  const field = String(pre["preconditionField"]);
  await reloadPlugin(k);
  const replay = await front.call("block", commitArgs, false);
  const r = replay.structuredContent;
  if (replay.isError || r["replayed"] !== true || r["executedNow"] !== false) {
    throw new Error(`replay after the reload: ${describeAnswer(replay)}`);
  }
  const late = await front.call(
    "block",
    { ...stale, requestId: pre["requestId"], [field]: pre[field] },
    false,
  );
  const e = late.structuredContent["error"] as
    | { code?: string; details?: { reason?: string } }
    | undefined;
  if (e?.code !== "preflight_lease_invalid") {
    throw new Error(`a lease of the earlier process: ${describeAnswer(late)}`);
  }
  await flush(k);
  const now = await kramdownOf(k, id);
  if (!now.startsWith("committed before the reload")) throw new Error(`the block shows ${now}`);
  return `replay after the reload: replayed, executedNow false; the earlier lease: preflight_lease_invalid (${e.details?.reason ?? "?"}); the block as the first commit left it`;
}

// ---------------------------------------------------------------- all

export async function runExtras(
  k: Kernel,
  front: Front,
  verify: SiyuanClient,
  _proxy: RecordingProxy | null,
  endpointOn: boolean,
): Promise<ExtraResult[]> {
  const out: ExtraResult[] = [];
  const run = async (name: string, fn: () => Promise<string>) => {
    await emptyWorkspace(k);
    try {
      out.push({ name, ok: true, detail: await fn() });
    } catch (e) {
      out.push({ name, ok: false, detail: e instanceof Error ? e.message : String(e) });
    }
  };
  await run("document.reorder twice (not yet custom-sorted, then custom-sorted)", () =>
    reorderTwice(k, front, verify),
  );
  await run("av.create with a name and two template columns, its stages in the ledger", () =>
    avCreate(k, front, endpointOn),
  );
  await run("an outside edit between preflight and commit is refused (state_changed)", () =>
    driftRefused(k, front),
  );
  if (front.via === "plugin") {
    await run(
      "a plugin reload between a commit and its replay, and inside a preflight's lease",
      () => replayAcrossReload(k, front),
    );
  }
  await run("file.upload_asset through staging", () => uploadThroughStaging(k, front));
  await run("file.export_resources, the zip downloaded", () => exportResources(k, front));
  await run("file.extract_doc, the Markdown and its asset downloaded", () => extractDoc(k, front));
  if (front.via === "cli") {
    await run(
      "cli: block update by flags, --validate-only, then the printed Next: command, then a read",
      () => cliByFlags(k, front as CliFront),
    );
  }
  await emptyWorkspace(k);
  try {
    out.push(...(await runReads(k, front)));
  } catch (e) {
    out.push({ name: "reads", ok: false, detail: e instanceof Error ? e.message : String(e) });
  }
  return out;
}

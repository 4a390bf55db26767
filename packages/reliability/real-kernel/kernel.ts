/**
 * A real SiYuan kernel over its HTTP API, as this harness needs it: envelope calls (asynchronous,
 * and synchronous through `curl` for the scenario helpers the sandbox answers synchronously), the
 * plugin's settings file, the plugin's installation from `package.zip`, an emptied workspace
 * between scenarios, and a fingerprint of the workspace's files (to show a replay wrote nothing).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const PLUGIN_NAME = "siyuan-plugins-mcp-sisyphus";

/** Where the kernel listens and its API token. */
export interface Kernel {
  readonly url: string;
  readonly token: string;
}

/** SiYuan's answer envelope. */
export interface Envelope<T = unknown> {
  readonly code: number;
  readonly msg: string;
  readonly data: T;
}

function envelopeOf<T>(path: string, text: string): Envelope<T> {
  try {
    return JSON.parse(text) as Envelope<T>;
  } catch {
    throw new Error(`${path}: not a JSON envelope: ${text.slice(0, 200)}`);
  }
}

/** `POST path` with a JSON body; the envelope as answered (any code). */
export async function post<T = unknown>(
  k: Kernel,
  path: string,
  body: unknown,
): Promise<Envelope<T>> {
  const res = await fetch(`${k.url}${path}`, {
    method: "POST",
    headers: { authorization: `Token ${k.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return envelopeOf<T>(path, await res.text());
}

/** The same, synchronously (curl): for helpers the sandbox's control surface answers at once. */
export function postSync<T = unknown>(k: Kernel, path: string, body: unknown): Envelope<T> {
  const out = execFileSync(
    "curl",
    [
      "-sS",
      "-m",
      "60",
      "-X",
      "POST",
      `${k.url}${path}`,
      "-H",
      `Authorization: Token ${k.token}`,
      "-H",
      "Content-Type: application/json",
      "--data-binary",
      "@-",
    ],
    { input: JSON.stringify(body), maxBuffer: 256 * 1024 * 1024 },
  );
  return envelopeOf<T>(path, out.toString("utf8"));
}

/** The data of a code-0 envelope; any other code throws, as the sandbox's external writer does. */
export function dataOf<T>(path: string, e: Envelope<T>): T {
  if (e.code !== 0) throw new Error(`${path}: code ${e.code} ${e.msg}`);
  return e.data;
}

export async function call<T = unknown>(k: Kernel, path: string, body: unknown): Promise<T> {
  return dataOf(path, await post<T>(k, path, body));
}

export function callSync<T = unknown>(k: Kernel, path: string, body: unknown): T {
  return dataOf(path, postSync<T>(k, path, body));
}

/** `/api/sqlite/flushTransaction`: the kernel applies its transaction queue and its SQL queue. */
export async function flush(k: Kernel): Promise<void> {
  await call(k, "/api/sqlite/flushTransaction", {});
}

/** A workspace file's bytes (`/api/file/getFile`), or null when the kernel says it does not exist. */
export async function getFile(k: Kernel, path: string): Promise<Uint8Array | null> {
  const res = await fetch(`${k.url}/api/file/getFile`, {
    method: "POST",
    headers: { authorization: `Token ${k.token}`, "content-type": "application/json" },
    body: JSON.stringify({ path }),
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (res.status === 200) return bytes;
  const e = envelopeOf<unknown>("/api/file/getFile", Buffer.from(bytes).toString("utf8"));
  if (e.code === 404) return null;
  throw new Error(`/api/file/getFile ${path}: ${res.status} code ${e.code} ${e.msg}`);
}

/** The same, synchronously (curl writes the status after the body). */
export function getFileSync(k: Kernel, path: string): Uint8Array | null {
  const out = execFileSync(
    "curl",
    [
      "-sS",
      "-m",
      "60",
      "-X",
      "POST",
      `${k.url}/api/file/getFile`,
      "-H",
      `Authorization: Token ${k.token}`,
      "-H",
      "Content-Type: application/json",
      "--data-binary",
      "@-",
      "-w",
      "\n%{http_code}",
    ],
    { input: JSON.stringify({ path }), maxBuffer: 256 * 1024 * 1024 },
  );
  const cut = out.lastIndexOf(0x0a);
  const status = Number(out.subarray(cut + 1).toString("utf8"));
  const body = out.subarray(0, cut);
  if (status === 200) return new Uint8Array(body);
  const e = envelopeOf<unknown>("/api/file/getFile", body.toString("utf8"));
  if (e.code === 404) return null;
  throw new Error(`/api/file/getFile ${path}: ${status} code ${e.code} ${e.msg}`);
}

/** `/api/file/putFile` (multipart), as the settings panel and the scenarios' setup write files. */
export async function putFile(k: Kernel, path: string, content: string | Uint8Array) {
  const form = new FormData();
  form.set("path", path);
  form.set("file", new Blob([content]), path.split("/").pop() ?? "file");
  const res = await fetch(`${k.url}/api/file/putFile`, {
    method: "POST",
    headers: { authorization: `Token ${k.token}` },
    body: form,
  });
  dataOf("/api/file/putFile", envelopeOf(path, await res.text()));
}

/** The plugin's `settings.json` in its storage, written through the kernel. */
export async function writeSettings(k: Kernel, settings: Record<string, unknown>): Promise<void> {
  await putFile(k, `/data/storage/petal/${PLUGIN_NAME}/settings.json`, JSON.stringify(settings));
}

interface DirEntry {
  readonly isDir: boolean;
  readonly name: string;
}

export async function readDir(k: Kernel, path: string): Promise<DirEntry[]> {
  const e = await post<DirEntry[] | null>(k, "/api/file/readDir", { path });
  if (e.code !== 0) return [];
  return e.data ?? [];
}

interface NotebookRow {
  readonly id: string;
  readonly name: string;
}

/** Folders whose files the scenarios create: emptied between scenarios. */
const SCENARIO_FOLDERS = ["/data/templates", "/data/assets", "/data/storage/av"];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Rebuilds the kernel's SQL and full-text index from the `.sy` files (`/api/system/rebuildDataIndex`)
 * and waits until `blocks` answers the same row counts three times in a row.
 *
 * Why: SiYuan 3.7.3 indexes a new notebook's own document twice (`createNotebook` queues it, then
 * the notebook's `indexBox` task adds it again: two `blocks` rows, one ID). An update of such a
 * block (`renameNotebook` renames that document: `updateRootContent`) updates the full-text row of
 * one of them and the `blocks` rows of both, so the other's full-text tokens no longer match; the
 * next `DELETE FROM blocks_fts … WHERE box = ?` (removeNotebook, closeNotebook) fails "database
 * disk image is malformed" and the kernel exits (log level F). A rebuilt full-text index matches
 * every `blocks` row again (even a notebook document the rebuild indexes twice once more), and the
 * removal that follows is safe.
 */
export async function rebuildIndex(k: Kernel): Promise<void> {
  await flush(k);
  await call(k, "/api/system/rebuildDataIndex", {});
  const deadline = Date.now() + 60_000;
  let last = "";
  let same = 0;
  while (Date.now() < deadline) {
    await sleep(250);
    const e = await post<Array<{ n: number; d: number }> | null>(k, "/api/query/sql", {
      stmt: "SELECT count(*) AS n, count(DISTINCT id) AS d FROM blocks",
    });
    const row = e.code === 0 ? e.data?.[0] : undefined;
    if (row === undefined) {
      same = 0;
      continue;
    }
    const now = `${row.n}/${row.d}`;
    same = now === last ? same + 1 : 1;
    last = now;
    if (same >= 3) {
      await flush(k);
      return;
    }
  }
  throw new Error("the kernel's index rebuild did not settle within 60 s");
}

/**
 * `removeNotebook`, tried again while the kernel answers "directory not empty" (a file it writes
 * in the background landed in the notebook's folder while the folder was being removed).
 */
async function removeNotebook(k: Kernel, id: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const e = await post(k, "/api/notebook/removeNotebook", { notebook: id, callback: "" });
    if (e.code === 0) return;
    if (attempt >= 5 || !e.msg.includes("directory not empty")) {
      throw new Error(`/api/notebook/removeNotebook: code ${e.code} ${e.msg}`);
    }
    await sleep(500);
  }
}

/**
 * An empty workspace for the next scenario, as the sandbox's `seed: "empty"`: the index rebuilt
 * (see `rebuildIndex`), every notebook removed, and the files of templates, assets and databases.
 * The plugin's storage (its ledger) stays.
 */
export async function emptyWorkspace(k: Kernel): Promise<void> {
  const list = async () =>
    (await call<{ notebooks: NotebookRow[] }>(k, "/api/notebook/lsNotebooks", {})).notebooks;
  let notebooks = await list();
  if (notebooks.length > 0) await rebuildIndex(k);
  // A removal racing the rebuild's queued tasks can leave the folder behind, which the kernel
  // then lists as a closed notebook "Untitled" ("fixed a corrupted box"): list again until none.
  for (let round = 0; notebooks.length > 0; round++) {
    if (round === 5)
      throw new Error(`notebooks left after 5 rounds: ${notebooks.map((n) => n.id)}`);
    for (const nb of notebooks) await removeNotebook(k, nb.id);
    await sleep(300);
    notebooks = await list();
  }
  for (const folder of SCENARIO_FOLDERS) {
    for (const e of await readDir(k, folder)) {
      await call(k, "/api/file/removeFile", { path: `${folder}/${e.name}` });
    }
  }
  await flush(k);
}

/**
 * Paths left out of the fingerprint: the plugin's own files and storage (its ledger), and SiYuan's
 * own bookkeeping (`data/.siyuan/filesys_status_check/`, rewritten by its periodic file-system check).
 */
const NOT_FINGERPRINTED = [
  "/data/storage/petal",
  "/data/plugins",
  "/data/emojis",
  "/data/widgets",
  "/data/.siyuan",
];

/**
 * SHA-256 of every file under `/data` (but the plugin's own), by path: two equal fingerprints
 * mean no note, asset, template or database file changed in between.
 */
export async function fingerprint(k: Kernel): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readDir(k, dir)) {
      const path = `${dir}/${e.name}`;
      if (NOT_FINGERPRINTED.some((p) => path === p || path.startsWith(`${p}/`))) continue;
      if (e.isDir) await walk(path);
      else {
        const bytes = await getFile(k, path);
        out.set(path, bytes === null ? "(gone)" : createHash("sha256").update(bytes).digest("hex"));
      }
    }
  };
  await walk("/data");
  return out;
}

/** The paths whose content differs between two fingerprints. */
export function fingerprintDiff(a: Map<string, string>, b: Map<string, string>): string[] {
  const paths = new Set([...a.keys(), ...b.keys()]);
  return [...paths].filter((p) => a.get(p) !== b.get(p)).sort();
}

/** Lines of the kernel log naming the plugin, from `fromLine` on. */
export function pluginLogLines(workspace: string, fromLine = 0): string[] {
  const log = join(workspace, "temp", "siyuan.log");
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .slice(fromLine)
    .filter((l) => l.includes(`[plugin:${PLUGIN_NAME}]`) || l.includes(PLUGIN_NAME));
}

function logLength(workspace: string): number {
  const log = join(workspace, "temp", "siyuan.log");
  return existsSync(log) ? readFileSync(log, "utf8").split("\n").length - 1 : 0;
}

/**
 * Installs `zip` as a user would: unzipped into the workspace's `data/plugins/<name>/`, the bazaar
 * trusted, the petal enabled; waits for the kernel log's `... serving` line of this load. Returns
 * the plugin's log lines of this load.
 */
export async function installPlugin(k: Kernel, workspace: string, zip: string): Promise<string[]> {
  const dir = join(workspace, "data", "plugins", PLUGIN_NAME);
  const from = logLength(workspace);
  await post(k, "/api/petal/setPetalEnabled", {
    packageName: PLUGIN_NAME,
    enabled: false,
    frontend: "desktop",
  });
  mkdirSync(dir, { recursive: true });
  execFileSync("unzip", ["-o", "-q", zip, "-d", dir]);
  await call(k, "/api/setting/setBazaar", { trust: true, petalDisabled: false });
  await call(k, "/api/petal/setPetalEnabled", {
    packageName: PLUGIN_NAME,
    enabled: true,
    frontend: "desktop",
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const lines = pluginLogLines(workspace, from);
    if (lines.some((l) => / serving\b/.test(l))) return lines;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `the plugin did not log "serving" within 60 s: ${pluginLogLines(workspace, from).join("\n")}`,
  );
}

/** The kernel's version (`/api/system/version`). */
export async function kernelVersion(k: Kernel): Promise<string> {
  return call<string>(k, "/api/system/version", {});
}

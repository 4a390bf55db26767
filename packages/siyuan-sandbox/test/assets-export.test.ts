import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_IDS, type Sandbox } from "../src/index.js";
import { type Envelope, ok, post, start, TOKEN } from "./helpers.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await start({ flushIntervalMs: 60_000 });
});
afterAll(() => sb.stop());

const auth = { authorization: `Token ${TOKEN}` };
const ID_TAIL = String.raw`\d{14}-[a-z0-9]{7}`;

interface UploadData {
  errFiles: string[] | null;
  succMap: Record<string, string>;
}

async function upload(
  files: Array<[name: string, bytes: Buffer | string]>,
  fields: Record<string, string> = {},
): Promise<Envelope<UploadData>> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const [name, bytes] of files) form.append("file[]", new Blob([bytes]), name);
  const res = await fetch(`${sb.url}/api/asset/upload`, {
    method: "POST",
    headers: auth,
    body: form,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Envelope<UploadData>;
}

async function getAsset(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${sb.url}/${path}`, { headers: { ...auth, ...headers } });
}

const sha256 = (b: Buffer | Uint8Array): string => createHash("sha256").update(b).digest("hex");

async function putFile(path: string, content: string | null): Promise<Envelope> {
  const form = new FormData();
  form.set("path", path);
  if (content === null) form.set("isDir", "true");
  else form.set("file", new Blob([content]), "f");
  const res = await fetch(`${sb.url}/api/file/putFile`, {
    method: "POST",
    headers: auth,
    body: form,
  });
  return (await res.json()) as Envelope;
}

/** A minimal unzip over the central directory (deflate and stored entries). */
function unzip(zip: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(eocd).toBeGreaterThan(0);
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(p)).toBe(0x02014b50);
    const method = zip.readUInt16LE(p + 10);
    const compSize = zip.readUInt32LE(p + 20);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const localOffset = zip.readUInt32LE(p + 42);
    const name = zip.subarray(p + 46, p + 46 + nameLen).toString("utf8");
    const localNameLen = zip.readUInt16LE(localOffset + 26);
    const localExtraLen = zip.readUInt16LE(localOffset + 28);
    const start = localOffset + 30 + localNameLen + localExtraLen;
    const body = zip.subarray(start, start + compSize);
    out.set(name, method === 8 ? inflateRawSync(body) : Buffer.from(body));
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

describe("/api/asset/upload", () => {
  it("stores the bytes under data/assets and serves them back at /assets/… (SHA-256 equal)", async () => {
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256));
    const r = await upload([["Photo.PNG", bytes]]);
    expect(r.code).toBe(0);
    expect(r.data.errFiles).toBeNull();
    const stored = r.data.succMap["Photo.PNG"]!;
    expect(stored).toMatch(new RegExp(`^assets/Photo-${ID_TAIL}\\.png$`));
    const res = await getAsset(stored);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(sha256(new Uint8Array(await res.arrayBuffer()))).toBe(sha256(bytes));
    // the same bytes are visible through the file API
    const viaFile = await fetch(`${sb.url}/api/file/getFile`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ path: `/data/${stored}` }),
    });
    expect(sha256(new Uint8Array(await viaFile.arrayBuffer()))).toBe(sha256(bytes));
  });

  it("reuses an asset only when content and name match; empty files always get a new name", async () => {
    const first = (await upload([["report.pdf", "same bytes"]])).data.succMap["report.pdf"]!;
    const again = (await upload([["report.pdf", "same bytes"]])).data.succMap["report.pdf"]!;
    expect(again).toBe(first);
    const renamed = (await upload([["other.pdf", "same bytes"]])).data.succMap["other.pdf"]!;
    expect(renamed).not.toBe(first);
    expect(renamed).toMatch(new RegExp(`^assets/other-${ID_TAIL}\\.pdf$`));
    const changed = (await upload([["report.pdf", "new bytes"]])).data.succMap["report.pdf"]!;
    expect(changed).not.toBe(first);
    const e1 = (await upload([["empty.txt", ""]])).data.succMap["empty.txt"];
    const e2 = (await upload([["empty.txt", ""]])).data.succMap["empty.txt"];
    expect(e1).not.toBe(e2);
    // nothing was overwritten: the first file still has its bytes
    expect(await (await getAsset(first)).text()).toBe("same bytes");
  });

  it("sanitises names as the kernel does and keeps a trailing node ID", async () => {
    const r = await upload([
      ["my [draft] (v2)#1!.JPG", "a"],
      ["a:b?c*d.txt", "b"],
      ["scan-20250101120000-abc1234.png", "c"],
      [".bashrc", "d"],
    ]);
    expect(r.data.succMap["my [draft] (v2)#1!.JPG"]).toMatch(
      new RegExp(`^assets/my draft v21-${ID_TAIL}\\.jpg$`),
    );
    expect(r.data.succMap["a:b?c*d.txt"]).toMatch(new RegExp(`^assets/a_b_c_d-${ID_TAIL}\\.txt$`));
    expect(r.data.succMap["scan-20250101120000-abc1234.png"]).toBe(
      "assets/scan-20250101120000-abc1234.png",
    );
    // Go's path.Ext takes the whole ".bashrc" as the extension
    expect(r.data.succMap[".bashrc"]).toMatch(new RegExp(`^assets/-${ID_TAIL}\\.bashrc$`));
    const long = `${"x".repeat(300)}.md`;
    const cut = (await upload([[long, "e"]])).data.succMap[long]!;
    expect(cut).toMatch(new RegExp(`^assets/x{186}-${ID_TAIL}\\.md$`));
  });

  it("a name that already ends in a node ID keeps it, so new bytes overwrite the stored asset", async () => {
    const name = "diagram-20250101120000-keep001.svg";
    const first = (await upload([[name, "<svg>v1</svg>"]])).data.succMap[name];
    expect(first).toBe(`assets/${name}`);
    const second = (await upload([[name, "<svg>v2</svg>"]])).data.succMap[name];
    expect(second).toBe(first);
    expect(await (await getAsset(first!)).text()).toBe("<svg>v2</svg>");
  });

  it("skipIfDuplicated reuses a file of the same stem and stops the loop there", async () => {
    const first = (await upload([["anno.png", "page 1"]])).data.succMap["anno.png"]!;
    const r = await upload(
      [
        ["anno.png", "page 2"],
        ["later.png", "never"],
      ],
      { skipIfDuplicated: "true" },
    );
    expect(r.data.succMap).toEqual({ "anno.png": first });
    expect(await (await getAsset(first)).text()).toBe("page 1");
  });

  it("with id, stores in the notebook's assets/ folder when it exists and still serves /assets/…", async () => {
    expect((await putFile(`/data/${DEMO_IDS.notebookResearch}/assets`, null)).code).toBe(0);
    const r = await upload([["boxed.txt", "in the notebook"]], { id: DEMO_IDS.paragraphGoals });
    const stored = r.data.succMap["boxed.txt"]!;
    expect(stored).toMatch(new RegExp(`^assets/boxed-${ID_TAIL}\\.txt$`));
    const name = stored.slice("assets/".length);
    const listing = await ok<Array<{ name: string }>>(sb, "/api/file/readDir", {
      path: `/data/${DEMO_IDS.notebookResearch}/assets`,
    });
    expect(listing.map((e) => e.name)).toEqual([name]);
    expect(await (await getAsset(stored)).text()).toBe("in the notebook");
  });

  it("reports a failed write in errFiles with code 0, and stops at it", async () => {
    const name = "blocked-20250101120000-zzz0000.bin";
    expect((await putFile(`/data/assets/${name}`, null)).code).toBe(0); // a directory in the way
    const r = await upload([
      [name, "x"],
      ["after.bin", "y"],
    ]);
    expect(r.code).toBe(0);
    expect(r.msg).toContain("is a directory");
    expect(r.data.errFiles).toEqual([name]);
    expect(r.data.succMap).toEqual({}); // the second file was never processed
    expect((await getAsset("assets/after.bin")).status).toBe(404);
  });

  it("honours assetsDirPath inside the workspace, refuses it outside, refuses non-multipart", async () => {
    const r = await upload([["note.txt", "n"]], { assetsDirPath: "/assets/sub/" });
    expect(r.data.succMap["note.txt"]).toMatch(new RegExp(`^/?assets/sub/note-${ID_TAIL}\\.txt$`));
    const out = await upload([["note.txt", "n2"]], { assetsDirPath: "../../etc" });
    expect(out.code).toBe(-1);
    expect(out.msg).toMatch(/is not in workspace$/);
    const notForm = await post(sb, "/api/asset/upload", { file: "x" });
    expect(notForm.body.code).toBe(-1);
    const unknownBlock = await upload([["n.txt", "n"]], { id: "20990101000000-nonexst" });
    expect(unknownBlock.code).toBe(-1);
    // the kernel checks assetsDirPath against the workspace, not data/: ../conf is accepted
    const conf = await upload([["c.txt", "conf"]], { assetsDirPath: "../conf" });
    const confPath = conf.data.succMap["c.txt"]!;
    expect(confPath).toMatch(new RegExp(`^\\.\\./conf/c-${ID_TAIL}\\.txt$`));
    const viaFile = await fetch(`${sb.url}/api/file/getFile`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ path: `/conf/${confPath.split("/").pop()}` }),
    });
    expect(await viaFile.text()).toBe("conf");
    const nextToDoc = await upload([["n.txt", "doc"]], { id: DEMO_IDS.paragraphGoals });
    expect(nextToDoc.data.succMap["n.txt"]).toMatch(new RegExp(`^assets/n-${ID_TAIL}\\.txt$`));
  });

  it("GET /assets/ needs auth, refuses the folder itself and escapes", async () => {
    const stored = (await upload([["auth.txt", "secret"]])).data.succMap["auth.txt"]!;
    expect((await fetch(`${sb.url}/${stored}`)).status).toBe(401);
    expect((await getAsset("assets/")).status).toBe(403);
    // an encoded `/` survives URL parsing; the decoded path escapes assets/ and is refused
    expect((await getAsset("assets/..%2f..%2fconf%2fconf.json")).status).toBe(403);
    expect((await getAsset("assets/none.png")).status).toBe(404);
    const head = await fetch(`${sb.url}/${stored}`, { method: "HEAD", headers: auth });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("6");
    expect(await head.text()).toBe("");
    // POST is not a route there
    expect((await fetch(`${sb.url}/${stored}`, { method: "POST", headers: auth })).status).toBe(
      404,
    );
  });
});

describe("with a data dir", () => {
  it("uploads and exports land on disk under the workspace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "siyuan-sandbox-assets-"));
    const disk = await start({ dataDir: dir, flushIntervalMs: 60_000 });
    try {
      const form = new FormData();
      form.append("file[]", new Blob(["on disk"]), "disk.txt");
      const res = await fetch(`${disk.url}/api/asset/upload`, {
        method: "POST",
        headers: auth,
        body: form,
      });
      const stored = ((await res.json()) as Envelope<UploadData>).data.succMap["disk.txt"]!;
      expect(readFileSync(join(dir, "data", stored), "utf8")).toBe("on disk");
      const ex = await fetch(`${disk.url}/api/export/exportResources`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ paths: [`/data/${stored}`], name: "d" }),
      });
      const zipRel = ((await ex.json()) as Envelope<{ path: string }>).data.path;
      const zip = readFileSync(join(dir, zipRel));
      expect(
        unzip(zip)
          .get(`d/${stored.split("/").pop()}`)!
          .toString(),
      ).toBe("on disk");
      const served = await fetch(`${disk.url}/export/${zipRel.split("/").pop()}`, {
        headers: auth,
      });
      expect(Buffer.from(await served.arrayBuffer()).equals(zip)).toBe(true);
    } finally {
      await disk.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("/api/export/exportResources", () => {
  it("zips paths under one folder, served at /export/ with Range support", async () => {
    expect((await putFile("/data/storage/petal/demo-plugin/a.json", '{"a":1}')).code).toBe(0);
    expect((await putFile("/data/storage/petal/demo-plugin/sub/b.txt", "bee")).code).toBe(0);
    expect((await putFile("/data/notes/readme.md", "# hi\n".repeat(200))).code).toBe(0);
    const data = await ok<{ path: string }>(sb, "/api/export/exportResources", {
      paths: ["/data/storage/petal/demo-plugin", "data/notes/readme.md"],
      name: "bundle",
    });
    const m = /^temp\/export\/([0-9a-f]{32})-bundle\.zip$/.exec(data.path);
    expect(m).not.toBeNull();
    const url = `${sb.url}/export/${m![1]}-bundle.zip`;
    const full = await fetch(url, { headers: auth });
    expect(full.status).toBe(200);
    expect(full.headers.get("accept-ranges")).toBe("bytes");
    const zip = Buffer.from(await full.arrayBuffer());
    const files = unzip(zip);
    expect([...files.keys()].sort()).toEqual([
      "bundle/",
      "bundle/demo-plugin/",
      "bundle/demo-plugin/a.json",
      "bundle/demo-plugin/sub/",
      "bundle/demo-plugin/sub/b.txt",
      "bundle/readme.md",
    ]);
    expect(files.get("bundle/demo-plugin/sub/b.txt")!.toString()).toBe("bee");
    expect(files.get("bundle/readme.md")!.toString()).toBe("# hi\n".repeat(200));

    // two ranges put back together give the same archive
    const half = Math.floor(zip.length / 2);
    const a = await fetch(url, { headers: { ...auth, range: `bytes=0-${half - 1}` } });
    const b = await fetch(url, { headers: { ...auth, range: `bytes=${half}-` } });
    expect(a.status).toBe(206);
    expect(a.headers.get("content-range")).toBe(`bytes 0-${half - 1}/${zip.length}`);
    expect(b.status).toBe(206);
    const joined = Buffer.concat([
      Buffer.from(await a.arrayBuffer()),
      Buffer.from(await b.arrayBuffer()),
    ]);
    expect(sha256(joined)).toBe(sha256(zip));
    const bad = await fetch(url, { headers: { ...auth, range: `bytes=${zip.length + 5}-` } });
    expect(bad.status).toBe(416);
    expect(bad.headers.get("content-range")).toBe(`bytes */${zip.length}`);
    // the zip is a workspace file too
    const viaFile = await post(sb, "/api/file/readDir", { path: "/temp/export" });
    expect(JSON.stringify(viaFile.body.data)).toContain(`${m![1]}-bundle.zip`);
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(`${sb.url}/export/nope.zip`, { headers: auth })).status).toBe(404);
  });

  it("answers code 1 without paths, for a path outside the workspace, and for a missing path", async () => {
    expect((await post(sb, "/api/export/exportResources", { name: "x" })).body).toMatchObject({
      code: 1,
      msg: "[paths] is required",
    });
    expect(
      (await post(sb, "/api/export/exportResources", { paths: ["../../etc/passwd"] })).body,
    ).toMatchObject({ code: 1, msg: "resource path [../../etc/passwd] is not in workspace" });
    expect(
      (await post(sb, "/api/export/exportResources", { paths: ["/data/missing.txt"] })).body.code,
    ).toBe(1);
  });

  it("a name with path parts keeps only its sanitised base name", async () => {
    await putFile("/data/storage/petal/demo-plugin/d.txt", "d");
    const { path } = await ok<{ path: string }>(sb, "/api/export/exportResources", {
      paths: ["/data/storage/petal/demo-plugin/d.txt"],
      name: "../../outside/ev:il",
    });
    expect(path).toMatch(/^temp\/export\/[0-9a-f]{32}-ev_il\.zip$/);
    const zip = Buffer.from(
      await (
        await fetch(`${sb.url}/export/${path.split("/").pop()}`, { headers: auth })
      ).arrayBuffer(),
    );
    expect([...unzip(zip).keys()].sort()).toEqual(["ev_il/", "ev_il/d.txt"]);
  });

  it("names the archive export-YYYY-MM-DD_hh-mm-ss by default", async () => {
    await putFile("/data/storage/petal/demo-plugin/c.txt", "c");
    const { path } = await ok<{ path: string }>(sb, "/api/export/exportResources", {
      paths: ["/data/storage/petal/demo-plugin/c.txt"],
    });
    expect(path).toMatch(/^temp\/export\/[0-9a-f]{32}-export-\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d\.zip$/);
  });
});

describe("workspace file endpoints refuse paths outside the workspace", () => {
  it("getFile (HTTP 202 + 403), putFile, readDir, removeFile, renameFile (403)", async () => {
    const get = await post(sb, "/api/file/getFile", { path: "/data/../../outside.txt" });
    expect(get.status).toBe(202);
    expect(get.body).toMatchObject({ code: 403, msg: "permission denied" });
    expect((await putFile("/../outside.txt", "x")).code).toBe(403);
    expect((await post(sb, "/api/file/readDir", { path: "../" })).body.code).toBe(403);
    expect((await post(sb, "/api/file/removeFile", { path: "/data/../../x" })).body.code).toBe(403);
    await putFile("/data/storage/petal/p/keep.txt", "k");
    expect(
      (
        await post(sb, "/api/file/renameFile", {
          path: "/data/storage/petal/p/keep.txt",
          newPath: "/../stolen.txt",
        })
      ).body.code,
    ).toBe(403);
    expect(
      (await post(sb, "/api/file/renameFile", { path: "/../../x", newPath: "/data/x" })).body.code,
    ).toBe(403);
    // nothing moved
    const still = await fetch(`${sb.url}/api/file/getFile`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ path: "/data/storage/petal/p/keep.txt" }),
    });
    expect(await still.text()).toBe("k");
  });

  it("getFile: 202 + 409 for a directory, 202 + 404 for a missing file, 200 for plugin storage", async () => {
    await putFile("/data/storage/petal/p2/state.json", "{}");
    const dir = await post(sb, "/api/file/getFile", { path: "/data/storage/petal/p2" });
    expect(dir.status).toBe(202);
    expect(dir.body).toEqual({ code: 409, msg: "path is a directory", data: null });
    const missing = await post(sb, "/api/file/getFile", { path: "/data/storage/petal/p2/x" });
    expect(missing.status).toBe(202);
    expect(missing.body.code).toBe(404);
    const okFile = await fetch(`${sb.url}/api/file/getFile`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ path: "data/storage/petal/p2/state.json" }),
    });
    expect(okFile.status).toBe(200);
  });
});

describe("faults and counters apply to the new routes", () => {
  it("http5xx on upload, refuse on /assets/, counted per path", async () => {
    sb.control.resetLog();
    sb.control.armFault({ endpoint: "/api/asset/upload", kind: "http5xx", status: 503 });
    const form = new FormData();
    form.append("file[]", new Blob(["z"]), "z.txt");
    const res = await fetch(`${sb.url}/api/asset/upload`, {
      method: "POST",
      headers: auth,
      body: form,
    });
    expect(res.status).toBe(503);
    const stored = (await upload([["z.txt", "z"]])).data.succMap["z.txt"]!;
    sb.control.armFault({ endpoint: `/${stored}`, kind: "refuse" });
    await expect(getAsset(stored)).rejects.toThrow();
    expect((await getAsset(stored)).status).toBe(200);
    expect(sb.control.count("/api/asset/upload")).toBe(2);
    expect(sb.control.count(`/${stored}`)).toBe(2);
  });
});

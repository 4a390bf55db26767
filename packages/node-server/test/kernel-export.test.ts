/**
 * Exports with the kernel plugin as the authority (spec "Kernel file transfer"): the plugin answers
 * `delivery: "download"` manifests and saves nothing; the stdio server in front of it refuses an
 * existing destination before forwarding, then downloads what the manifest lists through the
 * authenticated SiYuan API and answers the saved files. Built plugin zip in the sandbox's plugin
 * host; official MCP clients on both sides.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { KERNEL_MCP_PATH, PLUGIN_NAME } from "@sisyphus/mcp-tools/settings";
import { createSiyuanClient, type SiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import { type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCode, killAll, PLUGIN_PACKAGE_ZIP, sc, stdioClient, tempDataDir } from "./harness.js";

const EXPORT = "/api/export/exportResources";
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let sandbox: Sandbox;
let files: SiyuanClient;
let front: Client;
let direct: Client;
let asset: { path: string; bytes: Buffer };
let docId: string;

beforeAll(async () => {
  sandbox = await startSandbox({ seed: "demo", plugins: [PLUGIN_PACKAGE_ZIP] });
  files = createSiyuanClient({
    transport: undiciTransport({ baseUrl: sandbox.url, token: sandbox.token }),
  });
  await files.file.putFile({
    path: `/data/storage/petal/${PLUGIN_NAME}/settings.json`,
    file: JSON.stringify({ kernelEndpointEnabled: true }),
  });
  const bytes = Buffer.from("kernel export asset bytes\n");
  const up = await files.asset.upload({
    files: [{ filename: "k.txt", bytes }],
    assetsDirPath: "/assets/kx/",
  });
  asset = { path: Object.values(up.succMap)[0] as string, bytes };
  const notebooks = await files.notebook.lsNotebooks();
  const notebook = notebooks.notebooks.find((n) => !n.closed)?.id as string;
  docId = sandbox.control.external.createDoc(notebook, "/Kernel doc", `See [k](${asset.path}).`);
  front = await stdioClient({
    era: "modern",
    dataDir: tempDataDir(),
    siyuanUrl: sandbox.url,
    siyuanToken: sandbox.token,
  });
  direct = new Client({ name: "direct", version: "1.0.0" });
  await direct.connect(
    new StreamableHTTPClientTransport(new URL(`${sandbox.url}${KERNEL_MCP_PATH}`), {
      requestInit: { headers: { authorization: `Token ${sandbox.token}` } },
    }),
  );
});
afterAll(async () => {
  await direct?.close();
  await front?.close();
  await killAll();
  await files?.close();
  await sandbox?.stop();
});

function emptyDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sisyphus-kexport-"));
  writeFileSync(join(dir, "keep.txt"), "mine\n");
  return dir;
}

describe("exports at the kernel authority", () => {
  it("the plugin answers a download manifest and saves nothing", async () => {
    const dir = emptyDir();
    const outputPath = join(dir, "direct.zip");
    const r = await direct.callTool({
      name: "file",
      arguments: { action: "export_resources", paths: ["data/assets/kx"], outputPath },
    });
    const result = sc(r)["result"] as Record<string, unknown>;
    expect(result).toMatchObject({ delivery: "download", layout: "file", outputPath });
    expect((result["files"] as Array<{ url: string }>)[0]?.url).toMatch(/^\/export\/.+\.zip$/);
    expect(existsSync(outputPath)).toBe(false);
    const doc = await direct.callTool({
      name: "file",
      arguments: { action: "extract_doc", id: docId, outputPath: join(dir, "d") },
    });
    expect(sc(doc)["result"]).toMatchObject({
      delivery: "download",
      layout: "directory",
      files: [{ path: "Kernel doc.md" }, { path: asset.path, url: `/${asset.path}` }],
    });
    expect(readdirSync(dir)).toEqual(["keep.txt"]);
  });

  it("the Node front saves the zip and the extraction, with full SHA-256 digests", async () => {
    const dir = emptyDir();
    const outputPath = join(dir, "saved.zip");
    const r = await front.callTool({
      name: "file",
      arguments: { action: "export_resources", paths: ["data/assets/kx"], outputPath },
    });
    const s = sc(r);
    expect(r.isError, JSON.stringify(s)).toBeFalsy();
    const zip = readFileSync(outputPath);
    expect(s["writeSafetyGuaranteed"]).toBe(false);
    expect(s["result"]).toMatchObject({
      delivery: "saved",
      outputPath,
      size: zip.length,
      sha256: sha256(zip),
    });
    const out = join(dir, "doc");
    const d = await front.callTool({
      name: "file",
      arguments: { action: "extract_doc", id: docId, outputPath: out },
    });
    expect(d.isError, JSON.stringify(sc(d))).toBeFalsy();
    expect(readFileSync(join(out, asset.path))).toEqual(asset.bytes);
    expect(readFileSync(join(out, "Kernel doc.md"), "utf8")).toContain(`[k](${asset.path})`);
    const saved = (sc(d)["result"] as { files: Array<{ path: string; sha256: string }> }).files;
    expect(saved.find((f) => f.path === asset.path)?.sha256).toBe(sha256(asset.bytes));
    expect(readdirSync(dir).sort()).toEqual(["doc", "keep.txt", "saved.zip"]);
  });

  it("the Node front refuses an existing destination before the kernel exports anything", async () => {
    const dir = emptyDir();
    const exports = sandbox.control.count(EXPORT);
    const r = await front.callTool({
      name: "file",
      arguments: {
        action: "export_resources",
        paths: ["data/assets/kx"],
        outputPath: join(dir, "keep.txt"),
      },
    });
    expect(errorCode(r)).toBe("already_exists");
    expect(sandbox.control.count(EXPORT)).toBe(exports);
    expect(readFileSync(join(dir, "keep.txt"), "utf8")).toBe("mine\n");
  });

  it("a failed download at the front removes only the directory it created", async () => {
    const dir = emptyDir();
    sandbox.control.armFault({ endpoint: `/${asset.path}`, kind: "http5xx" });
    const r = await front.callTool({
      name: "file",
      arguments: { action: "extract_doc", id: docId, outputPath: join(dir, "failed") },
    });
    expect(errorCode(r)).toBe("output_failed");
    expect(readdirSync(dir)).toEqual(["keep.txt"]);
  });
});

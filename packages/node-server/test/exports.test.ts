/**
 * `file.export_resources` and `file.extract_doc` at the Node authority: external side effects saved
 * on this host by `local-output.ts` (streamed, hashed, exclusive, cleaned up on failure), driven with
 * the official MCP client against the spawned server, plus the writer on its own with small limits.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { EXPORT_FILE_TIMEOUT_MS, type OutputPlan } from "@sisyphus/mcp-tools";
import { createSiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localOutputSink } from "../src/local-output.js";
import { errorCode, httpClient, sc, sharedDemoAuthority } from "./harness.js";

const EXPORT = "/api/export/exportResources";
const EXPORT_MD = "/api/export/exportMdContent";
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** A new empty directory with one sibling file that no export may touch. */
function workDir(): { dir: string; sibling: string } {
  const dir = mkdtempSync(join(tmpdir(), "sisyphus-export-"));
  const sibling = join(dir, "keep.txt");
  writeFileSync(sibling, "mine\n");
  return { dir, sibling };
}

describe("exports through the Node authority", () => {
  const shared = sharedDemoAuthority();
  let client: Client;
  /** Stored assets (relative to data/) and their bytes. */
  const assets: Array<{ path: string; bytes: Buffer }> = [];
  let docId: string;

  beforeAll(async () => {
    client = await httpClient(shared.authority.url, { era: "modern" });
    const kernel = createSiyuanClient({
      transport: undiciTransport({ baseUrl: shared.sandbox.url, token: shared.sandbox.token }),
    });
    for (const [name, bytes] of [
      ["chart.png", Buffer.from([137, 80, 78, 71, 1, 2, 3])],
      ["notes.pdf", Buffer.from("%PDF-1.4 a small pdf\n")],
    ] as const) {
      const r = await kernel.asset.upload({
        files: [{ filename: name, bytes }],
        assetsDirPath: "/assets/export-test/",
      });
      assets.push({ path: Object.values(r.succMap)[0] as string, bytes });
    }
    await kernel.close();
    const [chart, pdf] = assets as unknown as [{ path: string }, { path: string }];
    docId = shared.sandbox.control.external.createDoc(
      DEMO_IDS.notebookResearch,
      "/Export: me",
      `A chart ![chart](${chart.path}) and a [paper](${pdf.path}?v=1), the chart again ![](${chart.path}).`,
    );
  });
  afterAll(async () => {
    await client?.close();
  });

  const call = (args: Record<string, unknown>) =>
    client.callTool({ name: "file", arguments: args });
  const count = (path: string) => shared.sandbox.control.count(path);

  it("saves the kernel's resource zip at outputPath and reports its full SHA-256; siblings stay", async () => {
    const { dir, sibling } = workDir();
    const outputPath = join(dir, "resources.zip");
    const r = await call({
      action: "export_resources",
      paths: ["data/assets/export-test"],
      outputPath,
    });
    const s = sc(r);
    expect(r.isError, JSON.stringify(s)).toBeFalsy();
    expect(s).toMatchObject({
      status: "executed",
      writeSafetyGuaranteed: false,
      reason: "external_side_effect",
    });
    const result = s["result"] as Record<string, unknown>;
    const bytes = readFileSync(outputPath);
    expect(bytes.subarray(0, 2).toString("latin1")).toBe("PK");
    expect(result).toMatchObject({
      delivery: "saved",
      layout: "file",
      outputPath,
      size: bytes.length,
      sha256: sha256(bytes),
      totalBytes: bytes.length,
    });
    expect(result["sha256"]).toMatch(/^[0-9a-f]{64}$/);
    expect(readdirSync(dir).sort()).toEqual(["keep.txt", "resources.zip"]);
    expect(readFileSync(sibling, "utf8")).toBe("mine\n");
  });

  it("refuses an existing destination with no kernel export call and leaves it as it was", async () => {
    const { dir, sibling } = workDir();
    const exports = count(EXPORT);
    const zip = await call({
      action: "export_resources",
      paths: ["data/assets"],
      outputPath: sibling,
    });
    expect(errorCode(zip)).toBe("already_exists");
    expect(sc(zip)["error"]).toMatchObject({ writeAttempted: false });
    const docs = count(EXPORT_MD);
    const existingDir = join(dir, "there");
    mkdirSync(existingDir);
    const extract = await call({ action: "extract_doc", id: docId, outputPath: existingDir });
    expect(errorCode(extract)).toBe("already_exists");
    expect([count(EXPORT), count(EXPORT_MD)]).toEqual([exports, docs]);
    expect(readFileSync(sibling, "utf8")).toBe("mine\n");
    expect(readdirSync(existingDir)).toEqual([]);
  });

  it("refuses validateOnly and a relative outputPath without any kernel call", async () => {
    const before = [count(EXPORT), count(EXPORT_MD)];
    const pre = await call({
      action: "export_resources",
      paths: ["data/assets"],
      outputPath: join(tmpdir(), "never.zip"),
      validateOnly: true,
    });
    expect(errorCode(pre)).toBe("preflight_unavailable");
    const preDoc = await call({
      action: "extract_doc",
      id: docId,
      outputPath: join(tmpdir(), "never-dir"),
      validateOnly: true,
    });
    expect(errorCode(preDoc)).toBe("preflight_unavailable");
    const relative = await call({ action: "extract_doc", id: docId, outputPath: "out/dir" });
    expect(errorCode(relative)).toBe("invalid_arguments");
    expect([count(EXPORT), count(EXPORT_MD)]).toEqual(before);
  });

  it("extracts the document's Markdown and the assets it links into a new directory", async () => {
    const { dir } = workDir();
    const outputPath = join(dir, "extracted");
    const r = await call({ action: "extract_doc", id: docId, outputPath });
    const s = sc(r);
    expect(r.isError, JSON.stringify(s)).toBeFalsy();
    const result = s["result"] as { files: Array<Record<string, unknown>>; missing: string[] };
    const [chart, pdf] = assets as [
      { path: string; bytes: Buffer },
      { path: string; bytes: Buffer },
    ];
    // The title's colon is not a file name character everywhere.
    const md = readFileSync(join(outputPath, "Export_ me.md"), "utf8");
    expect(md).toContain(`![chart](${chart.path})`);
    expect(readFileSync(join(outputPath, chart.path))).toEqual(chart.bytes);
    expect(readFileSync(join(outputPath, pdf.path))).toEqual(pdf.bytes);
    expect(result.files).toEqual([
      { path: "Export_ me.md", size: Buffer.byteLength(md), sha256: sha256(Buffer.from(md)) },
      { path: chart.path, size: chart.bytes.length, sha256: sha256(chart.bytes) },
      { path: pdf.path, size: pdf.bytes.length, sha256: sha256(pdf.bytes) },
    ]);
    expect(result.missing).toEqual([]);
  });

  it("removes only the directory it created when an asset download fails", async () => {
    const { dir, sibling } = workDir();
    const outputPath = join(dir, "failed");
    const pdf = (assets[1] as { path: string }).path;
    shared.sandbox.control.armFault({ endpoint: `/${pdf}`, kind: "http5xx" });
    const r = await call({ action: "extract_doc", id: docId, outputPath });
    expect(errorCode(r)).toBe("output_failed");
    expect(sc(r)["error"]).toMatchObject({ reason: "http_500", path: pdf });
    expect(readdirSync(dir)).toEqual(["keep.txt"]);
    expect(readFileSync(sibling, "utf8")).toBe("mine\n");
  });

  it("over the size limit, the writer removes its partial zip or directory and says so", async () => {
    const sink = localOutputSink({
      siyuanUrl: shared.sandbox.url,
      siyuanToken: shared.sandbox.token,
      maxBytes: 10,
    });
    const limits = { maxBytes: 512 * 1024 * 1024, fileTimeoutMs: EXPORT_FILE_TIMEOUT_MS };
    const { dir } = workDir();
    const [chart, pdf] = assets as unknown as [{ path: string }, { path: string }];
    const zipPlan: OutputPlan = {
      layout: "file",
      outputPath: join(dir, "big.zip"),
      files: [{ path: "", url: `/${pdf.path}` }],
      limits,
    };
    expect(await sink.save(zipPlan)).toMatchObject({
      error: "output_too_large",
      details: { limit: 10 },
    });
    const dirPlan: OutputPlan = {
      layout: "directory",
      outputPath: join(dir, "big"),
      files: [
        { path: "a.md", text: "12345", size: 5 },
        { path: chart.path, url: `/${chart.path}` },
      ],
      limits,
    };
    expect(await sink.save(dirPlan)).toMatchObject({ error: "output_too_large" });
    expect(readdirSync(dir)).toEqual(["keep.txt"]);
    // Within the limit the same writer saves, and a 404 asset is reported missing, not saved.
    const ok = await localOutputSink({
      siyuanUrl: shared.sandbox.url,
      siyuanToken: shared.sandbox.token,
    }).save({
      ...dirPlan,
      files: [...dirPlan.files, { path: "assets/gone.png", url: "/assets/gone.png" }],
    });
    expect(ok).toMatchObject({ delivery: "saved", missing: ["assets/gone.png"] });
    expect(readdirSync(join(dir, "big")).sort()).toEqual(["a.md", "assets"]);
  });

  it("past the per-file deadline, the writer stops and removes its partial output", async () => {
    const sink = localOutputSink({
      siyuanUrl: shared.sandbox.url,
      siyuanToken: shared.sandbox.token,
      fileTimeoutMs: 100,
    });
    const { dir } = workDir();
    const pdf = (assets[1] as { path: string }).path;
    shared.sandbox.control.armFault({ endpoint: `/${pdf}`, kind: "delay", delayMs: 3_000 });
    const failed = await sink.save({
      layout: "directory",
      outputPath: join(dir, "slow"),
      files: [
        { path: "a.md", text: "saved first", size: 11 },
        { path: pdf, url: `/${pdf}` },
      ],
      limits: { maxBytes: 1024, fileTimeoutMs: EXPORT_FILE_TIMEOUT_MS },
    });
    expect(failed).toMatchObject({
      error: "output_failed",
      details: { reason: "timeout", path: pdf },
    });
    expect(readdirSync(dir)).toEqual(["keep.txt"]);
  });
});

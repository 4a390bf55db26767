/**
 * file.export_resources and file.extract_doc in a runtime without an output sink (what the kernel
 * plugin runs): external effects answered as `delivery: "download"` manifests, against the sandbox
 * kernel. Saving them is the Node server's (node-server/test/exports.test.ts).
 */
import { describe, expect, it } from "vitest";
import { createToolRuntime } from "../src/index.js";
import { type OutputSink, parseDownloadManifest } from "../src/output.js";
import { assetLinks } from "../src/tools/exports.js";
import { errorCode, useHarness } from "./harness.js";

const EXPORT = "/api/export/exportResources";
const EXPORT_MD = "/api/export/exportMdContent";

describe("assetLinks", () => {
  it("finds linked assets once each, decoded, without query or fragment, never leaving the directory", () => {
    const md = [
      "![a](assets/a%20b-1.png) [p](assets/p.pdf?v=2#x) ![again](assets/a%20b-1.png)",
      '<img src="assets/c.svg"> [angle](<assets/d e.txt>) [abs](/assets/e.png)',
      "[up](assets/../conf/conf.json) [web](https://x.test/assets/f.png) `assets/g.png`",
    ].join("\n");
    expect(assetLinks(md)).toEqual([
      "assets/a b-1.png",
      "assets/p.pdf",
      "assets/c.svg",
      "assets/d e.txt",
      "assets/e.png",
    ]);
  });
});

describe("exports without an output sink (the kernel's runtime)", () => {
  const h = useHarness();

  it("export_resources answers the zip's download manifest, runs once and writes nothing else", async () => {
    await h.client.asset.upload({
      files: [{ filename: "zip-me.txt", bytes: new TextEncoder().encode("zip me") }],
      assetsDirPath: "/assets/",
    });
    const before = h.writes(EXPORT);
    const r = await h.call("file", {
      action: "export_resources",
      paths: ["data/assets"],
      outputPath: "/tmp/out.zip",
    });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      status: "executed",
      writeSafetyGuaranteed: false,
      reason: "external_side_effect",
    });
    const manifest = parseDownloadManifest(r.structuredContent["result"]);
    expect(manifest).toMatchObject({ layout: "file", outputPath: "/tmp/out.zip" });
    const url = (manifest?.files[0] as { url: string } | undefined)?.url;
    expect(url).toMatch(/^\/export\/[0-9a-f]{32}-export-.+\.zip$/);
    expect(h.writes(EXPORT)).toBe(before + 1);
    const zip = await fetch(`${h.sandbox.url}${url}`, {
      headers: { authorization: `Token ${h.sandbox.token}` },
    });
    expect(zip.status).toBe(200);
    expect(
      Buffer.from(await zip.arrayBuffer())
        .subarray(0, 2)
        .toString("latin1"),
    ).toBe("PK");
  });

  it("extract_doc answers the Markdown inline and each linked asset's URL", async () => {
    const id = h.sandbox.control.external.createDoc(
      h.notebook,
      "/Manifest doc",
      "See ![x](assets/x%201.png) and [y](assets/sub/y.pdf).",
    );
    const r = await h.call("file", { action: "extract_doc", id, outputPath: "/tmp/doc" });
    const manifest = parseDownloadManifest(r.structuredContent["result"]);
    const md = (await h.client.export.exportMdContent({ id })).content;
    expect(manifest?.files).toEqual([
      { path: "Manifest doc.md", text: md, size: Buffer.byteLength(md) },
      { path: "assets/x 1.png", url: "/assets/x%201.png" },
      { path: "assets/sub/y.pdf", url: "/assets/sub/y.pdf" },
    ]);
  });

  it("refuses validateOnly, an unknown document and a notebook it may not read, with no export", async () => {
    const before = [h.writes(EXPORT), h.writes(EXPORT_MD)];
    const pre = await h.call("file", {
      action: "export_resources",
      paths: ["data/assets"],
      outputPath: "/tmp/x.zip",
      validateOnly: true,
    });
    expect(errorCode(pre)).toBe("preflight_unavailable");
    const missing = await h.call("file", {
      action: "export_resources",
      paths: ["data/no-such-folder"],
      outputPath: "/tmp/x.zip",
    });
    expect(errorCode(missing)).toBe("kernel_error");
    const unknown = await h.call("file", {
      action: "extract_doc",
      id: "20990101000000-nosuch1",
      outputPath: "/tmp/d",
    });
    expect(errorCode(unknown)).toBe("not_found");
    expect(h.writes(EXPORT)).toBe((before[0] as number) + 1);
    h.permissions = { default: "delete", notebooks: { [h.notebook]: "none" } };
    try {
      const id = h.sandbox.control.external.createDoc(h.notebook, "/Secret", "s");
      const denied = await h.call("file", { action: "extract_doc", id, outputPath: "/tmp/s" });
      expect(errorCode(denied)).toBe("permission_denied");
      expect(h.writes(EXPORT_MD)).toBe((before[1] as number) + 1);
    } finally {
      h.permissions = { default: "delete" };
    }
  });
});

describe("exports through an output sink", () => {
  const h = useHarness();
  /** A sink that refuses at `check`, or fails at `save` as a writer over its limit would. */
  function runtimeWith(sink: OutputSink) {
    return createToolRuntime({ client: h.client, coordinator: h.coordinator, outputs: sink });
  }
  const args = { action: "export_resources", paths: ["data/assets"], outputPath: "/out/r.zip" };

  it("a destination the sink refuses costs no kernel call", async () => {
    const before = h.writes(EXPORT);
    const r = await runtimeWith({
      check: async () => ({ error: "already_exists", message: "there", details: {} }),
      save: async () => {
        throw new Error("never saved");
      },
    }).callTool("file", args);
    expect(errorCode(r)).toBe("already_exists");
    expect(h.writes(EXPORT)).toBe(before);
  });

  it("a save that fails after the kernel's export answers the sink's typed error, not an unknown outcome", async () => {
    await h.client.asset.upload({
      files: [{ filename: "sink.txt", bytes: new TextEncoder().encode("sink") }],
      assetsDirPath: "/assets/",
    });
    const before = h.writes(EXPORT);
    const r = await runtimeWith({
      check: async () => undefined,
      save: async (plan) => ({
        error: "output_too_large",
        message: "too big",
        details: { limit: 1, size: 2, url: (plan.files[0] as { url: string }).url },
      }),
    }).callTool("file", args);
    expect(errorCode(r)).toBe("output_too_large");
    expect(r.structuredContent["error"]).toMatchObject({ limit: 1, writeAttempted: false });
    expect(h.writes(EXPORT)).toBe(before + 1);
  });
});

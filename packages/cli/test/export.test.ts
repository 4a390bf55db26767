/**
 * `sisyphus file extract-doc` with the kernel plugin as the authority (built `package.zip` in the
 * sandbox's plugin host): the plugin answers a download manifest, and the CLI saves the Markdown and
 * the linked asset into a new directory through the authenticated SiYuan API, reporting full
 * SHA-256 digests; an existing destination is refused before the kernel exports anything.
 * `export-resources` saves the kernel's zip the same way.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { EXPORT_MAX_BYTES } from "@sisyphus/mcp-tools";
import type { Sandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxWithPlugin } from "../../kernel-plugin/test/harness.js";
import {
  cli,
  doc,
  errorCode,
  inTerminal,
  killAuthorities,
  scene,
  start,
  tempDir,
} from "./harness.js";

let sb: Sandbox;
const bytes = Buffer.from("an attachment\n");
/** The asset both tests export (relative to data/). */
let asset: string;
beforeAll(async () => {
  sb = await sandboxWithPlugin();
  const form = new FormData();
  form.set("assetsDirPath", "/assets/");
  form.append("file[]", new Blob([bytes]), "att.txt");
  const up = (await (
    await fetch(`${sb.url}/api/asset/upload`, {
      method: "POST",
      headers: { authorization: `Token ${sb.token}` },
      body: form,
    })
  ).json()) as { data: { succMap: Record<string, string> } };
  asset = Object.values(up.data.succMap)[0] as string;
});
afterAll(async () => {
  killAuthorities();
  await sb.stop();
});

describe("file extract-doc with the kernel plugin as the authority", () => {
  it("saves the document and its asset locally, and refuses an existing directory", async () => {
    const notebook = "20260101120000-nbresch";
    const id = sb.control.external.createDoc(notebook, "/CLI export", `See [att](${asset}).`);
    const s = scene(sb);
    const out = join(tempDir(), "doc");

    const run = await cli(s, ["file", "extract-doc", "--id", id, "--output-path", out, "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const result = doc(run).result["result"] as Record<string, unknown>;
    expect(result).toMatchObject({ delivery: "saved", layout: "directory", outputPath: out });
    expect(readFileSync(join(out, asset))).toEqual(bytes);
    const files = result["files"] as Array<{ path: string; sha256: string }>;
    expect(files.find((f) => f.path === asset)?.sha256).toBe(
      createHash("sha256").update(bytes).digest("hex"),
    );

    const exports = sb.control.count("/api/export/exportMdContent");
    const existing = join(tempDir(), "there");
    mkdirSync(existing);
    const again = await cli(s, [
      "file",
      "extract-doc",
      "--id",
      id,
      "--output-path",
      existing,
      "--json",
    ]);
    expect(errorCode(again)).toBe("already_exists");
    expect(sb.control.count("/api/export/exportMdContent")).toBe(exports);
    expect(readdirSync(existing)).toEqual([]);
  });

  it("saves the resource zip with export-resources and reports the file's SHA-256", async () => {
    const s = scene(sb);
    const out = join(tempDir(), "resources.zip");
    const run = await cli(s, [
      "file",
      "export-resources",
      "--paths",
      "data/assets",
      "--output-path",
      out,
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const result = doc(run).result["result"] as Record<string, unknown>;
    const zip = readFileSync(out);
    expect(zip.subarray(0, 2).toString("latin1")).toBe("PK");
    expect(result).toMatchObject({
      delivery: "saved",
      size: zip.length,
      sha256: createHash("sha256").update(zip).digest("hex"),
    });
  });

  it("shows each download's progress on a terminal", async () => {
    const s = scene(sb);
    const out = join(tempDir(), "shown.zip");
    const args = ["file", "export-resources", "--paths", "data/assets", "--output-path", out];
    const tty = await inTerminal(s, args);
    expect(tty.code, tty.screen).toBe(0);
    expect(tty.screen).toMatch(/Downloaded \S+\.zip \(\d+(\.\d)? (B|KiB|MiB)\)/);
  });

  it("Ctrl-C during a download stops it, removes its partial output and keeps sibling files (exit 130)", async () => {
    const id = sb.control.external.createDoc(
      "20260101120000-nbresch",
      "/CLI interrupted",
      `See [att](${asset}).`,
    );
    const s = scene(sb);
    const parent = tempDir();
    writeFileSync(join(parent, "sibling.txt"), "kept");
    const out = join(parent, "doc");
    const get = `/${asset}`;
    const gets = sb.control.count(get);
    // The Markdown is saved; the asset's download is held, so the call waits mid-download.
    sb.control.armFault({ endpoint: get, kind: "delay", delayMs: 5_000 });
    const run = start(s, ["file", "extract-doc", "--id", id, "--output-path", out, "--json"]);
    await waitFor(() => sb.control.count(get) > gets && existsSync(out), {
      what: "the asset's download",
    });
    run.child.kill("SIGINT");
    const done = await run.done;
    expect(done.code, done.stdout + done.stderr).toBe(130);
    expect(done.stderr).toMatch(/kernel call has ended \(completed\)/);
    expect(doc(done).result["error"]).toMatchObject({
      code: "output_failed",
      reason: "cancelled",
      writeAttempted: false,
    });
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(parent)).toEqual(["sibling.txt"]);
  });

  it("refuses a download announced over the 512 MiB limit before saving anything", async () => {
    // A proxy in front of the kernel that announces an oversized zip (only its length is sent).
    const proxy = createServer((req, res) => {
      if (req.method === "GET" && req.url?.startsWith("/export/") === true) {
        res.writeHead(200, { "content-length": String(EXPORT_MAX_BYTES + 1) });
        res.write("PK");
        return;
      }
      const upstream = request(
        `${sb.url}${req.url ?? "/"}`,
        { method: req.method, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    try {
      const s = scene({
        url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        token: sb.token,
      });
      const parent = tempDir();
      const out = join(parent, "big.zip");
      const run = await cli(s, [
        "file",
        "export-resources",
        "--paths",
        "data/assets",
        "--output-path",
        out,
        "--json",
      ]);
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(doc(run).result["error"]).toMatchObject({
        code: "output_too_large",
        limit: EXPORT_MAX_BYTES,
        writeAttempted: false,
      });
      expect(readdirSync(parent)).toEqual([]);
    } finally {
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }
  });
});

/**
 * `sisyphus file extract-doc` with the kernel plugin as the authority (built `package.zip` in the
 * sandbox's plugin host): the plugin answers a download manifest, and the CLI saves the Markdown and
 * the linked asset into a new directory through the authenticated SiYuan API, reporting full
 * SHA-256 digests; an existing destination is refused before the kernel exports anything.
 * `export-resources` saves the kernel's zip the same way.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxWithPlugin } from "../../kernel-plugin/test/harness.js";
import { cli, doc, errorCode, inTerminal, killAuthorities, scene, tempDir } from "./harness.js";

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
});

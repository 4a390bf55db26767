/**
 * `sisyphus file upload-asset --local-file-path` with the kernel plugin as the authority (built
 * `package.zip` in the sandbox's plugin host): the CLI stages the file at the plugin's
 * `/transfer/lookup` and `/transfer/upload`, the preflight prints the handle and the commit
 * command, and that command uploads the file's bytes as an asset.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  KERNEL_TRANSFER_LOOKUP_PATH,
  KERNEL_TRANSFER_UPLOAD_PATH,
} from "@sisyphus/mcp-tools/settings";
import type { Sandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxWithPlugin } from "../../kernel-plugin/test/harness.js";
import { cli, doc, inTerminal, killAuthorities, scene, start, tempDir, words } from "./harness.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await sandboxWithPlugin();
});
afterAll(async () => {
  killAuthorities();
  await sb.stop();
});

/** The bytes the kernel holds at a workspace path. */
async function kernelFile(path: string): Promise<Buffer> {
  const res = await fetch(`${sb.url}/api/file/getFile`, {
    method: "POST",
    headers: { authorization: `Token ${sb.token}`, "content-type": "application/json" },
    body: JSON.stringify({ path }),
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe("file upload-asset with the kernel plugin as the authority", () => {
  it("stages the local file, prints the commit command, and that command uploads the file's bytes", async () => {
    const s = scene(sb);
    const path = join(tempDir(), "chart.png");
    const bytes = randomBytes(64 * 1024);
    writeFileSync(path, bytes);
    const p = await cli(s, [
      "file",
      "upload-asset",
      "--local-file-path",
      path,
      "--validate-only",
      "--json",
    ]);
    expect(p.code, p.stderr).toBe(0);
    const preflight = doc(p);
    expect(preflight.result["uploadSource"]).toMatch(/^stg_[0-9a-f]{32}$/);
    expect(preflight.next).toContain("--local-file-path");
    const uploads = sb.control.count(KERNEL_TRANSFER_UPLOAD_PATH);
    const lookups = sb.control.count(KERNEL_TRANSFER_LOOKUP_PATH);

    const commit = await cli(s, [...words(preflight.next as string).slice(1), "--json"]);
    expect(commit.code, commit.stderr).toBe(0);
    const result = doc(commit).result;
    expect(result["status"], JSON.stringify(result)).toBe("committed");
    // The commit found the staged bytes by lookup and sent nothing again.
    expect(sb.control.count(KERNEL_TRANSFER_LOOKUP_PATH)).toBe(lookups + 1);
    expect(sb.control.count(KERNEL_TRANSFER_UPLOAD_PATH)).toBe(uploads);
    expect((await kernelFile(`/data/${String(result["assetPath"])}`)).equals(bytes)).toBe(true);
  });

  it("shows the upload's progress on a terminal, and none in a pipe", async () => {
    const s = scene(sb);
    const path = join(tempDir(), "scan.pdf");
    writeFileSync(path, randomBytes(300 * 1024));
    const args = ["file", "upload-asset", "--local-file-path", path, "--validate-only"];
    const tty = await inTerminal(s, args);
    expect(tty.code, tty.screen).toBe(0);
    expect(tty.screen).toMatch(/Uploaded scan\.pdf \(300\.0 KiB\)/);
    const piped = await cli(s, args);
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toMatch(/Upload/);
  });

  it("Ctrl-C while the file is staged stops the staging and sends no call (exit 130)", async () => {
    const s = scene(sb);
    const path = join(tempDir(), "held.bin");
    writeFileSync(path, randomBytes(32 * 1024));
    const route = "/plugin/private/siyuan-plugins-mcp-sisyphus/mcp";
    const calls = sb.control.count(route);
    const uploads = sb.control.count(KERNEL_TRANSFER_UPLOAD_PATH);
    sb.control.armFault({ endpoint: KERNEL_TRANSFER_UPLOAD_PATH, kind: "delay", delayMs: 5_000 });
    const run = start(s, ["file", "upload-asset", "--local-file-path", path, "--json"]);
    await waitFor(() => sb.control.count(KERNEL_TRANSFER_UPLOAD_PATH) > uploads, {
      what: "the upload to the staging area",
    });
    run.child.kill("SIGINT");
    const done = await run.done;
    expect(done.stderr).toMatch(/has not reached the kernel yet/);
    expect(done.code, done.stdout).toBe(130);
    expect(doc(done).result).toMatchObject({
      writeAttempted: false,
      error: { code: "cancelled" },
    });
    expect(sb.control.count(route)).toBe(calls);
  });
});

/**
 * file.upload_asset at the Node authority: the local file reader on its own (absolute paths only,
 * regular files only, symlinks followed, the cap checked on the open handle before reading), and
 * one strict upload end to end through the built server with the official MCP client.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UPLOAD_ASSET_MAX_BYTES } from "@sisyphus/mcp-tools";
import { createSiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import { describe, expect, it } from "vitest";
import { localFileSourceReader } from "../src/local-source.js";
import { errorCode, httpClient, sc, sharedDemoAuthority, tempDataDir } from "./harness.js";

const UPLOAD = "/api/asset/upload";
const reader = localFileSourceReader();
const read = (localFilePath: string, maxBytes = UPLOAD_ASSET_MAX_BYTES) =>
  reader.read({ localFilePath }, { maxBytes });

/** A fresh directory holding one file per test. */
function workDir(): string {
  const dir = join(tempDataDir(), "files");
  mkdirSync(dir);
  return dir;
}

describe("the Node authority's local file reader", () => {
  it("reads a regular file at an absolute path, named by its base name", async () => {
    const dir = workDir();
    writeFileSync(join(dir, "notes.txt"), "some notes\n");
    const r = await read(join(dir, "notes.txt"));
    expect(r).toEqual({
      bytes: new Uint8Array(Buffer.from("some notes\n")),
      fileName: "notes.txt",
    });
  });

  it("follows a symbolic link and keeps the link's name", async () => {
    const dir = workDir();
    writeFileSync(join(dir, "target.bin"), "linked bytes");
    symlinkSync(join(dir, "target.bin"), join(dir, "link.bin"));
    const r = await read(join(dir, "link.bin"));
    expect(r).toEqual({ bytes: new Uint8Array(Buffer.from("linked bytes")), fileName: "link.bin" });
  });

  it("refuses relative paths, directories, FIFOs and missing files with typed errors", async () => {
    const dir = workDir();
    mkdirSync(join(dir, "sub"));
    execFileSync("mkfifo", [join(dir, "pipe")]);
    expect(await read("files/notes.txt")).toMatchObject({ error: "invalid_arguments" });
    expect(await read(join(dir, "sub"))).toMatchObject({
      error: "invalid_arguments",
      message: expect.stringMatching(/is a directory/),
    });
    // Opened non-blocking, so a FIFO without a writer does not hang the call.
    expect(await read(join(dir, "pipe"))).toMatchObject({
      error: "invalid_arguments",
      message: expect.stringMatching(/not a regular file/),
    });
    expect(await read(join(dir, "missing.txt"))).toMatchObject({ error: "not_found" });
    expect(await read(join(dir, "missing", "deeper.txt"))).toMatchObject({ error: "not_found" });
  });

  it("refuses a file over the cap from its size, without reading it", async () => {
    const dir = workDir();
    writeFileSync(join(dir, "small.txt"), "0123456789abcdefX");
    expect(await read(join(dir, "small.txt"), 16)).toMatchObject({
      error: "source_too_large",
      size: 17,
    });
    expect(await read(join(dir, "small.txt"), 17)).toMatchObject({ fileName: "small.txt" });
    // A sparse file one byte over the real cap: refused from fstat, no 64 MiB read.
    truncateSync(join(dir, "small.txt"), UPLOAD_ASSET_MAX_BYTES + 1);
    expect(await read(join(dir, "small.txt"))).toMatchObject({
      error: "source_too_large",
      size: UPLOAD_ASSET_MAX_BYTES + 1,
    });
  });

  it("does not serve staging handles: those belong to the kernel plugin", async () => {
    expect(
      await reader.read({ uploadSource: "stage-1" }, { maxBytes: UPLOAD_ASSET_MAX_BYTES }),
    ).toMatchObject({ error: "source_unavailable" });
  });
});

describe("file.upload_asset through the Node server", () => {
  const shared = sharedDemoAuthority();

  it("uploads a local file once under the strict protocol; the replay answers from the ledger", async () => {
    const dir = workDir();
    const path = join(dir, "diagram.svg");
    const bytes = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>\n');
    writeFileSync(path, bytes);
    const client = await httpClient(shared.authority.url, { era: "modern" });
    const kernel = createSiyuanClient({
      transport: undiciTransport({ baseUrl: shared.sandbox.url, token: shared.sandbox.token }),
    });
    try {
      const args = { action: "upload_asset", localFilePath: path };
      const uploads = shared.sandbox.control.count(UPLOAD);
      const pre = sc(
        await client.callTool({ name: "file", arguments: { ...args, validateOnly: true } }),
      );
      expect(pre["preconditionField"], JSON.stringify(pre)).toBe("expectedSourceHash");
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      expect(pre["source"]).toEqual({ fileName: "diagram.svg", size: bytes.length, sha256 });
      const commitArgs = {
        ...args,
        requestId: pre["requestId"],
        expectedSourceHash: pre["expectedSourceHash"],
      };

      const commit = await client.callTool({ name: "file", arguments: commitArgs });
      const c = sc(commit);
      expect(c["status"], JSON.stringify(c)).toBe("committed");
      expect(c["sha256"]).toBe(sha256);
      expect(shared.sandbox.control.count(UPLOAD)).toBe(uploads + 1);
      const stored = await kernel.file.getFile({ path: `/data/${String(c["assetPath"])}` });
      expect(stored && Buffer.from(stored.bytes).equals(bytes)).toBe(true);

      const replay = sc(await client.callTool({ name: "file", arguments: commitArgs }));
      expect(replay).toMatchObject({
        status: "committed",
        replayed: true,
        executedNow: false,
        assetPath: c["assetPath"],
      });
      expect(shared.sandbox.control.count(UPLOAD)).toBe(uploads + 1);

      // The same path with other bytes after a new preflight: state_changed, nothing uploaded.
      const again = sc(
        await client.callTool({ name: "file", arguments: { ...args, validateOnly: true } }),
      );
      writeFileSync(path, "changed after preflight");
      const changed = await client.callTool({
        name: "file",
        arguments: {
          ...args,
          requestId: again["requestId"],
          expectedSourceHash: again["expectedSourceHash"],
        },
      });
      expect(errorCode(changed)).toBe("state_changed");
      expect(shared.sandbox.control.count(UPLOAD)).toBe(uploads + 1);
    } finally {
      await client.close();
      await kernel.close();
    }
  });

  it("refuses a relative path and a file over the cap before any kernel write", async () => {
    const dir = workDir();
    const big = join(dir, "big.bin");
    writeFileSync(big, "");
    truncateSync(big, UPLOAD_ASSET_MAX_BYTES + 1);
    const client = await httpClient(shared.authority.url, { era: "modern" });
    try {
      const uploads = shared.sandbox.control.count(UPLOAD);
      const relative = await client.callTool({
        name: "file",
        arguments: { action: "upload_asset", localFilePath: "big.bin", validateOnly: true },
      });
      expect(errorCode(relative)).toBe("invalid_arguments");
      const tooLarge = await client.callTool({
        name: "file",
        arguments: { action: "upload_asset", localFilePath: big, validateOnly: true },
      });
      expect(errorCode(tooLarge)).toBe("source_too_large");
      expect(sc(tooLarge)["error"]).toMatchObject({ limit: UPLOAD_ASSET_MAX_BYTES });
      expect(shared.sandbox.control.count(UPLOAD)).toBe(uploads);
    } finally {
      await client.close();
    }
  });
});

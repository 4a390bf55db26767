/**
 * `file.upload_asset(localFilePath)` with the kernel plugin as the authority (spec "Kernel file
 * transfer"): the stdio server stages the file at the plugin's `/transfer/lookup` and
 * `/transfer/upload`, then runs preflight and commit with the returned `uploadSource`. The built
 * plugin zip runs in the sandbox's plugin host; the official MCP client drives the server.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import {
  KERNEL_STAGING_FILE_MAX_BYTES,
  KERNEL_TRANSFER_LOOKUP_PATH,
  KERNEL_TRANSFER_UPLOAD_PATH,
  PLUGIN_NAME,
} from "@sisyphus/mcp-tools/settings";
import { createSiyuanClient, type SiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import { type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STAGING_BUSY_ATTEMPTS } from "../src/kernel-staging.js";
import { errorCode, killAll, PLUGIN_PACKAGE_ZIP, sc, stdioClient, tempDataDir } from "./harness.js";

const ASSET_UPLOAD = "/api/asset/upload";
const MIB = 1024 * 1024;

let sandbox: Sandbox;
let files: SiyuanClient;
let client: Client;

/** Requests the sandbox saw to the staging endpoints and the kernel's asset upload. */
function counts() {
  const c = sandbox.control;
  return {
    lookup: c.count(KERNEL_TRANSFER_LOOKUP_PATH),
    upload: c.count(KERNEL_TRANSFER_UPLOAD_PATH),
    asset: c.count(ASSET_UPLOAD),
  };
}

/** A new file of `bytes` under a fresh directory; its absolute path. */
function localFile(name: string, bytes: Uint8Array): string {
  const dir = join(tempDataDir(), "files");
  mkdirSync(dir);
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function upload(args: Record<string, unknown>) {
  return client.callTool({ name: "file", arguments: { action: "upload_asset", ...args } });
}

/** Stages `bytes` directly (as a direct client would), to fill the staging area. */
async function stageDirectly(name: string, bytes: Uint8Array): Promise<Response> {
  return fetch(`${sandbox.url}${KERNEL_TRANSFER_UPLOAD_PATH}`, {
    method: "POST",
    headers: {
      authorization: `Token ${sandbox.token}`,
      "content-type": "application/octet-stream",
      "x-sisyphus-file-name": encodeURIComponent(name),
    },
    body: bytes,
  });
}

beforeAll(async () => {
  sandbox = await startSandbox({ seed: "demo", plugins: [PLUGIN_PACKAGE_ZIP] });
  files = createSiyuanClient({
    transport: undiciTransport({ baseUrl: sandbox.url, token: sandbox.token }),
  });
  await files.file.putFile({
    path: `/data/storage/petal/${PLUGIN_NAME}/settings.json`,
    file: JSON.stringify({ kernelEndpointEnabled: true }),
  });
  client = await stdioClient({
    era: "modern",
    dataDir: tempDataDir(),
    siyuanUrl: sandbox.url,
    siyuanToken: sandbox.token,
  });
});
afterAll(async () => {
  await client?.close();
  await killAll();
  await files?.close();
  await sandbox?.stop();
});

describe("upload_asset(localFilePath) through a Node front of the kernel authority", () => {
  it("stages once, returns the handle with the preflight, commits the file's bytes, and replays without the file", async () => {
    const bytes = randomBytes(300 * 1024);
    const path = localFile("photo 1.png", bytes);
    const before = counts();

    const pre = await upload({ localFilePath: path, validateOnly: true });
    const p = sc(pre);
    expect(p["preconditionField"], JSON.stringify(p)).toBe("expectedSourceHash");
    expect(p["uploadSource"]).toMatch(/^stg_[0-9a-f]{32}$/);
    expect(Date.parse(String(p["uploadSourceExpiresAt"]))).toBeGreaterThan(Date.now());
    expect(p["source"]).toEqual({
      fileName: "photo 1.png",
      size: bytes.length,
      sha256: sha256(bytes),
    });
    // The text content says the same as the structured content.
    const text = (pre.content as Array<{ type: string; text: string }>)[0]?.text ?? "";
    expect(JSON.parse(text)).toEqual(p);
    expect(counts()).toEqual({
      lookup: before.lookup + 1,
      upload: before.upload + 1,
      asset: before.asset,
    });

    // The commit names the local file again: the lookup finds the same bytes, nothing is uploaded again.
    const commitArgs = {
      localFilePath: path,
      requestId: p["requestId"],
      expectedSourceHash: p["expectedSourceHash"],
    };
    const c = sc(await upload(commitArgs));
    expect(c["status"], JSON.stringify(c)).toBe("committed");
    expect(c["sha256"]).toBe(sha256(bytes));
    expect(counts()).toEqual({
      lookup: before.lookup + 2,
      upload: before.upload + 1,
      asset: before.asset + 1,
    });
    const stored = await files.file.getFile({ path: `/data/${String(c["assetPath"])}` });
    expect(stored && Buffer.from(stored.bytes).equals(bytes)).toBe(true);
    // The asset keeps the local file's name (the kernel adds its own suffix).
    expect(String(c["assetPath"])).toMatch(/^assets\/photo.*\.png$/);

    // The replay needs no local file: the handle from the preflight names the same call.
    rmSync(path);
    const replay = sc(
      await upload({
        uploadSource: p["uploadSource"],
        requestId: p["requestId"],
        expectedSourceHash: p["expectedSourceHash"],
      }),
    );
    expect(replay).toMatchObject({
      status: "committed",
      replayed: true,
      executedNow: false,
      assetPath: c["assetPath"],
    });
    expect(counts().asset).toBe(before.asset + 1);
  });

  it("a file changed between preflight and commit answers state_changed, and nothing is staged or written", async () => {
    const path = localFile("notes.txt", Buffer.from("first version\n"));
    const p = sc(await upload({ localFilePath: path, validateOnly: true }));
    expect(p["uploadSource"], JSON.stringify(p)).toMatch(/^stg_/);
    writeFileSync(path, "second version, changed after preflight\n");
    const before = counts();
    const changed = await upload({
      localFilePath: path,
      requestId: p["requestId"],
      expectedSourceHash: p["expectedSourceHash"],
    });
    expect(errorCode(changed), JSON.stringify(sc(changed))).toBe("state_changed");
    expect(sc(changed)["error"]).toMatchObject({
      writeAttempted: false,
      details: { reason: "source_changed", expectedHash: p["expectedSourceHash"] },
    });
    // The kernel decided it in the lookup (its alias pool): nothing was uploaded or written.
    expect(counts()).toEqual({ ...before, lookup: before.lookup + 1 });
    // A new preflight stages the new content under a new handle and commits it.
    const again = sc(await upload({ localFilePath: path, validateOnly: true }));
    expect(again["uploadSource"]).not.toBe(p["uploadSource"]);
    const c = sc(
      await upload({
        localFilePath: path,
        requestId: again["requestId"],
        expectedSourceHash: again["expectedSourceHash"],
      }),
    );
    expect(c["status"], JSON.stringify(c)).toBe("committed");
  });

  it("a changed file whose digest starts with the credential's digits is state_changed, and currentHash is the kernel's alias of the new bytes", async () => {
    const first = randomBytes(64);
    const path = localFile("prefix.bin", first);
    const p = sc(await upload({ localFilePath: path, validateOnly: true }));
    const expected = String(p["expectedSourceHash"]);
    const hex = expected.replace(/^sha256:v1:/, "");
    expect(hex.length, JSON.stringify(p)).toBeLessThanOrEqual(5);
    // Other bytes whose SHA-256 begins with the credential's hex digits: a prefix comparison
    // would take them for the leased file.
    let second = randomBytes(64);
    while (!sha256(second).startsWith(hex) || second.equals(first)) second = randomBytes(64);
    writeFileSync(path, second);
    const before = counts();
    const changed = await upload({
      localFilePath: path,
      requestId: p["requestId"],
      expectedSourceHash: expected,
    });
    expect(errorCode(changed), JSON.stringify(sc(changed))).toBe("state_changed");
    const details = (sc(changed)["error"] as { details: Record<string, unknown> }).details;
    expect(details).toMatchObject({ reason: "source_changed", expectedHash: expected });
    expect(details["currentHash"]).not.toBe(expected);
    expect(counts()).toEqual({ ...before, lookup: before.lookup + 1 });
    // The kernel's pool already holds currentHash for the new bytes: their preflight answers the
    // very same alias (longer than the credential, whose digits belong to the first bytes).
    const again = sc(await upload({ localFilePath: path, validateOnly: true }));
    expect(again["source"]).toMatchObject({ sha256: sha256(second) });
    expect(again["expectedSourceHash"]).toBe(details["currentHash"]);
    const c = sc(
      await upload({
        localFilePath: path,
        requestId: again["requestId"],
        expectedSourceHash: again["expectedSourceHash"],
      }),
    );
    expect(c["status"], JSON.stringify(c)).toBe("committed");
    expect(c["sha256"]).toBe(sha256(second));
  });

  it("refuses a file above the kernel's staging cap, and bad paths, without a request to /transfer/*", async () => {
    const big = localFile("big.bin", new Uint8Array(0));
    truncateSync(big, KERNEL_STAGING_FILE_MAX_BYTES + 1);
    const before = counts();
    const tooLarge = await upload({ localFilePath: big, validateOnly: true });
    expect(errorCode(tooLarge)).toBe("source_too_large");
    const e = sc(tooLarge)["error"] as Record<string, unknown>;
    expect(e).toMatchObject({
      limit: 10 * MIB,
      size: 10 * MIB + 1,
      reason: "kernel_staging_cap",
      writeAttempted: false,
    });
    expect(String(e["message"])).toMatch(/Node coordinator/);
    expect(errorCode(await upload({ localFilePath: "big.bin", validateOnly: true }))).toBe(
      "invalid_arguments",
    );
    expect(errorCode(await upload({ localFilePath: `${big}.missing`, validateOnly: true }))).toBe(
      "not_found",
    );
    expect(counts()).toEqual(before);
  });

  it("answers write_coordinator_unavailable while the plugin is not serving, with nothing sent", async () => {
    const path = localFile("offline.txt", Buffer.from("plugin off\n"));
    const petals = "/data/storage/petal/petals.json";
    await files.file.putFile({
      path: petals,
      file: JSON.stringify([{ name: PLUGIN_NAME, enabled: false }]),
    });
    await sandbox.plugins.reload(PLUGIN_NAME);
    try {
      const before = counts();
      const off = await upload({ localFilePath: path, validateOnly: true });
      expect(errorCode(off), JSON.stringify(sc(off))).toBe("write_coordinator_unavailable");
      expect(sc(off)).toMatchObject({ writeAttempted: false, error: { reason: "not_serving" } });
      // The lookup was refused by the kernel's plugin route: no upload, no business call.
      expect(counts()).toEqual({ ...before, lookup: before.lookup + 1 });
    } finally {
      await files.file.putFile({
        path: petals,
        file: JSON.stringify([{ name: PLUGIN_NAME, enabled: true }]),
      });
      await sandbox.plugins.reload(PLUGIN_NAME);
    }
  });

  it("retries a busy staging area a few times, then answers write_coordinator_unavailable", async () => {
    const path = localFile("busy.txt", Buffer.from(`busy ${Date.now()}\n`));
    const before = counts();
    sandbox.control.armFault({
      endpoint: KERNEL_TRANSFER_UPLOAD_PATH,
      kind: "http5xx",
      status: 429,
      times: 2,
    });
    const pre = sc(await upload({ localFilePath: path, validateOnly: true }));
    expect(pre["uploadSource"], JSON.stringify(pre)).toMatch(/^stg_/);
    expect(counts().upload).toBe(before.upload + 3);

    const other = localFile("busy2.txt", Buffer.from(`still busy ${Date.now()}\n`));
    sandbox.control.armFault({
      endpoint: KERNEL_TRANSFER_UPLOAD_PATH,
      kind: "http5xx",
      status: 429,
      times: "always",
    });
    try {
      const busy = await upload({ localFilePath: other, validateOnly: true });
      expect(errorCode(busy)).toBe("write_coordinator_unavailable");
      expect(sc(busy)).toMatchObject({
        writeAttempted: false,
        error: { reason: "staging_busy" },
      });
      expect(counts().upload).toBe(before.upload + 3 + STAGING_BUSY_ATTEMPTS);
    } finally {
      sandbox.control.clearFaults();
    }
  });

  it("a full staging area answers write_coordinator_unavailable with the kernel's Retry-After", async () => {
    // A reload empties the staging area; then 32 MiB fill it to its total cap.
    await sandbox.plugins.reload(PLUGIN_NAME);
    try {
      for (const [name, size] of [
        ["fill-1.bin", 10 * MIB],
        ["fill-2.bin", 10 * MIB],
        ["fill-3.bin", 10 * MIB],
        ["fill-4.bin", 2 * MIB],
      ] as const) {
        expect((await stageDirectly(name, randomBytes(size))).status).toBe(200);
      }
      const path = localFile("late.txt", Buffer.from("no room for me\n"));
      const before = counts();
      const full = await upload({ localFilePath: path, validateOnly: true });
      expect(errorCode(full), JSON.stringify(sc(full))).toBe("write_coordinator_unavailable");
      expect(sc(full)).toMatchObject({ writeAttempted: false, error: { reason: "staging_full" } });
      const retryAfterMs = (sc(full)["error"] as { retryAfterMs?: number }).retryAfterMs ?? 0;
      expect(retryAfterMs).toBeGreaterThan(60_000);
      expect(counts()).toMatchObject({ upload: before.upload + 1, asset: before.asset });
    } finally {
      await sandbox.plugins.reload(PLUGIN_NAME);
    }
  });
});

/**
 * file.upload_asset at the kernel authority: the built plugin resolves `uploadSource` handles of
 * its staging area (staged through `/transfer/upload`), uploads once under the strict protocol and
 * verifies the stored asset; `localFilePath` and unknown handles are typed refusals.
 */
import { createHash } from "node:crypto";
import { createSiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import { describe, expect, it } from "vitest";
import { kernelClient, routeOf, sc, useSandboxWithPlugin } from "./harness.js";

const UPLOAD = "/api/asset/upload";
const box = useSandboxWithPlugin();

/** Stages `bytes` as `name` through the plugin's raw transfer route; returns the handle. */
async function stage(name: string, bytes: Uint8Array): Promise<string> {
  const res = await fetch(routeOf(box.current, "/transfer/upload"), {
    method: "POST",
    headers: {
      authorization: `Token ${box.current.token}`,
      "content-type": "application/octet-stream",
      "x-sisyphus-file-name": encodeURIComponent(name),
    },
    body: bytes,
  });
  const body = (await res.json()) as { uploadSource?: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.uploadSource as string;
}

describe("file.upload_asset at the kernel authority", () => {
  it("uploads a staged file once; the asset holds its bytes and the replay answers from the ledger", async () => {
    const bytes = new TextEncoder().encode("staged in the kernel\n");
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const uploadSource = await stage("staged.txt", bytes);
    const client = await kernelClient(box.current);
    const kernel = createSiyuanClient({
      transport: undiciTransport({ baseUrl: box.current.url, token: box.current.token }),
    });
    try {
      const args = { action: "upload_asset", uploadSource };
      const pre = sc(
        await client.callTool({ name: "file", arguments: { ...args, validateOnly: true } }),
      );
      expect(pre["preconditionField"], JSON.stringify(pre)).toBe("expectedSourceHash");
      expect(pre["source"]).toEqual({ fileName: "staged.txt", size: bytes.length, sha256 });
      const commitArgs = {
        ...args,
        requestId: pre["requestId"],
        expectedSourceHash: pre["expectedSourceHash"],
      };
      const uploads = box.current.control.count(UPLOAD);
      const commit = sc(await client.callTool({ name: "file", arguments: commitArgs }));
      expect(commit["status"], JSON.stringify(commit)).toBe("committed");
      expect(commit["sha256"]).toBe(sha256);
      expect(box.current.control.count(UPLOAD)).toBe(uploads + 1);
      const stored = await kernel.file.getFile({ path: `/data/${String(commit["assetPath"])}` });
      expect(stored && Buffer.from(stored.bytes).equals(Buffer.from(bytes))).toBe(true);

      const replay = sc(await client.callTool({ name: "file", arguments: commitArgs }));
      expect(replay).toMatchObject({
        status: "committed",
        replayed: true,
        executedNow: false,
        assetPath: commit["assetPath"],
      });
      expect(box.current.control.count(UPLOAD)).toBe(uploads + 1);
    } finally {
      await client.close();
      await kernel.close();
    }
  });

  it("refuses localFilePath (source_unavailable) and an unknown handle (not_found) before any write", async () => {
    const client = await kernelClient(box.current);
    try {
      const uploads = box.current.control.count(UPLOAD);
      const local = sc(
        await client.callTool({
          name: "file",
          arguments: { action: "upload_asset", localFilePath: "/tmp/a.txt", validateOnly: true },
        }),
      );
      expect(local["error"]).toMatchObject({ code: "source_unavailable" });
      expect(String((local["error"] as { message: string }).message)).toMatch(/uploadSource/);
      const unknown = sc(
        await client.callTool({
          name: "file",
          arguments: { action: "upload_asset", uploadSource: "stg_nope", validateOnly: true },
        }),
      );
      expect(unknown["error"]).toMatchObject({ code: "not_found" });
      expect(box.current.control.count(UPLOAD)).toBe(uploads);
    } finally {
      await client.close();
    }
  });
});

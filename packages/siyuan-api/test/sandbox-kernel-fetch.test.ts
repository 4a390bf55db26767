/** The kernel-fetch transport end to end against the sandbox (JSON, multipart, raw bytes, quirks). */
import type { Sandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SiyuanClient } from "../src/kernel.js";
import {
  failure,
  DEMO_IDS as I,
  kernelClientFor,
  startDemoSandbox,
  UNKNOWN_ID,
} from "./support/sandbox.js";

let sb: Sandbox;
let client: SiyuanClient;
beforeAll(async () => {
  sb = await startDemoSandbox();
  client = kernelClientFor(sb);
});
afterAll(async () => {
  await client.close();
  await sb.stop();
});

describe("kernel-fetch transport against the sandbox", () => {
  it("reads, writes and flushes like the undici transport", async () => {
    expect((await client.notebook.lsNotebooks()).notebooks.map((b) => b.id)).toContain(
      I.notebookResearch,
    );
    const tx = await client.block.appendBlock({
      dataType: "markdown",
      data: "from the kernel runtime",
      parentID: I.docReading,
    });
    const id = tx[0]!.doOperations[0]!.id;
    await client.flush();
    expect((await client.block.getBlockKramdown({ id }))?.kramdown).toContain(
      "from the kernel runtime",
    );
    expect(await client.block.getBlockKramdown({ id: UNKNOWN_ID })).toBeNull();
    expect(await client.attr.getBlockAttrs({ id: UNKNOWN_ID })).toBeNull();
    expect((await failure(client.block.getBlockInfo({ id: UNKNOWN_ID }))).code).toBe(
      "kernel_rejected",
    );
  });

  it("putFile (ArrayBuffer multipart) and getFile (raw bytes) round trip; missing → null", async () => {
    const bytes = Uint8Array.from({ length: 1024 }, (_, i) => (i * 7) % 256);
    await client.file.putFile({ path: "/data/storage/petal/kf/blob.bin", file: bytes });
    const got = await client.file.getFile({ path: "/data/storage/petal/kf/blob.bin" });
    expect(got && Array.from(got.bytes)).toEqual(Array.from(bytes));
    expect(await client.file.getFile({ path: "/data/storage/petal/kf/none.bin" })).toBeNull();
    expect(
      (await client.file.readDir({ path: "/data/storage/petal/kf" }))?.map((e) => e.name),
    ).toEqual(["blob.bin"]);
  });
});

/** The kernel-fetch transport end to end against the sandbox (JSON, multipart, raw bytes, quirks). */
import { describe, expect, it } from "vitest";
import {
  failure,
  DEMO_IDS as I,
  kernelClientFor,
  sharedDemoClient,
  UNKNOWN_ID,
} from "./support/sandbox.js";

const shared = sharedDemoClient(kernelClientFor);

describe("kernel-fetch transport against the sandbox", () => {
  it("reads, writes and flushes like the undici transport", async () => {
    expect((await shared.client.notebook.lsNotebooks()).notebooks.map((b) => b.id)).toContain(
      I.notebookResearch,
    );
    const tx = await shared.client.block.appendBlock({
      dataType: "markdown",
      data: "from the kernel runtime",
      parentID: I.docReading,
    });
    const id = tx[0]!.doOperations[0]!.id;
    await shared.client.flush();
    expect((await shared.client.block.getBlockKramdown({ id }))?.kramdown).toContain(
      "from the kernel runtime",
    );
    expect(await shared.client.block.getBlockKramdown({ id: UNKNOWN_ID })).toBeNull();
    expect(await shared.client.attr.getBlockAttrs({ id: UNKNOWN_ID })).toBeNull();
    expect((await failure(shared.client.block.getBlockInfo({ id: UNKNOWN_ID }))).code).toBe(
      "kernel_rejected",
    );
  });

  it("putFile (ArrayBuffer multipart) and getFile (raw bytes) round trip; missing → null", async () => {
    const bytes = Uint8Array.from({ length: 1024 }, (_, i) => (i * 7) % 256);
    await shared.client.file.putFile({ path: "/data/storage/petal/kf/blob.bin", file: bytes });
    const got = await shared.client.file.getFile({ path: "/data/storage/petal/kf/blob.bin" });
    expect(got && Array.from(got.bytes)).toEqual(Array.from(bytes));
    expect(
      await shared.client.file.getFile({ path: "/data/storage/petal/kf/none.bin" }),
    ).toBeNull();
    expect(
      (await shared.client.file.readDir({ path: "/data/storage/petal/kf" }))?.map((e) => e.name),
    ).toEqual(["blob.bin"]);
  });
});

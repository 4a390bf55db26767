import { describe, expect, it } from "vitest";
import { encodeMultipart, makeBoundary } from "./multipart.js";

describe("multipart encoder", () => {
  it("produces a body the WHATWG form-data parser reads back exactly", async () => {
    const file = Uint8Array.from([0, 1, 2, 255, 13, 10, 45, 45]);
    const { body, contentType } = encodeMultipart(
      [
        { name: "path", value: "/data/storage/petal/ünï.json" },
        { name: "isDir", value: "false" },
        { name: "file", filename: "ünï.json", bytes: file, contentType: "application/json" },
      ],
      makeBoundary(() => 0.5),
    );
    const form = await new Response(body, { headers: { "content-type": contentType } }).formData();
    expect(form.get("path")).toBe("/data/storage/petal/ünï.json");
    expect(form.get("isDir")).toBe("false");
    const blob = form.get("file") as File;
    expect(blob.name).toBe("ünï.json");
    expect(Array.from(new Uint8Array(await blob.arrayBuffer()))).toEqual(Array.from(file));
  });

  it("makes boundaries from the injected random source", () => {
    expect(makeBoundary(() => 0)).toBe(`----sisyphus${"a".repeat(24)}`);
    expect(makeBoundary(() => 0.999)).toBe(`----sisyphus${"9".repeat(24)}`);
  });
});

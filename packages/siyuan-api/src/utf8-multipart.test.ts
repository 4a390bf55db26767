import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeMultipart, makeBoundary } from "./multipart.js";
import { decodeUtf8Portable, encodeUtf8Portable, utf8ByteLength } from "./utf8.js";

describe("portable UTF-8", () => {
  it("matches the platform codec on arbitrary strings, lone surrogates included", () => {
    const enc = new TextEncoder();
    const dec = new TextDecoder();
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const mine = encodeUtf8Portable(s);
        expect(Array.from(mine)).toEqual(Array.from(enc.encode(s)));
        expect(utf8ByteLength(s)).toBe(mine.length);
        expect(decodeUtf8Portable(mine)).toBe(dec.decode(mine));
      }),
      { numRuns: 300 },
    );
  });

  it("decodes invalid byte sequences like TextDecoder", () => {
    const dec = new TextDecoder();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(decodeUtf8Portable(bytes)).toBe(dec.decode(bytes));
      }),
      { numRuns: 500 },
    );
  });
});

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

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utf8ByteLength, utf8Decode, utf8Encode } from "./utf8.js";

// Node has the platform codec; the portable one must give exactly its answers.
const encoder = new TextEncoder();
const decoder = new TextDecoder();

describe("portable UTF-8", () => {
  it("encodes any string as TextEncoder does (lone surrogates as U+FFFD) and sizes it first", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 200 }),
        fc.string({ maxLength: 20 }),
        (a, b) => {
          const text = `${a}\ud800${b}\udc00`;
          const bytes = utf8Encode(text);
          expect(bytes).toEqual(encoder.encode(text));
          expect(utf8ByteLength(text)).toBe(bytes.length);
        },
      ),
    );
  });

  it("decodes any bytes as TextDecoder does (one U+FFFD per maximal subpart of an invalid sequence)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(utf8Decode(bytes)).toBe(decoder.decode(bytes));
      }),
      { numRuns: 500 },
    );
    for (const bad of [
      [0xc3],
      [0xc2, 0x00],
      [0xe2, 0x82],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xc0, 0x80],
    ]) {
      const bytes = Uint8Array.from([0x61, ...bad, 0x62]);
      expect(utf8Decode(bytes)).toBe(decoder.decode(bytes));
    }
  });

  it("round-trips a text longer than one decode chunk", () => {
    const text = "aé€😀".repeat(5_000);
    expect(utf8Decode(utf8Encode(text))).toBe(text);
  });
});

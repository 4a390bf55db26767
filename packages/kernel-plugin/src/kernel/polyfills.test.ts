import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utf8Decode, utf8Encode } from "./polyfills.js";

// Node has the real TextEncoder/TextDecoder, so the polyfills are not installed here: the
// exported codec is compared with them.
const encoder = new TextEncoder();
const decoder = new TextDecoder();

describe("UTF-8 polyfill", () => {
  it("encodes any string as TextEncoder does (lone surrogates as U+FFFD)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 200 }),
        fc.string({ maxLength: 20 }),
        (a, b) => {
          const text = `${a}\ud800${b}\udc00`;
          expect(utf8Encode(text)).toEqual(encoder.encode(text));
        },
      ),
    );
  });

  it("decodes any bytes as TextDecoder does (one U+FFFD per maximal subpart of an invalid sequence)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(utf8Decode(bytes)).toBe(decoder.decode(bytes));
      }),
    );
    for (const bad of [
      [0xc3],
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

import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { isCoreHashError } from "./errors.js";
import { createNodeSha256, installNodeSha256, nodeSha256Hex } from "./node.js";
import {
  compressBytesRolled,
  createPortableSha256,
  createSha256,
  portableSha256Hex,
  type Sha256,
  setSha256Backend,
  sha256BackendName,
  sha256Hex,
} from "./sha256.js";
import { compressWords } from "./sha256-rounds.generated.js";
import { utf8ByteLength, utf8Encode } from "./utf8.js";

const VECTORS: [string, string, string][] = [
  ["empty string", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
  ["abc", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
  [
    "448-bit message",
    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  ],
  [
    "one million a",
    "a".repeat(1_000_000),
    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
  ],
];

const IMPLEMENTATIONS: [string, (input: string | Uint8Array) => string, () => Sha256][] = [
  ["portable", portableSha256Hex, createPortableSha256],
  ["node:crypto", nodeSha256Hex, createNodeSha256],
];

/** Single UTF-16 code units (lone surrogates included) mixed with whole code points. */
const codeUnitOrCodePoint = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
);

afterEach(() => setSha256Backend(undefined));

describe.each(IMPLEMENTATIONS)("SHA-256 published vectors: %s", (_name, oneShot, create) => {
  it.each(VECTORS)("%s as a string", (_label, message, expected) => {
    expect(oneShot(message)).toBe(expected);
  });
  it.each(VECTORS)("%s as bytes", (_label, message, expected) => {
    expect(oneShot(utf8Encode(message))).toBe(expected);
  });
  it.each(VECTORS)("%s incrementally, in uneven pieces", (_label, message, expected) => {
    const h = create();
    let p = 0;
    for (let size = 1; p < message.length; size = (size * 7 + 3) % 1000) {
      h.update(message.slice(p, p + size));
      p += size;
    }
    expect(h.digestHex()).toBe(expected);
    expect(h.digestHex()).toBe(expected);
  });
  it("one million a as 15,625 updates of 64 a", () => {
    const h = create();
    const block = utf8Encode("a".repeat(64));
    for (let i = 0; i < 15_625; i++) h.update(block);
    expect(h.digestHex()).toBe(VECTORS[3]![2]);
  });
  it("refuses update after digestHex with hash_finalized", () => {
    const h = create().update("abc");
    h.digestHex();
    expect(() => h.update("x")).toThrowError(expect.objectContaining({ code: "hash_finalized" }));
  });
  it("refuses input that is neither a string nor a Uint8Array", () => {
    for (const bad of [123, null, undefined, {}, [1, 2], new Uint16Array(2)]) {
      let caught: unknown;
      try {
        oneShot(bad as never);
      } catch (e) {
        caught = e;
      }
      expect(isCoreHashError(caught) && caught.code).toBe("invalid_argument");
    }
  });
});

describe("padding boundaries", () => {
  it("agrees with node:crypto for every length from 0 to 300 bytes", () => {
    const bytes = new Uint8Array(300);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + 7) & 0xff;
    for (let n = 0; n <= bytes.length; n++) {
      expect(portableSha256Hex(bytes.subarray(0, n))).toBe(nodeSha256Hex(bytes.subarray(0, n)));
    }
  });
  it("55, 56, 63, 64, 65 and 119 to 129 bytes: one-shot, byte by byte and node:crypto agree", () => {
    for (const n of [55, 56, 63, 64, 65, 119, 120, 127, 128, 129]) {
      const bytes = new Uint8Array(n);
      for (let i = 0; i < n; i++) bytes[i] = (i * 29 + n) & 0xff;
      const streamed = createPortableSha256();
      for (let i = 0; i < n; i++) streamed.update(bytes.subarray(i, i + 1));
      const expected = nodeSha256Hex(bytes);
      expect(portableSha256Hex(bytes), `${n} bytes`).toBe(expected);
      expect(streamed.digestHex(), `${n} bytes streamed`).toBe(expected);
    }
  });
  it("a large input in one call, then small inputs, agree with node:crypto (first call is large)", () => {
    // The order matters on V8: the first call of a fresh function that loops over many blocks is
    // compiled on-stack; later short calls then run what that compilation produced.
    const big = new Uint8Array(3 * 1024 * 1024 + 5);
    for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
    expect(portableSha256Hex(big)).toBe(nodeSha256Hex(big));
    for (const n of [0, 1, 64, 200, 4096]) {
      expect(portableSha256Hex(big.subarray(n, 2 * n + 1))).toBe(
        nodeSha256Hex(big.subarray(n, 2 * n + 1)),
      );
    }
    const streamed = createPortableSha256();
    for (let p = 0; p < big.length; p += 65_537) streamed.update(big.subarray(p, p + 65_537));
    expect(streamed.digestHex()).toBe(nodeSha256Hex(big));
  });
  it("hashes a Uint8Array view at an offset into its buffer, not the whole buffer", () => {
    const whole = utf8Encode("xxabcxx");
    expect(portableSha256Hex(whole.subarray(2, 5))).toBe(VECTORS[1]![2]);
  });
});

describe("compression paths", () => {
  const H0 = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ];
  it("the unrolled word path equals the rolled byte path (the big-endian fallback)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 64, maxLength: 640 }), (raw) => {
        const bytes = raw.slice(0, raw.length & ~63);
        const rolled = new Int32Array(H0);
        compressBytesRolled(rolled, bytes, 0, bytes.length);
        const unrolled = new Int32Array(H0);
        compressWords(
          unrolled,
          new Int32Array(bytes.buffer, 0, bytes.length >> 2),
          0,
          bytes.length >> 2,
        );
        expect(Array.from(unrolled)).toEqual(Array.from(rolled));
      }),
      { numRuns: 200 },
    );
  });
  it("hashes unaligned views larger than the 64 KiB scratch buffer", () => {
    const big = new Uint8Array(200_003);
    for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
    for (const offset of [0, 1, 2, 3, 5]) {
      const view = big.subarray(offset, offset + 150_001);
      expect(portableSha256Hex(view)).toBe(nodeSha256Hex(view));
      const h = createPortableSha256();
      h.update(view.subarray(0, 7)).update(view.subarray(7));
      expect(h.digestHex()).toBe(nodeSha256Hex(view));
    }
  });
  it("hashes long strings piecewise, keeping surrogate pairs across piece boundaries", () => {
    const piece = 16384;
    for (let shift = -3; shift <= 3; shift++) {
      for (const tail of ["\u{1f600}", "\ud800", "\udc00", "\ud800\ud800\udc00", "\u00e9\u4e2d"]) {
        const s =
          "a".repeat(piece + shift) + tail + "b".repeat(piece) + tail + "\u4e2d".repeat(piece);
        expect(portableSha256Hex(s), `shift ${shift} ${JSON.stringify(tail)}`).toBe(
          nodeSha256Hex(s),
        );
        expect(createPortableSha256().update("x").update(s).digestHex()).toBe(
          nodeSha256Hex("x" + s),
        );
      }
    }
    const astral = "\u{1f600}".repeat(3 * piece);
    expect(portableSha256Hex(astral)).toBe(nodeSha256Hex(astral));
  });
  it("one call over many blocks equals one call per block, from any start word", () => {
    const bytes = new Uint8Array(64 * 9);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 97 + 13) & 0xff;
    const words = new Int32Array(bytes.buffer);
    for (const start of [0, 16, 48]) {
      const once = new Int32Array(H0);
      compressWords(once, words, start, words.length);
      const each = new Int32Array(H0);
      for (let q = start; q < words.length; q += 16) compressWords(each, words, q, q + 16);
      expect(Array.from(once), `start ${start}`).toEqual(Array.from(each));
    }
  });
  it("leaves the state alone when the range holds no whole block", () => {
    const state = new Int32Array(H0);
    compressWords(state, new Int32Array(15), 0, 15);
    expect(Array.from(state)).toEqual(Array.from(new Int32Array(H0)));
  });
  it("the generated rounds file is current with its generator", () => {
    const script = fileURLToPath(new URL("../scripts/generate-sha256-rounds.mjs", import.meta.url));
    expect(() =>
      execFileSync(process.execPath, [script, "--check"], { stdio: "pipe" }),
    ).not.toThrow();
  });
});

describe("portable and node:crypto agree (property)", () => {
  it("on random strings, astral plane included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), (s) => {
        expect(portableSha256Hex(s)).toBe(nodeSha256Hex(s));
      }),
      { numRuns: 500 },
    );
  });
  it("on random full-Unicode strings (any code point, so no lone surrogates)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 500 }), (s) => {
        expect(portableSha256Hex(s)).toBe(nodeSha256Hex(s));
        expect(portableSha256Hex(utf8Encode(s))).toBe(portableSha256Hex(s));
      }),
      { numRuns: 500 },
    );
  });
  it("on random byte arrays", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => {
        expect(portableSha256Hex(bytes)).toBe(nodeSha256Hex(bytes));
      }),
      { numRuns: 500 },
    );
  });
  it("on long random strings with lone surrogates, across string pieces", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: codeUnitOrCodePoint, minLength: 16_000, maxLength: 40_000 }),
        (s) => {
          expect(portableSha256Hex(s)).toBe(nodeSha256Hex(s));
        },
      ),
      { numRuns: 15 },
    );
  });
  it("on strings with lone surrogates (both encode them as U+FFFD)", () => {
    for (const s of ["\ud800", "a\udc00b", "\udbff", "x\ud83d", "\ude00\ud83d"]) {
      expect(portableSha256Hex(s)).toBe(nodeSha256Hex(s));
    }
  });
  it("incremental updates over random splits equal one-shot", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 1500 }),
        fc.array(fc.nat({ max: 1500 }), { maxLength: 12 }),
        (bytes, cuts) => {
          const points = [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort(
            (a, b) => a - b,
          );
          for (const create of [createPortableSha256, createNodeSha256]) {
            const h = create();
            let prev = 0;
            for (const cut of [...points, bytes.length]) {
              h.update(bytes.subarray(prev, cut));
              prev = cut;
            }
            expect(h.digestHex()).toBe(portableSha256Hex(bytes));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("utf8Encode", () => {
  it("equals TextEncoder on random Unicode, lone surrogates included", () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: codeUnitOrCodePoint, maxLength: 200 }), (s) => {
        expect(utf8Encode(s)).toEqual(encoder.encode(s));
        expect(utf8ByteLength(s)).toBe(encoder.encode(s).length);
      }),
      { numRuns: 1000 },
    );
  });
  it("refuses a non-string", () => {
    expect(() => utf8Encode(5 as never)).toThrowError(
      expect.objectContaining({ code: "invalid_argument" }),
    );
  });
});

describe("backend seam", () => {
  it("is portable until a backend is installed, and gives the same digests after", () => {
    expect(sha256BackendName()).toBe("portable");
    const before = [sha256Hex("abc"), createSha256().update("abc").digestHex()];
    installNodeSha256();
    expect(sha256BackendName()).toBe("node:crypto");
    expect([sha256Hex("abc"), createSha256().update("abc").digestHex()]).toEqual(before);
    setSha256Backend(undefined);
    expect(sha256BackendName()).toBe("portable");
  });
  it("rejects an object that is not a backend", () => {
    expect(() => setSha256Backend({ name: "x" } as never)).toThrowError(
      expect.objectContaining({ code: "invalid_argument" }),
    );
  });
});

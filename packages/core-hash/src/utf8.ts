/**
 * UTF-8 encoding written out by hand, so that hashing needs neither `TextEncoder` nor `Buffer`.
 * Output is byte-for-byte what `TextEncoder` and Node's `Buffer.from(s, "utf8")` produce: a
 * surrogate pair becomes one 4-byte sequence, a lone surrogate becomes U+FFFD (EF BF BD).
 */
import { CoreHashError } from "./errors.js";

/** Number of bytes `utf8Encode(s)` will produce. */
export function utf8ByteLength(s: string): number {
  const n = s.length;
  let bytes = n;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      bytes += 1;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1);
      // A pair (2 code units) becomes 4 bytes; a lone high surrogate becomes U+FFFD (3 bytes).
      if (d >= 0xdc00 && d <= 0xdfff) i++;
      bytes += 2;
    } else {
      bytes += 2;
    }
  }
  return bytes;
}

/**
 * Writes the UTF-8 of the code units `s[start, end)` into `out` from `offset` and returns the offset
 * after the last byte written; `out` needs up to 3 bytes of room per code unit. A high surrogate at
 * `end - 1` is treated as lone, so callers cutting a string into ranges keep pairs together.
 */
export function utf8EncodeInto(
  s: string,
  start: number,
  end: number,
  out: Uint8Array,
  offset: number,
): number {
  const n = end;
  let p = offset;
  for (let i = start; i < n; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      out[p++] = c;
    } else if (c < 0x800) {
      out[p++] = 0xc0 | (c >>> 6);
      out[p++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const d = c <= 0xdbff && i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        out[p++] = 0xf0 | (c >>> 18);
        out[p++] = 0x80 | ((c >>> 12) & 0x3f);
        out[p++] = 0x80 | ((c >>> 6) & 0x3f);
        out[p++] = 0x80 | (c & 0x3f);
      } else {
        out[p++] = 0xef;
        out[p++] = 0xbf;
        out[p++] = 0xbd;
      }
    } else {
      out[p++] = 0xe0 | (c >>> 12);
      out[p++] = 0x80 | ((c >>> 6) & 0x3f);
      out[p++] = 0x80 | (c & 0x3f);
    }
  }
  return p;
}

/**
 * The UTF-8 bytes of `s`, computed without `TextEncoder` or `Buffer` (portable to a bare
 * JavaScript context). Lone surrogates become U+FFFD, as `TextEncoder` does.
 * @throws CoreHashError `invalid_argument` if `s` is not a string.
 */
export function utf8Encode(s: string): Uint8Array {
  if (typeof s !== "string") {
    throw new CoreHashError("invalid_argument", "utf8Encode expects a string", {
      argument: "s",
      received: typeof s,
    });
  }
  const out = new Uint8Array(utf8ByteLength(s));
  utf8EncodeInto(s, 0, s.length, out, 0);
  return out;
}

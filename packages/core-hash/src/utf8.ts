/**
 * UTF-8 written out by hand, so that hashing and the kernel runtime (goja has no `TextEncoder`,
 * `TextDecoder` or `Buffer`) need none of them. Encoding is byte-for-byte what `TextEncoder` and
 * Node's `Buffer.from(s, "utf8")` produce: a surrogate pair becomes one 4-byte sequence, a lone
 * surrogate becomes U+FFFD (EF BF BD); decoding is `TextDecoder`'s (WHATWG).
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

/** UTF-16 units gathered before they become a string (one `fromCharCode` call each). */
const DECODE_CHUNK = 4096;

/**
 * The text of UTF-8 `bytes`, as `TextDecoder` decodes them (WHATWG: each maximal subpart of an
 * invalid sequence becomes one U+FFFD). The text is joined once from chunks: appending piece by
 * piece copies the whole string on every append in an engine without string ropes (goja).
 */
export function utf8Decode(bytes: Uint8Array): string {
  const parts: string[] = [];
  let units: number[] = [];
  const push = (cp: number): void => {
    if (cp >= 0x10000) {
      const v = cp - 0x10000;
      units.push(0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
    } else {
      units.push(cp);
    }
    if (units.length >= DECODE_CHUNK) {
      parts.push(String.fromCharCode.apply(null, units));
      units = [];
    }
  };
  let cp = 0;
  let needed = 0;
  let seen = 0;
  let lower = 0x80;
  let upper = 0xbf;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    if (needed === 0) {
      i++;
      if (b <= 0x7f) push(b);
      else if (b >= 0xc2 && b <= 0xdf) {
        needed = 1;
        cp = b & 0x1f;
      } else if (b >= 0xe0 && b <= 0xef) {
        if (b === 0xe0) lower = 0xa0;
        if (b === 0xed) upper = 0x9f;
        needed = 2;
        cp = b & 0xf;
      } else if (b >= 0xf0 && b <= 0xf4) {
        if (b === 0xf0) lower = 0x90;
        if (b === 0xf4) upper = 0x8f;
        needed = 3;
        cp = b & 0x7;
      } else push(0xfffd);
      continue;
    }
    if (b < lower || b > upper) {
      // the sequence ends here: one U+FFFD, and this byte starts afresh
      cp = needed = seen = 0;
      lower = 0x80;
      upper = 0xbf;
      push(0xfffd);
      continue;
    }
    i++;
    lower = 0x80;
    upper = 0xbf;
    cp = (cp << 6) | (b & 0x3f);
    if (++seen === needed) {
      push(cp);
      cp = needed = seen = 0;
    }
  }
  if (needed !== 0) push(0xfffd);
  parts.push(String.fromCharCode.apply(null, units));
  return parts.join("");
}

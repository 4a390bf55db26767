/**
 * UTF-8 encode/decode that works without Node APIs and without `TextEncoder` (the SiYuan 3.7.3 kernel
 * runtime has neither). Uses the platform codec when present, a small portable one otherwise.
 */

interface Codec {
  encode(text: string): Uint8Array;
  decode(bytes: Uint8Array): string;
}

/** Portable UTF-8 encoder (lone surrogates become U+FFFD, like `TextEncoder`). */
export function encodeUtf8Portable(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (next - 0xdc00);
        i++;
      } else {
        cp = 0xfffd;
      }
    } else if (cp >= 0xdc00 && cp <= 0xdfff) {
      cp = 0xfffd;
    }
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else
      out.push(
        0xf0 | (cp >> 18),
        0x80 | ((cp >> 12) & 63),
        0x80 | ((cp >> 6) & 63),
        0x80 | (cp & 63),
      );
  }
  return Uint8Array.from(out);
}

/** Portable UTF-8 decoder, following the WHATWG algorithm (invalid sequences become U+FFFD). */
export function decodeUtf8Portable(bytes: Uint8Array): string {
  let out = "";
  let units: number[] = [];
  const push = (cp: number): void => {
    if (cp >= 0x10000) {
      const v = cp - 0x10000;
      units.push(0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
    } else {
      units.push(cp);
    }
    if (units.length >= 8192) {
      out += String.fromCharCode(...units);
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
    const b = bytes[i]!;
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
      // Error: emit one replacement and reprocess this byte as a fresh start.
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
    seen++;
    if (seen === needed) {
      push(cp);
      cp = needed = seen = 0;
    }
  }
  if (needed !== 0) push(0xfffd);
  out += String.fromCharCode(...units);
  return out;
}

function platformCodec(): Codec | undefined {
  const g = globalThis as {
    TextEncoder?: new () => { encode(s: string): Uint8Array };
    TextDecoder?: new () => { decode(b: Uint8Array): string };
  };
  if (typeof g.TextEncoder !== "function" || typeof g.TextDecoder !== "function") return undefined;
  const enc = new g.TextEncoder();
  const dec = new g.TextDecoder();
  return { encode: (t) => enc.encode(t), decode: (b) => dec.decode(b) };
}

const codec: Codec = platformCodec() ?? { encode: encodeUtf8Portable, decode: decodeUtf8Portable };

/** Encodes a string as UTF-8 bytes (platform codec when available). */
export function encodeUtf8(text: string): Uint8Array {
  return codec.encode(text);
}

/** Decodes UTF-8 bytes to a string (platform codec when available). */
export function decodeUtf8(bytes: Uint8Array): string {
  return codec.decode(bytes);
}

/** Number of bytes `text` takes in UTF-8, computed without allocating. */
export function utf8ByteLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/**
 * UTF-8 encode/decode that works without Node APIs and without `TextEncoder` (the SiYuan 3.7.3 kernel
 * runtime has neither): the platform codec when present, core-hash's portable one otherwise.
 */
import { utf8Decode, utf8Encode } from "@sisyphus/core-hash";

export { utf8ByteLength } from "@sisyphus/core-hash";

interface Codec {
  encode(text: string): Uint8Array;
  decode(bytes: Uint8Array): string;
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

const codec: Codec = platformCodec() ?? { encode: utf8Encode, decode: utf8Decode };

/** Encodes a string as UTF-8 bytes (platform codec when available). */
export function encodeUtf8(text: string): Uint8Array {
  return codec.encode(text);
}

/** Decodes UTF-8 bytes to a string (platform codec when available). */
export function decodeUtf8(bytes: Uint8Array): string {
  return codec.decode(bytes);
}

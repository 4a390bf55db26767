/**
 * A `multipart/form-data` encoder that produces one byte array, with no Node APIs, so the same code
 * builds `putFile` and `asset/upload` bodies for undici and for `siyuan.client.fetch` (ArrayBuffer body).
 */
import { encodeUtf8 } from "./utf8.js";

/** A text field of a multipart body. */
export interface MultipartTextPart {
  readonly name: string;
  readonly value: string;
}

/** A file field of a multipart body. */
export interface MultipartFilePart {
  readonly name: string;
  readonly filename: string;
  readonly bytes: Uint8Array;
  /** Defaults to `application/octet-stream`. */
  readonly contentType?: string;
}

/** One part of a multipart body. */
export type MultipartPart = MultipartTextPart | MultipartFilePart;

function quote(value: string): string {
  // RFC 7578 §4.2: percent-encode the quote and line breaks; the name itself stays UTF-8.
  return value.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/**
 * Encodes parts as `multipart/form-data` with the given boundary.
 * Invariant: the boundary must not occur in any part (callers use a random 24+ character boundary).
 * @returns the body bytes and the matching `Content-Type` header value.
 */
export function encodeMultipart(
  parts: readonly MultipartPart[],
  boundary: string,
): { body: Uint8Array; contentType: string } {
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${quote(part.name)}"`;
    if ("bytes" in part) {
      head += `; filename="${quote(part.filename)}"\r\nContent-Type: ${part.contentType ?? "application/octet-stream"}`;
      chunks.push(encodeUtf8(`${head}\r\n\r\n`), part.bytes, encodeUtf8("\r\n"));
    } else {
      chunks.push(encodeUtf8(`${head}\r\n\r\n${part.value}\r\n`));
    }
  }
  chunks.push(encodeUtf8(`--${boundary}--\r\n`));
  let total = 0;
  for (const c of chunks) total += c.length;
  const body = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    body.set(c, offset);
    offset += c.length;
  }
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Makes a multipart boundary from a random source returning numbers in [0, 1). */
export function makeBoundary(random: () => number): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  let s = "----sisyphus";
  for (let i = 0; i < 24; i++) s += alphabet[Math.floor(random() * alphabet.length)] ?? "x";
  return s;
}

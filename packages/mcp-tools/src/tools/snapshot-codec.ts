/**
 * The two self-contained strings of `document.snapshot`: the cursor a finished snapshot hands out
 * and the page token between its pages. Servers keep nothing between calls (a restart forgets
 * everything), so each string carries what the next call needs, sealed with a SHA-256 over its
 * body: an edited string no longer matches its seal and is refused. The seal is an integrity check,
 * not a signature — anybody could compute it — which is enough because a cursor grants nothing: the
 * call still needs read permission on the scope, and a forged cursor only changes which documents
 * are reported as changed.
 *
 * Both are ASCII (IDs and hex digests), so they are coded as base64url of their JSON without a
 * UTF-8 codec (the kernel runtime has none of its own).
 */
import { canonicalJson, sha256Hex } from "@sisyphus/core-hash";
import { ToolError } from "../errors.js";

/** A cursor: per document, the digest of everything a delta compares (path, content, attributes). */
export interface SnapshotCursor {
  readonly scopeHash: string;
  readonly inventoryHash: string;
  readonly metadataHash: string;
  readonly contentHash: string;
  /** `[id, entryHash]`, sorted by ID. */
  readonly docs: readonly (readonly [string, string])[];
}

/** Between pages: where the next page starts and the hashes of the documents already read. */
export interface SnapshotPageToken {
  readonly scopeHash: string;
  readonly inventoryHash: string;
  /** The seal of the cursor the snapshot compares with, or `null` for a full snapshot. */
  readonly base: string | null;
  readonly offset: number;
  /** `[id, contentHash, metadataHash]` of the documents of earlier pages, in inventory order. */
  readonly docs: readonly (readonly [string, string, string])[];
}

const CURSOR_PREFIX = "ssc1.";
const TOKEN_PREFIX = "sst1.";
const HEX64 = /^[0-9a-f]{64}$/;
const ID = /^[0-9]{14}-[0-9a-z]{7}$/;
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** base64url (no padding) of an ASCII string. */
function encodeAscii(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i += 3) {
    const a = text.charCodeAt(i);
    const b = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
    const c = i + 2 < text.length ? text.charCodeAt(i + 2) : 0;
    const n = (a << 16) | (b << 8) | c;
    const chars = i + 2 < text.length ? 4 : i + 1 < text.length ? 3 : 2;
    for (let k = 0; k < chars; k++) out += B64.charAt((n >> (18 - 6 * k)) & 63);
  }
  return out;
}

/** The ASCII string coded by {@link encodeAscii}, or `null` when `code` is not such a string. */
function decodeAscii(code: string): string | null {
  if (code.length % 4 === 1) return null;
  let out = "";
  for (let i = 0; i < code.length; i += 4) {
    let n = 0;
    const chars = Math.min(4, code.length - i);
    for (let k = 0; k < 4; k++) {
      const v = k < chars ? B64.indexOf(code.charAt(i + k)) : 0;
      if (v < 0) return null;
      n = (n << 6) | v;
    }
    for (let k = 0; k < chars - 1; k++) {
      const byte = (n >> (16 - 8 * k)) & 255;
      if (byte > 126) return null;
      out += String.fromCharCode(byte);
    }
  }
  return out;
}

/** `prefix` + base64url of the body with its seal. */
function seal(prefix: string, body: Record<string, unknown>): string {
  const check = sha256Hex(canonicalJson(body));
  return prefix + encodeAscii(canonicalJson({ ...body, check }));
}

/** The sealed body of `text`, or `null` when it is not one intact string of this kind. */
function unseal(prefix: string, text: string): Record<string, unknown> | null {
  if (!text.startsWith(prefix)) return null;
  const json = decodeAscii(text.slice(prefix.length));
  if (json === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const { check, ...body } = parsed as Record<string, unknown>;
  return check === sha256Hex(canonicalJson(body)) ? body : null;
}

/** The seal of a string made by {@link encodeCursor} (binds page tokens to their base cursor). */
export function cursorSeal(cursor: string): string {
  return sha256Hex(cursor);
}

export function encodeCursor(c: SnapshotCursor): string {
  return seal(CURSOR_PREFIX, { v: 1, ...c, docs: c.docs.map((d) => [...d]) });
}

export function encodePageToken(t: SnapshotPageToken): string {
  return seal(TOKEN_PREFIX, { v: 1, ...t, docs: t.docs.map((d) => [...d]) });
}

const isHex = (v: unknown): v is string => typeof v === "string" && HEX64.test(v);
const isId = (v: unknown): v is string => typeof v === "string" && ID.test(v);

function refused(what: "cursor" | "pageToken", reason: string, message: string): ToolError {
  return new ToolError("invalid_arguments", message, { name: what, reason });
}

/** The cursor in `text`, or a typed refusal: not a cursor, edited, or of another scope. */
export function decodeCursor(text: string, scopeHash: string): SnapshotCursor {
  const b = unseal(CURSOR_PREFIX, text);
  const docs = b?.["docs"];
  const ok =
    b !== null &&
    b["v"] === 1 &&
    isHex(b["scopeHash"]) &&
    isHex(b["inventoryHash"]) &&
    isHex(b["metadataHash"]) &&
    isHex(b["contentHash"]) &&
    Array.isArray(docs) &&
    docs.every((d) => Array.isArray(d) && d.length === 2 && isId(d[0]) && isHex(d[1]));
  if (!ok) {
    throw refused(
      "cursor",
      "cursor_invalid",
      "cursor is not a cursor this server issued, or it was changed: pass it exactly as a snapshot returned it, or omit it for a full snapshot",
    );
  }
  if (b["scopeHash"] !== scopeHash) {
    throw refused(
      "cursor",
      "cursor_other_scope",
      "cursor belongs to another scope (another notebook or subtree): pass the cursor of this scope, or omit it for a full snapshot",
    );
  }
  return b as unknown as SnapshotCursor;
}

/**
 * The page token in `text`, or a typed refusal: not a token, edited, or of another scope or base
 * cursor than this call's.
 */
export function decodePageToken(
  text: string,
  scopeHash: string,
  base: string | null,
): SnapshotPageToken {
  const b = unseal(TOKEN_PREFIX, text);
  const docs = b?.["docs"];
  const ok =
    b !== null &&
    b["v"] === 1 &&
    isHex(b["scopeHash"]) &&
    isHex(b["inventoryHash"]) &&
    (b["base"] === null || isHex(b["base"])) &&
    typeof b["offset"] === "number" &&
    Number.isInteger(b["offset"]) &&
    b["offset"] > 0 &&
    Array.isArray(docs) &&
    docs.length === b["offset"] &&
    docs.every(
      (d) => Array.isArray(d) && d.length === 3 && isId(d[0]) && isHex(d[1]) && isHex(d[2]),
    );
  if (!ok) {
    throw refused(
      "pageToken",
      "page_token_invalid",
      "pageToken is not a token this server issued, or it was changed: pass nextPageToken exactly as returned",
    );
  }
  if (b["scopeHash"] !== scopeHash || b["base"] !== base) {
    throw refused(
      "pageToken",
      "page_token_other_call",
      "pageToken belongs to another snapshot: send the same notebook, id and cursor as the call that returned it",
    );
  }
  return b as unknown as SnapshotPageToken;
}

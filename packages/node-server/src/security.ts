/**
 * HTTP request guards: constant-time bearer-token check, the Origin allowlist (DNS-rebinding
 * protection; requests without an Origin header, non-browser clients, pass it), the `Host` header
 * and the JSON nesting depth of a body.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { originVerdict } from "@sisyphus/mcp-tools/settings";

/**
 * Compares the `Authorization` header with `Bearer <expected>` in constant time (both sides are
 * hashed to 32 bytes first, so neither length nor content leaks through timing). The scheme is
 * matched case-insensitively (RFC 9110), then exactly one space, then the credential exactly as
 * sent: nothing is trimmed, so an extra space, a tab or a no-break space before or after the token
 * makes it a different credential. (Node's HTTP parser itself drops spaces and tabs around a whole
 * header value, before this sees it.)
 */
export function bearerMatches(header: string | string[] | undefined, expected: string): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  const presented =
    value !== undefined && /^Bearer $/i.test(value.slice(0, 7)) ? value.slice(7) : "";
  const a = createHash("sha256").update(presented, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b) && presented.length > 0;
}

/** A `Host` header parsed strictly: `host` lowercased (an IPv6 literal without brackets), `port` if given. */
export interface HostHeader {
  readonly host: string;
  readonly port?: number;
}

// host [":" port]: an IPv6 literal in brackets, or a name / IPv4 address of letters, digits and
// `.-_~`; nothing else (no userinfo `@`, path, query, spaces or percent-encoding).
const HOST_HEADER = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._~-]+))(?::(\d{1,5}))?$/;

/**
 * Parses a `Host` header strictly (RFC 9110 `uri-host [ ":" port ]`, restricted to what a client
 * of this server sends). `undefined` for an absent, empty or malformed value, including
 * `evil.example:80@127.0.0.1` and `127.0.0.1:80.evil.example`, or a port above 65535.
 */
export function parseHostHeader(value: string | undefined): HostHeader | undefined {
  if (value === undefined) return undefined;
  const m = HOST_HEADER.exec(value);
  if (m === null) return undefined;
  const host = (m[1] ?? m[2] ?? "").toLowerCase();
  if (host === "") return undefined;
  if (m[3] === undefined) return { host };
  const port = Number(m[3]);
  return port > 65535 ? undefined : { host, port };
}

/** A stable, non-secret identifier of the principal a token authenticates (a digest prefix). */
export function principalOf(token: string): string {
  return `bearer:${createHash("sha256").update(`sisyphus-principal:${token}`).digest("hex").slice(0, 16)}`;
}

/**
 * Whether a browser `Origin` may call: absent passes; loopback origins (`localhost`, `127.x`,
 * `[::1]`, any port, http or https) pass; otherwise the exact origin must be listed.
 */
export function originAllowed(
  header: string | string[] | undefined,
  allowed: readonly string[],
): boolean {
  const v = originVerdict(Array.isArray(header) ? header[0] : header);
  return v.verdict === "check" ? allowed.includes(v.origin) : v.verdict === "pass";
}

// A linear, non-recursive guard against deeply nested JSON: counts `[` and `{` outside string
// literals, so a body nested thousands of levels deep is refused before `JSON.parse`, schema
// validation or any recursive walk (canonical hashing, stable JSON) can exhaust the stack.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * Whether `bytes` (UTF-8 JSON text) nests arrays/objects deeper than `limit` levels. Works on the
 * raw bytes: every byte of a multi-byte UTF-8 character is ≥ 0x80, so it never looks like a quote,
 * backslash or bracket. Malformed text is not judged here (`JSON.parse` refuses it afterwards);
 * the scan only needs to be right for text that would parse.
 */
export function exceedsJsonDepth(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
    } else if (b === OPEN_BRACKET || b === OPEN_BRACE) {
      depth++;
      if (depth > limit) return true;
    } else if (b === CLOSE_BRACKET || b === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

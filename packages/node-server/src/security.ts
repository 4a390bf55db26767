/**
 * HTTP request guards: constant-time bearer-token check and the Origin allowlist (DNS-rebinding
 * protection). Requests without an Origin header (non-browser clients) pass the Origin check.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { isLoopbackHost } from "./config.js";

/**
 * Compares the `Authorization: Bearer …` header with `expected` in constant time (both sides are
 * hashed to 32 bytes first, so neither length nor content leaks through timing).
 */
export function bearerMatches(header: string | string[] | undefined, expected: string): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  const presented = value !== undefined && /^Bearer /i.test(value) ? value.slice(7).trim() : "";
  const a = createHash("sha256").update(presented, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b) && presented.length > 0;
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
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return true;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.origin === "null") return false;
  if ((url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(url.hostname)) {
    return true;
  }
  return allowed.includes(url.origin);
}

/**
 * Limits and defaults of `@sisyphus/siyuan-api`, one source of truth (the README quotes these).
 */

/** Default per-request timeout of a transport, in milliseconds (headers and body each). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Default number of attempts for a read (first try included). Writes always get exactly 1. */
export const DEFAULT_READ_MAX_ATTEMPTS = 3;

/** Default base delay of the exponential read backoff, in milliseconds (full jitter on top). */
export const DEFAULT_READ_BASE_DELAY_MS = 50;

/** Default cap of one read backoff delay, in milliseconds. */
export const DEFAULT_READ_MAX_DELAY_MS = 1_000;

/** Hard cap on read attempts a caller may configure, so a misconfiguration cannot hammer the kernel. */
export const MAX_READ_ATTEMPTS_LIMIT = 10;

/** Default number of keep-alive connections of the undici pool the transport creates itself. */
export const DEFAULT_POOL_CONNECTIONS = 8;

/**
 * Idle keep-alive time of pooled sockets, in milliseconds. Kept below Node's default server
 * keep-alive (5 s) so the client, not the server, closes idle sockets: that avoids writing a request
 * onto a socket the server is closing at that instant (which would be `outcome_unknown`).
 */
export const POOL_KEEP_ALIVE_TIMEOUT_MS = 2_000;

/** Upper bound for a server-announced keep-alive timeout (`Keep-Alive: timeout=N`), in milliseconds. */
export const POOL_KEEP_ALIVE_MAX_TIMEOUT_MS = 4_000;

/** Safety margin subtracted from a server-announced keep-alive timeout, in milliseconds. */
export const POOL_KEEP_ALIVE_THRESHOLD_MS = 1_000;

/** TCP connect timeout of the pool the transport creates itself, in milliseconds. */
export const POOL_CONNECT_TIMEOUT_MS = 5_000;

/** Loopback timeout of `siyuan.client.fetch` inside the kernel runtime (fixed by the kernel), in milliseconds. */
export const KERNEL_FETCH_TIMEOUT_MS = 60_000;

/** HTTP statuses after which a read is retried (gateway-style transient failures). */
export const RETRYABLE_HTTP_STATUSES: readonly number[] = [502, 503, 504];

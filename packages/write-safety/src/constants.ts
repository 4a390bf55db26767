/**
 * Every limit of `@sisyphus/write-safety`, in one place. The README and the spec quote these values;
 * change them here and nowhere else.
 */

/** How long a preflight lease stays resolvable, in milliseconds (spec: ten minutes). A lease is valid while `now < leaseExpiresAt`. */
export const LEASE_TTL_MS = 10 * 60 * 1000;

/**
 * How long after preflight the first execution of an issued request ID may start, in milliseconds
 * (spec: ten minutes). The `executing` record must be written while `now < requestIdExpiresAt`;
 * afterwards the ID can never execute (it stays reserved forever).
 */
export const REQUEST_ID_FIRST_EXECUTION_TTL_MS = 10 * 60 * 1000;

/**
 * How long an executed ledger entry (committed, no_change, unknown, executing) is kept, in
 * milliseconds, counted from the moment its `executing` record was written (spec: seven days).
 */
export const LEDGER_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Leases kept per scope (tool + action + argument digest + target IDs). Several preflights of the
 * same call with different live states can coexist; the oldest is evicted first.
 */
export const LEASES_PER_SCOPE_MAX = 4;

/** Leases kept in the whole pool; the oldest (by issue or refresh time) is evicted first. */
export const LEASES_GLOBAL_MAX = 1024;

/**
 * How many evicted or expired leases the pool remembers, so a late commit is told `evicted` or
 * `expired` instead of `missing`. Memory only; older tombstones are dropped first.
 */
export const LEASE_TOMBSTONES_MAX = 4096;

/**
 * Calls admitted to the serial write lane at once, counting the running call, queued calls and
 * calls still preparing (spec: 128). One more fails at once with `queue_full`.
 */
export const WRITE_ADMISSION_MAX_IN_FLIGHT = 128;

/**
 * Upper bound on the canonical-JSON length (UTF-16 code units) of a tool receipt kept in the
 * ledger. Receipts are meant to be small identifiers and counts; a larger receipt is not stored and
 * the answer says `receiptOmitted: true` (live and on replay alike).
 */
export const LEDGER_RECEIPT_MAX_CHARS = 4096;

/** @sisyphus/write-safety: Strict Safe Writes: action policy, leases, request-ID reservations, idempotency ledger and the serial write coordinator. Pure. */
export const PACKAGE_NAME = "@sisyphus/write-safety";

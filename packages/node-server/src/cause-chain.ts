/**
 * The one walk over an error's causes: a delegated call's failure arrives wrapped (a network
 * error inside a client error, an `AggregateError` of several connection attempts), and what it
 * means — refused before sending, an HTTP status, an unauthorized token — is on some link of it.
 */

/** How many `cause` links are followed from each error (a cycle ends there too). */
export const CAUSE_CHAIN_MAX_DEPTH = 8;

/**
 * `e`, its `cause`, that one's `cause` and so on (at most {@link CAUSE_CHAIN_MAX_DEPTH} from each
 * start), with the errors of an `AggregateError`-like `errors` array and their own chains, in
 * the order met: each error before its aggregated ones, those before its cause.
 */
export function causeChain(e: unknown): unknown[] {
  const chain: unknown[] = [];
  let cur: unknown = e;
  for (let depth = 0; depth < CAUSE_CHAIN_MAX_DEPTH && cur !== undefined && cur !== null; depth++) {
    chain.push(cur);
    const errors = (cur as { errors?: unknown }).errors;
    if (Array.isArray(errors)) for (const inner of errors) chain.push(...causeChain(inner));
    cur = (cur as { cause?: unknown }).cause;
  }
  return chain;
}

/** Every `code` (string or number, as a string) along {@link causeChain}. */
export function errorCodes(e: unknown): string[] {
  return causeChain(e).flatMap((link) => {
    const code = (link as { code?: unknown }).code;
    return typeof code === "string" || typeof code === "number" ? [String(code)] : [];
  });
}

/** The first HTTP status along {@link causeChain} (a link's `data.status`), if any. */
export function httpStatusOf(e: unknown): number | undefined {
  for (const link of causeChain(e)) {
    const status = (link as { data?: { status?: unknown } }).data?.status;
    if (typeof status === "number") return status;
  }
  return undefined;
}

/** Whether a message along {@link causeChain} says 401 or unauthorized. */
export function mentionsUnauthorized(e: unknown): boolean {
  return causeChain(e).some((link) => {
    const message = (link as { message?: unknown }).message;
    return typeof message === "string" && /\b401\b|unauthori[sz]ed/i.test(message);
  });
}

/**
 * @sisyphus/siyuan-sandbox/testing: the one polling helper of the project's tests. Tests that
 * watch another process or socket (a sandbox kernel's request log, an authority's `/health`) wait
 * with `waitFor` instead of writing their own `while`/`setTimeout` loops, so every such wait has a
 * deadline and fails with a message that says what it waited for.
 */
import { SandboxError } from "./errors.js";

/** Default longest wait of {@link waitFor}, in milliseconds. */
export const WAIT_FOR_TIMEOUT_MS = 10_000;
/** Default pause between two checks of {@link waitFor}, in milliseconds. */
export const WAIT_FOR_INTERVAL_MS = 20;

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Longest wait in milliseconds (default {@link WAIT_FOR_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Pause between checks in milliseconds (default {@link WAIT_FOR_INTERVAL_MS}). */
  intervalMs?: number;
  /** What is awaited, for the timeout message (default: the condition's source text). */
  what?: string;
}

/**
 * Checks `condition` (sync or async) at once and then every `intervalMs` until it returns a truthy
 * value, and resolves with that value.
 * @throws SandboxError `wait_timeout` (`details: { what, timeoutMs, last }`, `last` the value of
 *   the final check) when `timeoutMs` passes first; an error thrown by `condition` propagates.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<Exclude<T, false | 0 | "" | null | undefined>> {
  const timeoutMs = options.timeoutMs ?? WAIT_FOR_TIMEOUT_MS;
  const intervalMs = options.intervalMs ?? WAIT_FOR_INTERVAL_MS;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value as Exclude<T, false | 0 | "" | null | undefined>;
    if (Date.now() >= deadline) {
      const what = options.what ?? condition.toString();
      throw new SandboxError(
        "wait_timeout",
        `waited ${timeoutMs} ms for ${what}; last value: ${JSON.stringify(value)}`,
        { what, timeoutMs, last: value },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

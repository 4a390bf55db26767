/**
 * @sisyphus/siyuan-sandbox/testing: the one wait helper of the project's tests. Tests that watch
 * another process or socket (a sandbox kernel's request log, an authority's `/health`) wait with
 * `waitFor` instead of writing their own `while`/`setTimeout` loops, so every such wait has a
 * deadline and fails with a message that says what it waited for. A test that checks that
 * something does NOT happen for a while says so with `observeQuietFor`; a test that models time
 * itself (a client's backoff, a soak's half-way point) says so with `letTimePass`. No test file sleeps
 * (`test/no-bare-sleeps.test.ts` lists any that does): a race is set up by an event (a request
 * counted at an endpoint, a call held by a `hold` fault, a count on `/health`), never by time.
 */
import { SandboxError } from "./errors.js";

/**
 * Default longest wait of {@link waitFor}, in milliseconds: the same as
 * {@link EXPECT_POLL_TIMEOUT_MS}. Waits for an event a few seconds away (a plugin's 5 s settings
 * check, a server's start) must not trip on a loaded 2-core machine; 30 s still catches a hang.
 */
export const WAIT_FOR_TIMEOUT_MS = 30_000;
/** Default pause between two checks of {@link waitFor}, in milliseconds. */
export const WAIT_FOR_INTERVAL_MS = 20;
/**
 * Deadline for vitest's `expect.poll` (`{ timeout: EXPECT_POLL_TIMEOUT_MS }`) in the browser
 * tests, in milliseconds: its default of 1 s trips on a loaded 2-core machine; 30 s still catches
 * a hang.
 */
export const EXPECT_POLL_TIMEOUT_MS = 30_000;

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

/** Options of {@link observeQuietFor}. */
export interface ObserveQuietOptions {
  /** Pause between checks in milliseconds (default {@link WAIT_FOR_INTERVAL_MS}). */
  intervalMs?: number;
  /** What must not happen, for the failure message (default: the check's source text). */
  what?: string;
}

/**
 * The one deliberate use of time in tests: checks `happened` (sync or async) at once, then every
 * `intervalMs`, for `quietMs`, and resolves when it stayed falsy throughout (for example "the
 * authority keeps serving for three idle periods", "the request behind the open stream is not
 * answered while the stream lives"). Start it only once the thing that could happen is able to
 * (the request has reached the sandbox), so the quiet period means something.
 * @throws SandboxError `not_quiet` (`details: { what, quietMs, afterMs, value }`) as soon as a check
 *   returns a truthy `value`; an error thrown by `happened` propagates.
 */
export async function observeQuietFor(
  quietMs: number,
  happened: () => unknown,
  options: ObserveQuietOptions = {},
): Promise<void> {
  const intervalMs = options.intervalMs ?? WAIT_FOR_INTERVAL_MS;
  const started = Date.now();
  const end = started + quietMs;
  for (;;) {
    const value = await happened();
    if (value) {
      const what = options.what ?? happened.toString();
      const afterMs = Date.now() - started;
      throw new SandboxError(
        "not_quiet",
        `expected ${what} not to happen for ${quietMs} ms; it did after ${afterMs} ms: ${JSON.stringify(value)}`,
        { what, quietMs, afterMs, value },
      );
    }
    const left = end - Date.now();
    if (left <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
  }
}

/**
 * Lets `ms` of wall time pass on purpose, for what a test models AS time, never to set up a race
 * (that is `waitFor` on an event): a load client's backoff before it retries, a soak run's half-way
 * point, the period of a sampler inside a plugin that emits nothing to wait on. `why` says which,
 * so each use reads as a decision rather than a guess.
 */
export async function letTimePass(ms: number, why: string): Promise<void> {
  if (why.trim() === "") throw new SandboxError("invalid_argument", "letTimePass needs a reason");
  await new Promise((resolve) => setTimeout(resolve, ms));
}

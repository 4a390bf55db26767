/** Helpers every client test uses, with no server of their own. */
import { isSiyuanApiError, type SiyuanApiError } from "../../src/index.js";

/** A sleep that returns at once, so retry backoff costs no test time. */
export const instantSleep = async (): Promise<void> => {};

/** Awaits a promise that must fail with a SiyuanApiError, and returns the error. */
export async function failure(p: Promise<unknown>): Promise<SiyuanApiError> {
  try {
    await p;
  } catch (err) {
    if (isSiyuanApiError(err)) return err;
    throw err;
  }
  throw new Error("expected a SiyuanApiError, got success");
}

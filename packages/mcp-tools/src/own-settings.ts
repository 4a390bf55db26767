/**
 * A call whose own settings snapshot is still being read when it starts (the Node server reads it
 * beside the call's first kernel reads): the read port the call uses until it meets its snapshot,
 * and whether a snapshot that differs from the one the call started under changes what its reads
 * so far could answer. The verdict itself is `SettingsVerdict` (runtime.ts).
 */
import { canonicalJson } from "@sisyphus/core-hash";
import { isSiyuanApiError, type SiyuanClient } from "@sisyphus/siyuan-api/kernel";
import type { KernelReads } from "./kernel.js";
import { kernelFromClient } from "./kernel-client.js";
import type { PermissionMap } from "./permissions.js";
import type { CallOptions } from "./settings.js";

/** The part of a settings snapshot a call runs under. */
export interface CallSettings {
  readonly permissions: PermissionMap;
  readonly options: CallOptions;
}

/**
 * Whether what a call read and decided under `startedUnder` may differ under `own`: their
 * permissions, the template budget and the feedback address differ, or the page size when the
 * call's paged read took the settings' (`pageSizeDefaulted`). Not the read attempts, which
 * {@link readsBeside} already takes from `own`, nor what only the shell reads (allowed origins,
 * turned-off names, the authority switch).
 */
export function changesReads(
  startedUnder: CallSettings,
  own: CallSettings,
  pageSizeDefaulted: boolean,
): boolean {
  const used = (s: CallSettings) =>
    canonicalJson({
      permissions: s.permissions,
      templateBudgetBytes: s.options.templateBudgetBytes,
      feedbackUrl: s.options.feedbackUrl ?? null,
      ...(pageSizeDefaulted ? { pageSize: s.options.pageSize } : {}),
    });
  return used(startedUnder) !== used(own);
}

/**
 * `block.getBlockInfo`'s "still indexing" answer, which the client retries like a transient
 * failure (siyuan-api's `GET_BLOCK_INFO_INDEXING_CODE`, not part of its entry points).
 */
const GET_BLOCK_INFO_INDEXING = 3;

/** A failure of one attempt that the client's read retries would try again. */
function retryable(method: string, e: unknown): boolean {
  if (!isSiyuanApiError(e)) return false;
  if (e.details.transient === true) return true;
  return (
    method === "getBlockInfo" &&
    e.code === "kernel_rejected" &&
    e.details.kernelCode === GET_BLOCK_INFO_INDEXING
  );
}

/**
 * The read port of a call that runs before it knows its own settings: each read is sent once, and
 * one whose failure a retry could cure waits for the call's own read attempts (`ownAttempts`, the
 * settings' `readRetries`, the first attempt included) and is tried again as far as they allow —
 * so a read makes the attempts of the call's own snapshot, never of the one it started under.
 */
export function readsBeside(client: SiyuanClient, ownAttempts: () => Promise<number>): KernelReads {
  const once = kernelFromClient(client.withReadRetry({ maxAttempts: 1 }))
    .reads as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const port: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const [method, read] of Object.entries(once)) {
    port[method] = async (...args) => {
      try {
        return await read(...args);
      } catch (e) {
        if (!retryable(method, e)) throw e;
        const attempts = await ownAttempts();
        if (attempts <= 1) throw e;
        const rest = kernelFromClient(client.withReadRetry({ maxAttempts: attempts - 1 }))
          .reads as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
        return (rest[method] as (...args: unknown[]) => Promise<unknown>)(...args);
      }
    };
  }
  return port as unknown as KernelReads;
}

/**
 * `file.upload_asset(localFilePath)` when the kernel plugin is the authority (spec "Kernel file
 * transfer"): the kernel cannot read this host's files, so the delegating side (a Node front, the
 * CLI) reads the file, asks `/transfer/lookup` whether the kernel already holds exactly these bytes
 * under this name, uploads them to `/transfer/upload` otherwise, and sends the call with the
 * returned `uploadSource` instead of the path. A preflight answered this way carries the handle,
 * so a replay needs no local file.
 *
 * Everything here happens before the business call is sent: every failure answers a typed error
 * with `writeAttempted: false` (never `outcome_unknown`). A file over the kernel's staging cap is
 * refused before any request: it needs the Node coordinator, and is never sent around the
 * selected authority.
 */
import { createHash } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { parseCredential } from "@sisyphus/core-hash";
import { errorResult, type ToolErrorCode } from "@sisyphus/mcp-tools/answers";
import {
  KERNEL_STAGING_FILE_MAX_BYTES,
  KERNEL_TRANSFER_LOOKUP_PATH,
  KERNEL_TRANSFER_UPLOAD_PATH,
} from "@sisyphus/mcp-tools/settings";
import { shellError } from "@sisyphus/mcp-tools/shell";
import { WriteSafetyError } from "@sisyphus/write-safety";
import { type KernelAddress, type KernelAnswer, kernelRequest } from "./kernel-request.js";
import { localFileSourceReader } from "./local-source.js";
import type { OnTransfer } from "./transfer-progress.js";

/** Deadline of one staging (lookup, upload and its retries together), in milliseconds (spec: 120 s). */
export const STAGING_TIMEOUT_MS = 120_000;
/** Uploads tried while the kernel answers 429 (two stagings already hashing). */
export const STAGING_BUSY_ATTEMPTS = 4;
/** Pause after a 429, in milliseconds: the kernel's `Retry-After` (1 s), at most this long. */
export const STAGING_BUSY_PAUSE_MAX_MS = 2_000;
/**
 * A lookup hit expiring sooner than this, in milliseconds, is uploaded again instead (same name and
 * content: the kernel answers the same handle and restarts its 10 minutes; a lookup does not).
 */
export const LOOKUP_REUSE_MARGIN_MS = 60_000;

/** The file name header of a raw upload. */
const FILE_NAME_HEADER = "X-Sisyphus-File-Name";

/** A file the kernel holds for this call. */
interface Staged {
  readonly uploadSource: string;
  /** ISO 8601, the kernel's. */
  readonly expiresAt: string;
}

type Outcome<T> = { ok: T } | { refusal: CallToolResult };

/** The kernel's lookup answer `source` when the credential names other bytes (both its aliases). */
interface SourceDiffers {
  readonly expectedHash: string;
  readonly currentHash: string;
}

/** Whether a call is `file.upload_asset` of a local file (and not also of a handle). */
export function isLocalUpload(tool: string, args: Record<string, unknown>): boolean {
  return (
    tool === "file" &&
    args["action"] === "upload_asset" &&
    typeof args["localFilePath"] === "string" &&
    args["uploadSource"] === undefined
  );
}

/** Makes a signal that aborts `ms` milliseconds from now: staging's deadline (a test's fake clock). */
export type StagingDeadline = (ms: number) => AbortSignal;

/**
 * Stages `args.localFilePath` at the kernel and sends the call through `forward` with
 * `uploadSource` instead; a preflight's answer gains `uploadSource` and `uploadSourceExpiresAt`.
 * `deadline` makes the staging's deadline of {@link STAGING_TIMEOUT_MS} (default: the system
 * timer's). Never throws.
 */
export async function stagedUploadCall(
  kernel: KernelAddress,
  args: Record<string, unknown>,
  signal: AbortSignal | undefined,
  forward: (args: Record<string, unknown>) => Promise<CallToolResult>,
  onTransfer?: OnTransfer,
  deadline: StagingDeadline = (ms) => AbortSignal.timeout(ms),
): Promise<CallToolResult> {
  const path = args["localFilePath"] as string;
  const read = await localFileSourceReader().read(
    { localFilePath: path },
    { maxBytes: KERNEL_STAGING_FILE_MAX_BYTES },
  );
  if ("error" in read) {
    return read.error === "source_too_large"
      ? tooLarge(path, read.size)
      : toolError(read.error, read.message, { source: "localFilePath" });
  }
  const sha256 = createHash("sha256").update(read.bytes).digest("hex");
  const size = read.bytes.length;
  const report = (bytes: number, done: boolean) =>
    onTransfer?.({ direction: "upload", path: read.fileName, bytes, total: size, done });
  report(0, false);
  const credential = commitCredential(args);
  const staged = await stage(
    kernel,
    read.fileName,
    read.bytes,
    sha256,
    signal,
    credential,
    deadline,
  );
  report("ok" in staged ? size : 0, true);
  if ("changed" in staged) return sourceChanged(args, staged.changed);
  if ("refusal" in staged) return staged.refusal;
  const { localFilePath: _, ...rest } = args;
  const result = await forward({ ...rest, uploadSource: staged.ok.uploadSource });
  return args["validateOnly"] === true ? withHandle(result, staged.ok) : result;
}

/** A commit's `expectedSourceHash`, sent with the lookup so the kernel compares it; else undefined. */
function commitCredential(args: Record<string, unknown>): string | undefined {
  if (args["validateOnly"] === true || typeof args["requestId"] !== "string") return undefined;
  const credential = args["expectedSourceHash"];
  return typeof credential === "string" && parseCredential(credential).ok ? credential : undefined;
}

/**
 * A commit whose credential names other bytes than the file holds now: `state_changed`, before
 * anything is staged. The kernel decides it in the lookup, through its alias pool (the credential
 * resolves exactly to the leased digest, which it compares with the file's full SHA-256): other
 * content would get another handle, which is another call to the kernel (`idempotency_conflict`).
 * Both hashes are the kernel's aliases, so `currentHash` resolves there.
 */
function sourceChanged(args: Record<string, unknown>, changed: SourceDiffers): CallToolResult {
  const error = new WriteSafetyError("state_changed", {
    message: `${String(args["localFilePath"])} changed after preflight; nothing was staged or written.`,
    details: {
      requestId: String(args["requestId"]),
      preconditionField: "expectedSourceHash",
      reason: "source_changed",
      expectedHash: changed.expectedHash,
      currentHash: changed.currentHash,
    },
  });
  return errorResult({ ...error.toJSON() }) as CallToolResult;
}

/** The preflight answer with the handle, in the structured content and its text alike. */
function withHandle(result: CallToolResult, staged: Staged): CallToolResult {
  const sc = result.structuredContent;
  if (result.isError === true || sc === undefined) return result;
  const structuredContent = {
    ...sc,
    uploadSource: staged.uploadSource,
    uploadSourceExpiresAt: staged.expiresAt,
  };
  return {
    ...result,
    content: [{ type: "text", text: JSON.stringify(structuredContent) }],
    structuredContent,
  };
}

/**
 * The handle of these bytes at the kernel: a live lookup hit, else a fresh upload. With a commit's
 * `credential`, the lookup also asks whether it names these bytes: `changed` when it does not.
 */
async function stage(
  kernel: KernelAddress,
  fileName: string,
  bytes: Uint8Array,
  sha256: string,
  signal: AbortSignal | undefined,
  credential: string | undefined,
  timer: StagingDeadline,
): Promise<Outcome<Staged> | { changed: SourceDiffers }> {
  const deadline = timer(STAGING_TIMEOUT_MS);
  const stop = signal === undefined ? deadline : AbortSignal.any([signal, deadline]);
  try {
    const lookup = await kernelRequest(kernel, KERNEL_TRANSFER_LOOKUP_PATH, {
      json: {
        fileName,
        sha256,
        size: bytes.length,
        ...(credential === undefined ? {} : { expectedSourceHash: credential }),
      },
      timeoutMs: STAGING_TIMEOUT_MS,
      signal: stop,
    });
    const found = lookup.json();
    if (!ok(lookup)) return { refusal: kernelRefusal(lookup, found) };
    const differs = sourceDiffers(found);
    if (differs !== undefined) return { changed: differs };
    const hit = stagedOf(found);
    if (found?.["found"] === true && hit !== undefined && lives(hit)) return { ok: hit };
    for (let attempt = 1; ; attempt++) {
      const res = await kernelRequest(kernel, KERNEL_TRANSFER_UPLOAD_PATH, {
        bytes,
        headers: { [FILE_NAME_HEADER]: encodeURIComponent(fileName) },
        timeoutMs: STAGING_TIMEOUT_MS,
        signal: stop,
      });
      const answer = res.json();
      if (res.status === 429 && attempt < STAGING_BUSY_ATTEMPTS) {
        await pause(Math.min(retryAfterMs(res, answer) ?? 1_000, STAGING_BUSY_PAUSE_MAX_MS), stop);
        continue;
      }
      const staged = ok(res) ? stagedOf(answer) : undefined;
      if (staged === undefined) return { refusal: kernelRefusal(res, answer) };
      return { ok: staged };
    }
  } catch {
    if (signal?.aborted === true) {
      return {
        refusal: shellError(
          "cancelled",
          "The call was cancelled while its file was staged; nothing was written.",
          {},
          { writeAttempted: false },
        ),
      };
    }
    return deadline.aborted
      ? unavailable(
          "staging_timeout",
          `The kernel did not take the file within ${STAGING_TIMEOUT_MS / 1000} s; nothing was written.`,
        )
      : unavailable(
          "unreachable",
          "The kernel cannot be reached to stage the file; nothing was sent.",
        );
  }
}

/** The lookup's `source` when the kernel found the credential naming other bytes. */
function sourceDiffers(answer: Record<string, unknown> | undefined): SourceDiffers | undefined {
  const source = answer?.["source"] as Record<string, unknown> | undefined;
  const expectedHash = source?.["expectedHash"];
  const currentHash = source?.["currentHash"];
  return source?.["credential"] === "differs" &&
    typeof expectedHash === "string" &&
    typeof currentHash === "string"
    ? { expectedHash, currentHash }
    : undefined;
}

/** Whether a lookup hit lives long enough to be used without uploading again. */
function lives(hit: Staged): boolean {
  return Date.parse(hit.expiresAt) - Date.now() > LOOKUP_REUSE_MARGIN_MS;
}

/** A 2xx answer. */
function ok(res: KernelAnswer): boolean {
  return res.status >= 200 && res.status < 300;
}

function stagedOf(answer: Record<string, unknown> | undefined): Staged | undefined {
  const uploadSource = answer?.["uploadSource"];
  const expiresAt = answer?.["expiresAt"];
  return typeof uploadSource === "string" && typeof expiresAt === "string"
    ? { uploadSource, expiresAt }
    : undefined;
}

/** When to try again: the `Retry-After` header (seconds), else the answer's `retryAfterMs`. */
function retryAfterMs(
  res: KernelAnswer,
  answer: Record<string, unknown> | undefined,
): number | undefined {
  const header = Number(res.header("retry-after") ?? Number.NaN);
  if (Number.isFinite(header) && header >= 0) return header * 1000;
  const details = answer?.["details"] as { retryAfterMs?: unknown } | undefined;
  return typeof details?.retryAfterMs === "number" ? details.retryAfterMs : undefined;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** The typed answer to a staging endpoint's refusal (the kernel's `{error, message, details}`). */
function kernelRefusal(
  res: KernelAnswer,
  answer: Record<string, unknown> | undefined,
): CallToolResult {
  const code = typeof answer?.["error"] === "string" ? answer["error"] : undefined;
  const said = typeof answer?.["message"] === "string" ? `: ${answer["message"]}` : "";
  const details = (answer?.["details"] ?? {}) as Record<string, unknown>;
  if (res.status === 401 || res.status === 403) {
    return unavailable(
      "unauthorized",
      "The kernel refused the SiYuan API token while staging the file; nothing was sent.",
    ).refusal;
  }
  if (res.status === 413) {
    return tooLarge(undefined, typeof details["size"] === "number" ? details["size"] : undefined);
  }
  if (res.status === 400 && code !== undefined) {
    return toolError("invalid_arguments", `The kernel cannot stage this file (${code})${said}`, {
      source: "localFilePath",
      stagingError: code,
      ...details,
    });
  }
  const retry = retryAfterMs(res, answer);
  const extra = retry === undefined ? {} : { retryAfterMs: retry };
  if (res.status === 429) {
    return unavailable(
      "staging_busy",
      `The kernel was still staging other files after ${STAGING_BUSY_ATTEMPTS} tries; nothing was written. Retry shortly.`,
      extra,
    ).refusal;
  }
  if (res.status === 507) {
    return unavailable(
      "staging_full",
      `The kernel's staging area is full until entries expire${retry === undefined ? "" : ` (in about ${Math.ceil(retry / 1000)} s)`}; nothing was written. Retry then.`,
      { ...extra, ...(typeof details["limit"] === "string" ? { limit: details["limit"] } : {}) },
    ).refusal;
  }
  // 404/503 from the kernel's plugin route: the plugin is not serving (or predates staging).
  return unavailable(
    code === undefined || res.status === 404 ? "not_serving" : code,
    `The kernel plugin did not stage the file (HTTP ${res.status}${code === undefined ? "" : ` ${code}`})${said}; nothing was written.`,
    extra,
  ).refusal;
}

/** A file over the kernel's staging cap: it needs the Node coordinator. */
function tooLarge(path: string | undefined, size: number | undefined): CallToolResult {
  const what = path === undefined ? "The file" : path;
  const mib = KERNEL_STAGING_FILE_MAX_BYTES / (1024 * 1024);
  return toolError(
    "source_too_large",
    `${what}${size === undefined ? "" : ` has ${size} bytes and`} is larger than the kernel plugin stages (${mib} MiB): with the kernel as the write authority it cannot be uploaded. Files above the cap need the Node coordinator (turn off the kernel endpoint in the Sisyphus settings); nothing was sent.`,
    {
      limit: KERNEL_STAGING_FILE_MAX_BYTES,
      ...(size === undefined ? {} : { size }),
      reason: "kernel_staging_cap",
    },
  );
}

function toolError(
  code: ToolErrorCode,
  message: string,
  details: Record<string, unknown>,
): CallToolResult {
  return errorResult({
    code,
    message,
    ...details,
    writeAttempted: false,
  }) as CallToolResult;
}

function unavailable(
  reason: string,
  message: string,
  extra: Record<string, unknown> = {},
): { refusal: CallToolResult } {
  return {
    refusal: shellError(
      "write_coordinator_unavailable",
      message,
      { reason, ...extra },
      { writeAttempted: false },
    ),
  };
}

/**
 * `/transfer/upload` and `/transfer/lookup` (spec "Kernel file transfer"): files staged in the
 * kernel's memory for `upload_asset(uploadSource)`, hashed here (the staging area's comment has the
 * limits and the contract of `staging.get`).
 *
 * Upload, `POST`, one of two forms:
 * - `Content-Type: application/octet-stream`, the bytes as the body, the file name percent-encoded
 *   (`encodeURIComponent`, UTF-8; `+` is a plus) in `X-Sisyphus-File-Name`;
 * - `Content-Type: application/json`, `{fileName, dataBase64}` with standard padded base64
 *   (RFC 4648 §4: `A–Z a–z 0–9 + /`, `=` padding, no white space).
 * It answers `{uploadSource, fileName, sha256, size, expiresAt (ISO 8601), reused}`.
 * Lookup, `POST {fileName, sha256, size, expectedSourceHash?}`: `{found: true, …the same fields}`
 * for a live entry with exactly that name, full digest and size, else `{found: false}`. With
 * `expectedSourceHash` (a commit's credential) it also answers `source`, decided with the
 * coordinator's alias pool ({@link sourceCheck}): a delegating side learns before staging anything
 * whether the file changed since its preflight, and the alias of what it holds now.
 *
 * Errors are `{error: <code>, message, details?}`: 400 `invalid_json`, `invalid_arguments`,
 * `invalid_file_name` (details.reason), `empty_file`, `invalid_base64`, `invalid_sha256`,
 * `invalid_size`; 405; 413 `file_too_large`; 415 `unsupported_content_type`; 429 `staging_busy`;
 * 503 `staging_cleared`; 507 `staging_full` (with `Retry-After`).
 *
 * The kernel buffers the whole request body before the handler runs (contract §8.6: no size
 * limit), so a body over the cap is refused from `Content-Length` without being read again.
 */
import { type AliasPool, STATE_DIGEST_PREFIX, type StateDigest } from "@sisyphus/core-hash";
import { systemClock } from "@sisyphus/write-safety";
import { jsonResponse } from "./http-bridge.js";
import type { PluginRequest, PluginResponse } from "./runtime-globals.js";
import {
  fileNameProblem,
  type StagedFile,
  StagingArea,
  type StagingCounts,
  type StagingRefusal,
  type StagingRefusalCode,
} from "./staging.js";

/** goja_nodejs's `Buffer` (contract §6): the native base64 decoder. */
declare const Buffer: { from(text: string, encoding: "base64"): Uint8Array };

/** The name header of a raw upload (Go's canonical spelling; matched without case). */
export const FILE_NAME_HEADER = "X-Sisyphus-File-Name";

const g = globalThis as { setImmediate?: (fn: () => void) => unknown };

/**
 * One turn of the runtime's event loop: `setImmediate` where the runtime has it (goja_nodejs's is
 * only inferred for 3.7.3, contract §6), else a zero timeout. Requests queued meanwhile run.
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof g.setImmediate === "function") g.setImmediate(resolve);
    else setTimeout(resolve, 0);
  });
}

/** The plugin's one staging area; `onunload` clears it. */
export const staging = new StagingArea({
  clock: systemClock,
  yieldFn: yieldToEventLoop,
});

/** `/health`'s staging numbers. */
export function stagingCounts(): StagingCounts {
  return staging.counts();
}

const STATUS: Record<StagingRefusalCode, number> = {
  invalid_file_name: 400,
  empty_file: 400,
  file_too_large: 413,
  staging_busy: 429,
  staging_cleared: 503,
  staging_full: 507,
};

/** Largest base64 text of a file at the cap, plus room for the JSON around it. */
const JSON_BODY_MAX = Math.ceil(staging.limits.fileBytes / 3) * 4 + 4096;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/** Serves `path` (`/transfer/…`); `aliases` is the write coordinator's alias pool. */
export async function serveTransfer(
  req: PluginRequest,
  path: string,
  aliases: AliasPool,
): Promise<PluginResponse> {
  if (path !== "/transfer/upload" && path !== "/transfer/lookup") {
    return jsonResponse(404, { error: "not_found" });
  }
  if (req.request.method !== "POST") return jsonResponse(405, { error: "method_not_allowed" });
  return path === "/transfer/upload" ? upload(req) : lookup(req, aliases);
}

/**
 * What a commit's `expectedSourceHash` says about the bytes whose full SHA-256 is `sha256`,
 * resolved through the alias pool (exact alias, never a prefix of the digest):
 * - `matches`: it names these bytes;
 * - `unknown`: the pool holds no such alias (another process issued it): the commit decides;
 * - `differs`: it names other bytes (the file changed since its preflight), with the aliases of
 *   both digests, as a `state_changed` reports them.
 */
export type SourceCheck =
  | { readonly credential: "matches" | "unknown" }
  | { readonly credential: "differs"; readonly expectedHash: string; readonly currentHash: string };

/** Decides a {@link SourceCheck}; registers the current digest's alias only when it differs. */
export function sourceCheck(aliases: AliasPool, credential: string, sha256: string): SourceCheck {
  const named = aliases.resolve(credential);
  if (named === undefined) return { credential: "unknown" };
  const current: StateDigest = `${STATE_DIGEST_PREFIX}${sha256.toLowerCase()}`;
  if (named === current) return { credential: "matches" };
  return {
    credential: "differs",
    expectedHash: aliases.aliasFor(named),
    currentHash: aliases.aliasFor(current),
  };
}

async function upload(req: PluginRequest): Promise<PluginResponse> {
  const type = req.request.contentType.toLowerCase();
  if (type !== "application/octet-stream" && type !== "application/json") {
    return failure(
      415,
      "unsupported_content_type",
      "send application/octet-stream or application/json",
      {
        contentType: req.request.contentType,
      },
    );
  }
  const busy = staging.busyRefusal();
  if (busy !== undefined) return refused(busy);
  const input = type === "application/json" ? await jsonUpload(req) : await rawUpload(req);
  if ("statusCode" in input) return input;
  await yieldToEventLoop();
  const outcome = await staging.stage(input.fileName, input.bytes);
  if (!outcome.ok) return refused(outcome.refusal);
  return jsonResponse(200, { ...fileAnswer(outcome.file), reused: outcome.reused });
}

/** A raw upload's name and bytes, or the error answer. */
async function rawUpload(
  req: PluginRequest,
): Promise<{ fileName: string; bytes: Uint8Array } | PluginResponse> {
  const values = headerValues(req, FILE_NAME_HEADER);
  if (values.length !== 1) {
    return refused(
      nameRefusal(
        values.length === 0 ? "missing" : "repeated",
        `send the file name, percent-encoded, in one ${FILE_NAME_HEADER} header`,
      ),
    );
  }
  let fileName: string;
  try {
    fileName = decodeURIComponent(values[0] as string);
  } catch {
    return refused(
      nameRefusal("bad_percent_encoding", `${FILE_NAME_HEADER} is not percent-encoded UTF-8`),
    );
  }
  const length = req.request.contentLength;
  const bad = fileNameProblem(fileName) ?? (length > 0 ? staging.sizeRefusal(length) : undefined);
  if (bad !== undefined) return refused(bad);
  const data = req.request.body.data;
  const bytes = data === null ? new Uint8Array(0) : new Uint8Array(await data.arrayBuffer());
  return { fileName, bytes };
}

/** A JSON upload's name and decoded bytes, or the error answer. */
async function jsonUpload(
  req: PluginRequest,
): Promise<{ fileName: string; bytes: Uint8Array } | PluginResponse> {
  if (req.request.contentLength > JSON_BODY_MAX) {
    return failure(413, "file_too_large", "the JSON body is larger than a file at the cap", {
      limit: staging.limits.fileBytes,
    });
  }
  // Each step below is one native call over the whole body (UTF-8 decode, parse, the base64
  // check, the decode): a turn of the event loop between them keeps each stall to one step.
  const text = await bodyText(req);
  await yieldToEventLoop();
  const body = parseObject(text);
  if (body === undefined) return failure(400, "invalid_json", "the body is not a JSON object");
  await yieldToEventLoop();
  const { fileName, dataBase64 } = body;
  const bad = fileNameProblem(fileName);
  if (bad !== undefined) return refused(bad);
  if (typeof dataBase64 !== "string") {
    return failure(400, "invalid_arguments", "dataBase64 is required (a string)");
  }
  if (dataBase64.length % 4 !== 0 || !BASE64.test(dataBase64)) {
    return failure(
      400,
      "invalid_base64",
      "dataBase64 is not standard padded base64 (A–Z a–z 0–9 + /, = padding, no white space)",
    );
  }
  const padding = dataBase64.endsWith("==") ? 2 : dataBase64.endsWith("=") ? 1 : 0;
  const size = (dataBase64.length / 4) * 3 - padding;
  const large = staging.sizeRefusal(size);
  if (large !== undefined) return refused(large);
  await yieldToEventLoop();
  return { fileName: fileName as string, bytes: Buffer.from(dataBase64, "base64") };
}

async function lookup(req: PluginRequest, aliases: AliasPool): Promise<PluginResponse> {
  const body = parseObject(await bodyText(req));
  if (body === undefined) return failure(400, "invalid_json", "the body is not a JSON object");
  const { fileName, sha256, size, expectedSourceHash } = body;
  const bad = fileNameProblem(fileName);
  if (bad !== undefined) return refused(bad);
  if (typeof sha256 !== "string" || !SHA256_HEX.test(sha256)) {
    return failure(400, "invalid_sha256", "sha256 must be the full digest: 64 hex digits");
  }
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) {
    return failure(400, "invalid_size", "size must be a non-negative integer (bytes)");
  }
  if (expectedSourceHash !== undefined && typeof expectedSourceHash !== "string") {
    return failure(400, "invalid_arguments", "expectedSourceHash must be a string");
  }
  const found = staging.lookup(fileName as string, sha256, size);
  const answer = found === undefined ? { found: false } : { found: true, ...fileAnswer(found) };
  return jsonResponse(
    200,
    expectedSourceHash === undefined
      ? answer
      : { ...answer, source: sourceCheck(aliases, expectedSourceHash, sha256) },
  );
}

async function bodyText(req: PluginRequest): Promise<string> {
  return (await req.request.body.data?.text()) ?? "";
}

/** `text` as a JSON object, or undefined. */
function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Every value of a request header, its name matched without case. */
function headerValues(req: PluginRequest, name: string): readonly string[] {
  const wanted = name.toLowerCase();
  const out: string[] = [];
  for (const key of Object.keys(req.request.headers)) {
    if (key.toLowerCase() === wanted) out.push(...(req.request.headers[key] ?? []));
  }
  return out;
}

function nameRefusal(reason: string, message: string): StagingRefusal {
  return { code: "invalid_file_name", message, details: { reason } };
}

function fileAnswer(file: StagedFile) {
  return {
    uploadSource: file.uploadSource,
    fileName: file.fileName,
    sha256: file.sha256,
    size: file.size,
    expiresAt: new Date(file.expiresAt).toISOString(),
  };
}

/** The answer to a refusal: its status, and `Retry-After` where waiting helps. */
function refused(r: StagingRefusal): PluginResponse {
  const res = failure(STATUS[r.code], r.code, r.message, r.details);
  const retryMs = r.code === "staging_busy" ? 1000 : r.details["retryAfterMs"];
  if (typeof retryMs === "number") {
    res.headers = { "Retry-After": [String(Math.max(1, Math.ceil(retryMs / 1000)))] };
  }
  return res;
}

function failure(
  status: number,
  error: string,
  message: string,
  details?: Readonly<Record<string, string | number>>,
): PluginResponse {
  return jsonResponse(
    status,
    details === undefined ? { error, message } : { error, message, details },
  );
}

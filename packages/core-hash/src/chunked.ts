/** Hashing large inputs in batches, yielding between batches so other work is not starved. */
import { CHUNK_BATCH_BYTES } from "./constants.js";
import { CoreHashError } from "./errors.js";
import { createSha256, describeType, isUint8Array } from "./sha256.js";

/** Options of `hashChunked`. */
export interface HashChunkedOptions {
  /** Bytes hashed between two yields; a positive integer, `CHUNK_BATCH_BYTES` (64 KiB) by default. */
  batchBytes?: number | undefined;
  /**
   * Called between batches (never before the first or after the last). The default only yields to
   * the microtask queue, since a pure package reads no timer globals; on Node inject
   * `yieldToEventLoop` from `@sisyphus/core-hash/node` to let I/O callbacks run.
   */
  yieldFn?: (() => Promise<void>) | undefined;
}

const microtaskYield = (): Promise<void> => Promise.resolve();

/**
 * SHA-256 (64 lowercase hex digits, through the installed backend) of a byte array or of the
 * concatenation of an (async) iterable's chunks, `batchBytes` at a time with `yieldFn` awaited
 * between batches. Chunks larger than a batch are split; smaller ones are gathered into one batch.
 * The result equals `sha256Hex` of the concatenated bytes, however the input is chunked.
 * @throws CoreHashError `invalid_argument` for a bad source, chunk or option.
 */
export async function hashChunked(
  source: Uint8Array | AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options: HashChunkedOptions = {},
): Promise<string> {
  const batchBytes = options.batchBytes ?? CHUNK_BATCH_BYTES;
  if (!Number.isSafeInteger(batchBytes) || batchBytes < 1) {
    throw new CoreHashError("invalid_argument", "batchBytes must be a positive integer", {
      argument: "batchBytes",
      received: String(batchBytes),
    });
  }
  const yieldFn = options.yieldFn ?? microtaskYield;
  if (typeof yieldFn !== "function") {
    throw new CoreHashError("invalid_argument", "yieldFn must be a function", {
      argument: "yieldFn",
    });
  }
  const hasher = createSha256();
  let inBatch = 0;

  const feed = async (bytes: Uint8Array): Promise<void> => {
    const n = bytes.length;
    let p = 0;
    while (p < n) {
      if (inBatch >= batchBytes) {
        await yieldFn();
        inBatch = 0;
      }
      const take = Math.min(batchBytes - inBatch, n - p);
      hasher.update(p === 0 && take === n ? bytes : bytes.subarray(p, p + take));
      p += take;
      inBatch += take;
    }
  };

  if (isUint8Array(source)) {
    await feed(source);
  } else if (isIterable(source)) {
    let index = 0;
    for await (const chunk of source) {
      if (!isUint8Array(chunk)) {
        throw new CoreHashError("invalid_argument", "every chunk must be a Uint8Array", {
          argument: "source",
          chunkIndex: index,
          received: describeType(chunk),
        });
      }
      await feed(chunk);
      index++;
    }
  } else {
    throw new CoreHashError(
      "invalid_argument",
      "hashChunked expects a Uint8Array or an (async) iterable of Uint8Array",
      { argument: "source", received: describeType(source) },
    );
  }
  return hasher.digestHex();
}

function isIterable(value: unknown): value is AsyncIterable<Uint8Array> | Iterable<Uint8Array> {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { [Symbol.asyncIterator]?: unknown; [Symbol.iterator]?: unknown };
  return typeof v[Symbol.asyncIterator] === "function" || typeof v[Symbol.iterator] === "function";
}

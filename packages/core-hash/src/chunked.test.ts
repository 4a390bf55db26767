import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashChunked } from "./chunked.js";
import { CHUNK_BATCH_BYTES } from "./constants.js";
import { yieldToEventLoop } from "./node.js";
import { portableSha256Hex } from "./sha256.js";

async function* chunksOf(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
  let prev = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield bytes.subarray(prev, cut);
    prev = cut;
  }
}

function pseudoRandomBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed | 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe("hashChunked", () => {
  it("equals one-shot hashing for random chunkings and batch sizes (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 4000 }),
        fc.array(fc.nat({ max: 4000 }), { maxLength: 10 }),
        fc.integer({ min: 1, max: 700 }),
        async (bytes, cuts, batchBytes) => {
          const points = [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort(
            (a, b) => a - b,
          );
          const expected = portableSha256Hex(bytes);
          expect(await hashChunked(chunksOf(bytes, points), { batchBytes })).toBe(expected);
          expect(await hashChunked(bytes, { batchBytes })).toBe(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("yields between 64 KiB batches, never before the first or after the last", async () => {
    const bytes = pseudoRandomBytes(5 * CHUNK_BATCH_BYTES, 7);
    let yields = 0;
    const digest = await hashChunked(bytes, {
      yieldFn: async () => {
        yields++;
      },
    });
    expect(digest).toBe(portableSha256Hex(bytes));
    expect(yields).toBe(4);
  });

  it("counts batches across small chunks of an async iterable", async () => {
    const bytes = pseudoRandomBytes(3 * CHUNK_BATCH_BYTES + 10, 9);
    const cuts: number[] = [];
    for (let c = 1000; c < bytes.length; c += 1000) cuts.push(c);
    let yields = 0;
    const digest = await hashChunked(chunksOf(bytes, cuts), {
      yieldFn: async () => {
        yields++;
      },
    });
    expect(digest).toBe(portableSha256Hex(bytes));
    expect(yields).toBe(3);
  });

  it("lets timers run between batches with yieldToEventLoop", async () => {
    const bytes = pseudoRandomBytes(8 * CHUNK_BATCH_BYTES, 3);
    let ticks = 0;
    let tick = () => {};
    const timer = setInterval(() => {
      ticks++;
      tick();
    }, 0);
    // Each yield goes on at the timer's next tick, which runs only if the hash left the loop free.
    const slowYield = async () => {
      await yieldToEventLoop();
      await new Promise<void>((resolve) => {
        tick = resolve;
      });
    };
    await hashChunked(bytes, { yieldFn: slowYield });
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
  });

  it("accepts a sync iterable and the empty input", async () => {
    expect(await hashChunked([])).toBe(portableSha256Hex(""));
    expect(await hashChunked(new Uint8Array(0))).toBe(portableSha256Hex(""));
    const parts = [new Uint8Array([97]), new Uint8Array([98, 99])];
    expect(await hashChunked(parts)).toBe(portableSha256Hex("abc"));
  });

  it("rejects a bad source, chunk or batch size with invalid_argument", async () => {
    const invalid = expect.objectContaining({ code: "invalid_argument" });
    await expect(hashChunked("abc" as never)).rejects.toThrowError(invalid);
    await expect(hashChunked([new Uint8Array(1), "x"] as never)).rejects.toThrowError(invalid);
    await expect(hashChunked(new Uint8Array(1), { batchBytes: 0 })).rejects.toThrowError(invalid);
    await expect(hashChunked(new Uint8Array(1), { batchBytes: 1.5 })).rejects.toThrowError(invalid);
  });
});

/**
 * SHA-256 (FIPS 180-4) in plain ECMAScript, plus the seam through which a runtime may register a
 * faster backend with identical output (see `@sisyphus/core-hash/node`).
 *
 * The portable implementation reads the message as 32-bit words through an `Int32Array` view (on a
 * little-endian host, which every current JavaScript engine runs on) and compresses them with the
 * generated, fully unrolled `compressWords`: working variables and the 16-word schedule in locals,
 * constants inlined, every sum wrapped with `| 0`, nothing allocated per block. Input that is not
 * 4-byte aligned goes through one preallocated 64 KiB scratch buffer. A big-endian host falls back
 * to a rolled byte-wise loop with a preallocated `Int32Array` schedule.
 */
import { CoreHashError } from "./errors.js";
import { compressWords } from "./sha256-rounds.generated.js";
import { utf8EncodeInto } from "./utf8.js";

/** An incremental SHA-256. Strings are hashed as their UTF-8 bytes, each `update` on its own. */
export interface Sha256 {
  /** Appends bytes (or a string's UTF-8). @throws CoreHashError `hash_finalized` after `digestHex`. */
  update(input: string | Uint8Array): Sha256;
  /** The 64 lowercase hex digits of the digest; calling it again returns the same value. */
  digestHex(): string;
}

/** A SHA-256 implementation that `sha256Hex`, `createSha256` and `stateHash` can delegate to. */
export interface Sha256Backend {
  /** Short name for diagnostics, e.g. `"node:crypto"`. */
  readonly name: string;
  /** One-shot digest: 64 lowercase hex digits; strings are hashed as UTF-8. */
  sha256Hex(input: string | Uint8Array): string;
  /** A fresh incremental hasher. */
  createSha256(): Sha256;
}

// First 32 bits of the fractional parts of the cube roots of the first 64 primes.
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

// First 32 bits of the fractional parts of the square roots of the first 8 primes.
const H0 = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

// One message schedule for the whole module: compression is synchronous and never re-entered.
const W = new Int32Array(64);

/** True when an `Int32Array` view reads bytes little-endian (all mainstream engines and CPUs). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

// Aligned staging area for input whose offset is not a multiple of 4 (64 KiB, a multiple of 64).
const SCRATCH_BYTES = 65536;
const scratch = new Uint8Array(SCRATCH_BYTES);
const scratchWords = new Int32Array(scratch.buffer);

// Strings are encoded to UTF-8 in pieces of at most STRING_PIECE_UNITS (+1) code units, at most 3
// bytes each, into their own staging area (the unaligned path above may be using `scratch`).
const STRING_PIECE_UNITS = 16384;
const encoded = new Uint8Array(3 * (STRING_PIECE_UNITS + 1));

const HEX_BYTE: string[] = [];
for (let i = 0; i < 256; i++) HEX_BYTE.push((i < 16 ? "0" : "") + i.toString(16));

/**
 * Compresses the 64-byte blocks of `data[offset, end)` into `state`; `end - offset` must be a
 * multiple of 64.
 */
function compressBlocks(state: Int32Array, data: Uint8Array, offset: number, end: number): void {
  if (!LITTLE_ENDIAN) {
    compressBytesRolled(state, data, offset, end);
    return;
  }
  const start = data.byteOffset + offset;
  if ((start & 3) === 0) {
    compressWords(
      state,
      new Int32Array(data.buffer, start, (end - offset) >> 2),
      0,
      (end - offset) >> 2,
    );
    return;
  }
  for (let p = offset; p < end; p += SCRATCH_BYTES) {
    const n = Math.min(SCRATCH_BYTES, end - p);
    scratch.set(data.subarray(p, p + n));
    compressWords(state, scratchWords, 0, n >> 2);
  }
}

/**
 * The rolled, byte-wise compression loop: correct on any host, used on big-endian ones and as the
 * reference that tests hold the unrolled version to. Exported for tests only (not from the index).
 */
export function compressBytesRolled(
  state: Int32Array,
  data: Uint8Array,
  offset: number,
  end: number,
): void {
  const w = W;
  const k = K;
  let h0 = state[0]! | 0;
  let h1 = state[1]! | 0;
  let h2 = state[2]! | 0;
  let h3 = state[3]! | 0;
  let h4 = state[4]! | 0;
  let h5 = state[5]! | 0;
  let h6 = state[6]! | 0;
  let h7 = state[7]! | 0;
  let p = offset | 0;
  while (p + 64 <= end) {
    for (let i = 0; i < 16; i++, p += 4) {
      w[i] = (data[p]! << 24) | (data[p + 1]! << 16) | (data[p + 2]! << 8) | data[p + 3]!;
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15]!;
      const y = w[i - 2]!;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (s1 + w[i - 7]! + s0 + w[i - 16]!) | 0;
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let h = h7;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + S1 + ((e & f) ^ (~e & g)) + k[i]! + w[i]!) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  state[0] = h0;
  state[1] = h1;
  state[2] = h2;
  state[3] = h3;
  state[4] = h4;
  state[5] = h5;
  state[6] = h6;
  state[7] = h7;
}

/** True for a `Uint8Array` (or `Buffer`) from any realm; false for other typed arrays. */
export function isUint8Array(value: unknown): value is Uint8Array {
  return (
    typeof value === "object" &&
    value !== null &&
    ArrayBuffer.isView(value) &&
    Object.prototype.toString.call(value) === "[object Uint8Array]"
  );
}

/** Throws `invalid_argument` unless `input` is a string or a `Uint8Array`. */
export function assertHashInput(
  input: unknown,
  where: string,
): asserts input is string | Uint8Array {
  if (typeof input !== "string" && !isUint8Array(input)) {
    throw new CoreHashError("invalid_argument", `${where} expects a string or a Uint8Array`, {
      argument: "input",
      received: describeType(input),
    });
  }
}

/** A short, content-free description of a value's type, for error details. */
export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  return Object.prototype.toString.call(value).slice(8, -1);
}

/** Throws `hash_finalized`; shared by every `Sha256` implementation so the message is the same. */
export function throwHashFinalized(): never {
  throw new CoreHashError("hash_finalized", "update called after digestHex; create a new hasher");
}

/** The portable incremental SHA-256: no Node API, no `TextEncoder`, no allocation per block. */
class PortableSha256 implements Sha256 {
  private readonly state = new Int32Array(H0);
  private readonly block = new Uint8Array(64);
  private readonly blockWords = new Int32Array(this.block.buffer);
  private blockLength = 0;
  private totalBytes = 0;
  private result: string | undefined = undefined;

  update(input: string | Uint8Array): Sha256 {
    if (this.result !== undefined) throwHashFinalized();
    assertHashInput(input, "Sha256.update");
    if (typeof input !== "string") {
      this.updateBytes(input, input.length);
      return this;
    }
    // UTF-8 piece by piece: no allocation proportional to the string, one pass over it.
    const n = input.length;
    for (let i = 0; i < n; ) {
      let j = Math.min(n, i + STRING_PIECE_UNITS);
      if (j < n) {
        // Keep a surrogate pair in one piece (a lone high surrogate needs no partner).
        const last = input.charCodeAt(j - 1);
        const next = input.charCodeAt(j);
        if (last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) j++;
      }
      this.updateBytes(encoded, utf8EncodeInto(input, i, j, encoded, 0));
      i = j;
    }
    return this;
  }

  /** Hashes `data[0, n)`. */
  private updateBytes(data: Uint8Array, n: number): void {
    this.totalBytes += n;
    let p = 0;
    if (this.blockLength > 0) {
      const take = Math.min(64 - this.blockLength, n);
      this.block.set(data.subarray(0, take), this.blockLength);
      this.blockLength += take;
      p = take;
      if (this.blockLength < 64) return;
      this.compressBlock();
      this.blockLength = 0;
    }
    const whole = p + ((n - p) & ~63);
    if (whole > p) compressBlocks(this.state, data, p, whole);
    if (whole < n) {
      this.block.set(data.subarray(whole, n), 0);
      this.blockLength = n - whole;
    }
  }

  /** Compresses the 64 bytes of `this.block` (no view allocated: `blockWords` is kept). */
  private compressBlock(): void {
    if (LITTLE_ENDIAN) compressWords(this.state, this.blockWords, 0, 16);
    else compressBytesRolled(this.state, this.block, 0, 64);
  }

  digestHex(): string {
    if (this.result !== undefined) return this.result;
    const block = this.block;
    let len = this.blockLength;
    block[len++] = 0x80;
    if (len > 56) {
      block.fill(0, len, 64);
      this.compressBlock();
      len = 0;
    }
    block.fill(0, len, 56);
    // Message length in bits as a 64-bit big-endian integer (byte counts stay below 2^53).
    const bits = this.totalBytes * 8;
    const hi = Math.floor(bits / 0x100000000);
    const lo = bits >>> 0;
    block[56] = hi >>> 24;
    block[57] = (hi >>> 16) & 0xff;
    block[58] = (hi >>> 8) & 0xff;
    block[59] = hi & 0xff;
    block[60] = lo >>> 24;
    block[61] = (lo >>> 16) & 0xff;
    block[62] = (lo >>> 8) & 0xff;
    block[63] = lo & 0xff;
    this.compressBlock();
    let hex = "";
    for (let i = 0; i < 8; i++) {
      const v = this.state[i]!;
      hex +=
        HEX_BYTE[(v >>> 24) & 0xff]! +
        HEX_BYTE[(v >>> 16) & 0xff]! +
        HEX_BYTE[(v >>> 8) & 0xff]! +
        HEX_BYTE[v & 0xff]!;
    }
    this.result = hex;
    return hex;
  }
}

/** A new portable incremental SHA-256, whatever backend is installed. */
export function createPortableSha256(): Sha256 {
  return new PortableSha256();
}

/** One-shot portable SHA-256: 64 lowercase hex digits, whatever backend is installed. */
export function portableSha256Hex(input: string | Uint8Array): string {
  assertHashInput(input, "portableSha256Hex");
  return new PortableSha256().update(input).digestHex();
}

/** The portable implementation as a backend, for symmetry and for tests. */
export const PORTABLE_SHA256_BACKEND: Sha256Backend = {
  name: "portable",
  sha256Hex: portableSha256Hex,
  createSha256: createPortableSha256,
};

let backend: Sha256Backend = PORTABLE_SHA256_BACKEND;

/**
 * Registers the SHA-256 implementation that `sha256Hex`, `createSha256`, `stateHash` and
 * `hashChunked` use; `undefined` restores the portable one. A backend must give identical digests:
 * this only trades speed. Runtimes call it once at start (`installNodeSha256()` on Node).
 * @throws CoreHashError `invalid_argument` if `next` lacks `sha256Hex` or `createSha256`.
 */
export function setSha256Backend(next: Sha256Backend | undefined): void {
  if (next === undefined) {
    backend = PORTABLE_SHA256_BACKEND;
    return;
  }
  if (
    typeof next !== "object" ||
    next === null ||
    typeof next.sha256Hex !== "function" ||
    typeof next.createSha256 !== "function"
  ) {
    throw new CoreHashError(
      "invalid_argument",
      "a Sha256Backend needs sha256Hex and createSha256",
      {
        argument: "backend",
      },
    );
  }
  backend = next;
}

/** Name of the backend in use: `"portable"` unless a runtime registered another. */
export function sha256BackendName(): string {
  return backend.name;
}

/**
 * SHA-256 of `input` (a string is hashed as its UTF-8) as 64 lowercase hex digits, through the
 * installed backend.
 * @throws CoreHashError `invalid_argument` if `input` is neither a string nor a `Uint8Array`.
 */
export function sha256Hex(input: string | Uint8Array): string {
  assertHashInput(input, "sha256Hex");
  return backend.sha256Hex(input);
}

/** A new incremental SHA-256 from the installed backend. */
export function createSha256(): Sha256 {
  return backend.createSha256();
}

/**
 * @sisyphus/core-hash/node: the Node fast path. `node:crypto` as the SHA-256 backend, giving
 * digests identical to the portable implementation, only faster. Kept out of the main entry so that
 * entry (and its global bundle) runs in a bare JavaScript context with no Node API.
 *
 * Runtimes (Node server, CLI, benches) call `installNodeSha256()` once at start.
 */
import { createHash, type Hash } from "node:crypto";
import {
  assertHashInput,
  type Sha256,
  type Sha256Backend,
  setSha256Backend,
  throwHashFinalized,
} from "./sha256.js";

/** SHA-256 through `node:crypto`: 64 lowercase hex digits; strings are hashed as UTF-8. */
export function nodeSha256Hex(input: string | Uint8Array): string {
  assertHashInput(input, "nodeSha256Hex");
  return createHash("sha256").update(input).digest("hex");
}

class NodeSha256 implements Sha256 {
  private readonly hash: Hash = createHash("sha256");
  private result: string | undefined = undefined;

  update(input: string | Uint8Array): Sha256 {
    if (this.result !== undefined) throwHashFinalized();
    assertHashInput(input, "Sha256.update");
    this.hash.update(input);
    return this;
  }

  digestHex(): string {
    if (this.result === undefined) this.result = this.hash.digest("hex");
    return this.result;
  }
}

/** A new incremental SHA-256 on `node:crypto`, with the same contract as `createSha256()`. */
export function createNodeSha256(): Sha256 {
  return new NodeSha256();
}

/** `node:crypto` as a `Sha256Backend`. */
export const NODE_SHA256_BACKEND: Sha256Backend = {
  name: "node:crypto",
  sha256Hex: nodeSha256Hex,
  createSha256: createNodeSha256,
};

/**
 * Makes `node:crypto` the backend of `sha256Hex`, `createSha256`, `stateHash` and `hashChunked`.
 * Idempotent. Digests do not change; only speed does.
 */
export function installNodeSha256(): void {
  setSha256Backend(NODE_SHA256_BACKEND);
}

/** A `hashChunked` `yieldFn` that lets pending I/O callbacks run (`setImmediate`). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

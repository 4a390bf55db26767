/**
 * The in-memory preflight lease pool of one coordinator process. A lease binds a scope key to the
 * complete digest a preflight observed; the caller holds only the digest's alias from the shared
 * core-hash `AliasPool`. Leases never persist: a new process (new epoch) starts empty.
 */
import type { AliasPool, StateDigest } from "@sisyphus/core-hash";
import type { Clock } from "./clock.js";
import {
  LEASE_TOMBSTONES_MAX,
  LEASE_TTL_MS,
  LEASES_GLOBAL_MAX,
  LEASES_PER_SCOPE_MAX,
} from "./constants.js";

/** One active lease. Holds digests and times only, never state content. */
export interface Lease {
  readonly scopeKey: string;
  /** The complete digest the preflight probed. */
  readonly digest: StateDigest;
  /** The alias handed to the caller (the digest's alias in the shared pool). */
  readonly credential: string;
  /** Epoch ms of issue (or last refresh). */
  readonly issuedAt: number;
  /** Epoch ms, as answered to the caller (`leaseExpiresAt`): wall-clock issue time + TTL. */
  readonly expiresAt: number;
  /**
   * When the lease stops resolving, on the pool's monotonic clock: it resolves while
   * `monotonic.now() < deadline`, so a wall-clock step neither extends nor cuts it.
   */
  readonly deadline: number;
  /** Process epoch of the pool that issued it. */
  readonly epoch: string;
}

/**
 * Result of {@link LeasePool.resolve}:
 * - `found`: an active lease in that scope holds the digest the credential names;
 * - `missing`: no such lease (unknown alias, or a digest this scope never leased, or too long ago);
 * - `expired`: it existed but its TTL passed;
 * - `evicted`: it was pushed out by the capacity limits;
 * - `consumed`: it was used up ({@link LeasePool.consume}: a write was attempted or the state was
 *   found changed) and not issued again since;
 * - `other-epoch`: the caller's record says it was issued by another process epoch.
 */
export type LeaseResolution =
  | { readonly status: "found"; readonly lease: Lease }
  | { readonly status: "missing" | "expired" | "evicted" | "consumed" | "other-epoch" };

/** Capacity limits; defaults are {@link LEASES_PER_SCOPE_MAX} and {@link LEASES_GLOBAL_MAX}. */
export interface LeaseLimits {
  perScope?: number;
  global?: number;
}

/** Options of {@link LeasePool}. */
export interface LeasePoolOptions {
  /** Wall clock: issue times and the `expiresAt` answered to callers. */
  clock: Clock;
  /**
   * Monotonic clock that decides expiry (leases never outlive the process, so a process-local
   * clock such as `performance.now` is enough); default `clock` (for runtimes without one).
   */
  monotonic?: Clock;
  /** Process epoch this pool belongs to. */
  epoch: string;
  /** The runtime's shared alias pool (receipts use the same pool). */
  aliases: AliasPool;
  limits?: LeaseLimits;
  /** Lease lifetime in ms; default {@link LEASE_TTL_MS}. */
  ttlMs?: number;
}

/** Why a lease that is gone went away (kept for the last {@link LEASE_TOMBSTONES_MAX}). */
type Tombstone = "expired" | "evicted" | "consumed";

const entryKey = (scopeKey: string, digest: string): string => `${scopeKey}\u0000${digest}`;

/**
 * Issues, resolves and consumes leases. Eviction is oldest-first (by issue/refresh time), per
 * scope and globally. Expiry is checked on every call against the injected monotonic clock.
 */
export class LeasePool {
  readonly epoch: string;
  readonly perScopeMax: number;
  readonly globalMax: number;
  readonly ttlMs: number;
  readonly #clock: Clock;
  readonly #monotonic: Clock;
  readonly #aliases: AliasPool;
  /** Insertion order = age order (a refresh re-inserts), so the head is the oldest and first to expire. */
  readonly #leases = new Map<string, Lease>();
  /** scope key → its entry keys, oldest first. */
  readonly #byScope = new Map<string, string[]>();
  readonly #tombstones = new Map<string, Tombstone>();

  constructor(options: LeasePoolOptions) {
    this.#clock = options.clock;
    this.#monotonic = options.monotonic ?? options.clock;
    this.epoch = options.epoch;
    this.#aliases = options.aliases;
    this.perScopeMax = options.limits?.perScope ?? LEASES_PER_SCOPE_MAX;
    this.globalMax = options.limits?.global ?? LEASES_GLOBAL_MAX;
    this.ttlMs = options.ttlMs ?? LEASE_TTL_MS;
    if (!(this.perScopeMax >= 1 && this.globalMax >= 1)) {
      throw new RangeError("lease limits must be at least 1");
    }
  }

  /** Active leases (expired ones are pruned first). */
  get size(): number {
    this.#pruneExpired(this.#monotonic.now());
    return this.#leases.size;
  }

  /**
   * Issue (or refresh) the lease for `(scopeKey, digest)`, valid {@link LEASE_TTL_MS} from now.
   * Evicts the oldest lease of the scope, then the oldest overall, when a limit is exceeded.
   */
  issue(scopeKey: string, digest: StateDigest): Lease {
    const now = this.#clock.now();
    const tick = this.#monotonic.now();
    this.#pruneExpired(tick);
    const key = entryKey(scopeKey, digest);
    if (this.#leases.has(key)) this.#remove(key);
    this.#tombstones.delete(key);
    const lease: Lease = Object.freeze({
      scopeKey,
      digest,
      credential: this.#aliases.aliasFor(digest),
      issuedAt: now,
      expiresAt: now + this.ttlMs,
      deadline: tick + this.ttlMs,
      epoch: this.epoch,
    });
    this.#leases.set(key, lease);
    const scoped = this.#byScope.get(scopeKey);
    if (scoped === undefined) this.#byScope.set(scopeKey, [key]);
    else scoped.push(key);
    const inScope = this.#byScope.get(scopeKey)!;
    while (inScope.length > this.perScopeMax) this.#evict(inScope[0]!);
    while (this.#leases.size > this.globalMax) {
      const oldest = this.#leases.keys().next().value as string;
      this.#evict(oldest);
    }
    return lease;
  }

  /**
   * Resolve a credential within a scope: exact alias → full digest → the active lease of that
   * scope holding that digest. `credentialHex` is lowercase hex as core-hash `parseCredential`
   * returns it; a 64-digit value is only a lookup key too. `expectEpoch`, when given, is the epoch
   * the caller's durable record says issued the lease; a different one answers `other-epoch`.
   */
  resolve(scopeKey: string, credentialHex: string, expectEpoch?: string): LeaseResolution {
    if (expectEpoch !== undefined && expectEpoch !== this.epoch) return { status: "other-epoch" };
    const tick = this.#monotonic.now();
    this.#pruneExpired(tick);
    const digest = this.#aliases.resolve(credentialHex);
    if (digest === undefined) return { status: "missing" };
    const key = entryKey(scopeKey, digest);
    const lease = this.#leases.get(key);
    if (lease !== undefined) {
      if (tick < lease.deadline) return { status: "found", lease };
      this.#remove(key);
      this.#tomb(key, "expired");
      return { status: "expired" };
    }
    const tomb = this.#tombstones.get(key);
    return { status: tomb ?? "missing" };
  }

  /** Remove a lease after a write was attempted or the state was found changed. Idempotent. */
  consume(lease: Lease): void {
    const key = entryKey(lease.scopeKey, lease.digest);
    const current = this.#leases.get(key);
    if (current !== undefined && current.issuedAt === lease.issuedAt) {
      this.#remove(key);
      this.#tomb(key, "consumed");
    }
  }

  #pruneExpired(tick: number): void {
    for (const [key, lease] of this.#leases) {
      // Every lease has the same TTL and the monotonic clock never steps back, so age order is
      // expiry order.
      if (tick < lease.deadline) break;
      this.#remove(key);
      this.#tomb(key, "expired");
    }
  }

  #evict(key: string): void {
    this.#remove(key);
    this.#tomb(key, "evicted");
  }

  #remove(key: string): void {
    const lease = this.#leases.get(key);
    if (lease === undefined) return;
    this.#leases.delete(key);
    const scoped = this.#byScope.get(lease.scopeKey);
    if (scoped !== undefined) {
      const i = scoped.indexOf(key);
      if (i >= 0) scoped.splice(i, 1);
      if (scoped.length === 0) this.#byScope.delete(lease.scopeKey);
    }
  }

  #tomb(key: string, why: Tombstone): void {
    this.#tombstones.delete(key);
    this.#tombstones.set(key, why);
    while (this.#tombstones.size > LEASE_TOMBSTONES_MAX) {
      this.#tombstones.delete(this.#tombstones.keys().next().value as string);
    }
  }
}

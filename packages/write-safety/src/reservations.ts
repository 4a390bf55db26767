/**
 * Request-ID reservations: every request ID this authority ever issued stays reserved, across
 * restarts, so no ID is handed out twice. The durable part is a {@link ReservationStore} holding IDs
 * only (never note content), in a compact append-only byte encoding.
 */
import {
  type RandomSource,
  REQUEST_ID_MAX_HEX_DIGITS,
  REQUEST_ID_MIN_HEX_DIGITS,
  RequestIdIssuer,
} from "@sisyphus/core-hash";
import { WriteSafetyError } from "./errors.js";

/**
 * Durable port for reservations. Implementations (Node file, kernel storage) keep every appended ID
 * forever. `append` must resolve only once the ID is durable (concurrent appends may share one
 * sync: group commit); the contract tests in `@sisyphus/write-safety/testing` check the
 * observable part.
 */
export interface ReservationStore {
  /** Every ID ever appended, in append order. */
  loadAll(): Promise<readonly string[]>;
  /** Durably record one newly issued ID. */
  append(id: string): Promise<void>;
}

/** A request ID as core-hash issues them: lowercase hex, its length within the issuer's bounds. */
const HEX = new RegExp(`^[0-9a-f]{${REQUEST_ID_MIN_HEX_DIGITS},${REQUEST_ID_MAX_HEX_DIGITS}}$`);
const HEX_DIGITS = "0123456789abcdef";
/** Nibble → char code of its hex digit, for decoding. */
const HEX_CODES: readonly number[] = Array.from({ length: 16 }, (_, v) => HEX_DIGITS.charCodeAt(v));

/**
 * Encode one request ID (`REQUEST_ID_MIN_HEX_DIGITS` to `REQUEST_ID_MAX_HEX_DIGITS` lowercase hex
 * digits, core-hash's bounds) as a reservation record: one byte holding
 * the digit count, then the digits packed two per byte (high nibble first, an odd last digit padded
 * with 0). A 5-digit ID takes 4 bytes, a 6-digit ID 4 bytes. Records concatenate into a log.
 */
export function encodeReservationRecord(id: string): Uint8Array {
  if (!HEX.test(id)) {
    throw new TypeError(
      `a request ID is ${REQUEST_ID_MIN_HEX_DIGITS} to ${REQUEST_ID_MAX_HEX_DIGITS} lowercase hex digits`,
    );
  }
  const n = id.length;
  const out = new Uint8Array(1 + Math.ceil(n / 2));
  out[0] = n;
  for (let i = 0; i < n; i++) {
    const v = HEX_DIGITS.indexOf(id[i]!);
    out[1 + (i >> 1)]! |= (i & 1) === 0 ? v << 4 : v;
  }
  return out;
}

/**
 * Decode a reservation log written with {@link encodeReservationRecord}. Stops at the first
 * incomplete or malformed record (a torn tail after a crash mid-append: that ID was never handed
 * out); `validBytes` tells a store where to truncate before appending again.
 */
export function decodeReservationLog(bytes: Uint8Array): { ids: string[]; validBytes: number } {
  const ids: string[] = [];
  const codes: number[] = new Array<number>(REQUEST_ID_MAX_HEX_DIGITS).fill(0);
  let at = 0;
  while (at < bytes.length) {
    const n = bytes[at]!;
    const size = 1 + Math.ceil(n / 2);
    if (n < REQUEST_ID_MIN_HEX_DIGITS || n > REQUEST_ID_MAX_HEX_DIGITS || at + size > bytes.length)
      break;
    // Build from char codes: one flat string (a `+=` rope would be flattened again on every Set
    // lookup, which made loading a million IDs ~10x slower).
    for (let i = 0; i < n; i++) {
      const b = bytes[at + 1 + (i >> 1)]!;
      codes[i] = HEX_CODES[(i & 1) === 0 ? b >> 4 : b & 15]!;
    }
    ids.push(
      String.fromCharCode.apply(null, n === REQUEST_ID_MAX_HEX_DIGITS ? codes : codes.slice(0, n)),
    );
    at += size;
  }
  return { ids, validBytes: at };
}

/** First capacity of a new in-memory store's buffer, in bytes; it doubles as it fills. */
const MEMORY_STORE_INITIAL_BYTES = 1024;

/** The bytes shared by {@link MemoryReservationStore} instances opened over the same backing. */
export interface MemoryReservationBacking {
  bytes: Uint8Array;
  length: number;
}

/**
 * In-memory {@link ReservationStore} for tests and benchmarks. It keeps the real byte encoding, so
 * `byteLength` is what a durable store would hold. `reopen()` gives a fresh store over the same
 * bytes (a simulated restart).
 */
export class MemoryReservationStore implements ReservationStore {
  readonly #backing: MemoryReservationBacking;

  constructor(backing?: MemoryReservationBacking) {
    this.#backing = backing ?? { bytes: new Uint8Array(MEMORY_STORE_INITIAL_BYTES), length: 0 };
  }

  /** Bytes held by the encoding. */
  get byteLength(): number {
    return this.#backing.length;
  }

  /** A new store over the same bytes, as after a process restart. */
  reopen(): MemoryReservationStore {
    return new MemoryReservationStore(this.#backing);
  }

  async loadAll(): Promise<readonly string[]> {
    return decodeReservationLog(this.#backing.bytes.subarray(0, this.#backing.length)).ids;
  }

  async append(id: string): Promise<void> {
    const rec = encodeReservationRecord(id);
    const b = this.#backing;
    if (b.length + rec.length > b.bytes.length) {
      const grown = new Uint8Array(Math.max(b.bytes.length * 2, b.length + rec.length));
      grown.set(b.bytes.subarray(0, b.length));
      b.bytes = grown;
    }
    b.bytes.set(rec, b.length);
    b.length += rec.length;
  }
}

/** Options of {@link RequestIdRegistry.open}. */
export interface RequestIdRegistryOptions {
  store: ReservationStore;
  random: RandomSource;
  /**
   * IDs the ledger holds. A preflight makes an ID's reservation and its `issued` record durable at
   * the same time, so a crash can leave the record without the reservation; such IDs are reserved
   * again (durably) when the registry opens, so they are never issued twice.
   */
  ledgerIds?: Iterable<string>;
}

/**
 * Issues request IDs with core-hash's `RequestIdIssuer` (4 random hex digits, extended one digit
 * while the candidate is reserved) over the set of every ID ever reserved, and appends each new ID
 * durably before handing it out. Binding an ID to its scope and deadline is the ledger's `issued`
 * record (see `Ledger.recordIssued`).
 */
export class RequestIdRegistry {
  readonly #store: ReservationStore;
  readonly #reserved: Set<string>;
  readonly #issuer: RequestIdIssuer;

  private constructor(store: ReservationStore, random: RandomSource, reserved: Set<string>) {
    this.#store = store;
    this.#reserved = reserved;
    this.#issuer = new RequestIdIssuer({ random, reservations: reserved });
  }

  /**
   * Load every reservation from the store. Fails with `write_coordinator_unavailable` when the
   * store cannot be read (fail closed: without the reservations no ID may be issued).
   */
  static async open(options: RequestIdRegistryOptions): Promise<RequestIdRegistry> {
    let ids: readonly string[];
    try {
      ids = await options.store.loadAll();
    } catch (cause) {
      throw new WriteSafetyError("write_coordinator_unavailable", {
        cause,
        details: { reason: "reservation_store_unreadable" },
      });
    }
    const registry = new RequestIdRegistry(options.store, options.random, new Set(ids));
    for (const id of options.ledgerIds ?? []) {
      if (!registry.isReserved(id)) {
        registry.#reserved.add(id);
        await registry.persist(id);
      }
    }
    return registry;
  }

  /** IDs reserved so far (this process and every earlier one). */
  get size(): number {
    return this.#reserved.size;
  }

  /** True when `id` was ever issued by this authority. */
  isReserved(id: string): boolean {
    return this.#reserved.has(id);
  }

  /**
   * Issue a fresh ID and make its reservation durable. If the store write fails the ID stays
   * reserved in memory, is never handed out, and the call fails with `write_coordinator_unavailable`.
   */
  async issue(): Promise<string> {
    const id = this.reserve();
    await this.persist(id);
    return id;
  }

  /** A fresh ID, reserved in memory only: it may be handed out once {@link persist} resolves. */
  reserve(): string {
    const id = this.#issuer.issue();
    this.#reserved.add(id);
    return id;
  }

  /** Make the reservation of `id` durable (`write_coordinator_unavailable` when the store fails). */
  async persist(id: string): Promise<void> {
    try {
      await this.#store.append(id);
    } catch (cause) {
      throw new WriteSafetyError("write_coordinator_unavailable", {
        cause,
        details: { reason: "reservation_store_write_failed" },
      });
    }
  }
}

/**
 * Server-issued request IDs: 4 random hex digits, extended one random digit at a time while the
 * candidate is already reserved. Randomness and the reservation set are injected so that a durable
 * set (one that survives restarts) can be plugged in without changing this code.
 */
import { REQUEST_ID_MAX_HEX_DIGITS, REQUEST_ID_MIN_HEX_DIGITS } from "./constants.js";
import { CoreHashError } from "./errors.js";
import { drawInt, type RandomSource } from "./random.js";

/** The set of IDs ever issued (never shrinks while IDs may be replayed). A `Set<string>` fits. */
export interface ReservationSet {
  /** True if `id` was issued before. */
  has(id: string): boolean;
  /** Records `id` as issued; the issuer calls it before returning the ID. */
  add(id: string): void;
}

const HEX_DIGITS = "0123456789abcdef";

/** Issues request IDs that are never issued twice as long as the reservation set remembers them. */
export class RequestIdIssuer {
  private readonly random: RandomSource;
  private readonly reservations: ReservationSet;

  constructor(options: { random: RandomSource; reservations: ReservationSet }) {
    const random = options?.random;
    const reservations = options?.reservations;
    if (typeof random?.nextInt !== "function") {
      throw new CoreHashError("invalid_argument", "RequestIdIssuer needs a RandomSource", {
        argument: "random",
      });
    }
    if (typeof reservations?.has !== "function" || typeof reservations.add !== "function") {
      throw new CoreHashError("invalid_argument", "RequestIdIssuer needs a ReservationSet", {
        argument: "reservations",
      });
    }
    this.random = random;
    this.reservations = reservations;
  }

  /**
   * Draws `REQUEST_ID_MIN_HEX_DIGITS` random hex digits; while that candidate is reserved, appends
   * one more random digit; reserves and returns the first free candidate (lowercase hex).
   * @throws CoreHashError `random_out_of_range` (faulty RandomSource) or `request_id_exhausted`
   *   (the reservation set claims every candidate up to `REQUEST_ID_MAX_HEX_DIGITS` digits).
   */
  issue(): string {
    let id = "";
    for (let i = 0; i < REQUEST_ID_MIN_HEX_DIGITS; i++) id += HEX_DIGITS[drawInt(this.random, 16)];
    while (this.reservations.has(id)) {
      if (id.length >= REQUEST_ID_MAX_HEX_DIGITS) {
        throw new CoreHashError(
          "request_id_exhausted",
          `no free request ID up to ${REQUEST_ID_MAX_HEX_DIGITS} hex digits; the reservation set reports every candidate as taken`,
          { maxHexDigits: REQUEST_ID_MAX_HEX_DIGITS },
        );
      }
      id += HEX_DIGITS[drawInt(this.random, 16)];
    }
    this.reservations.add(id);
    return id;
  }
}

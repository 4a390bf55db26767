import { describe, expect, it } from "vitest";
import { type RandomSource, seededRandomSource } from "./random.js";
import { RequestIdIssuer } from "./request-id.js";

describe("seededRandomSource", () => {
  it("is deterministic per seed and stays in range", () => {
    const a = seededRandomSource(42);
    const b = seededRandomSource(42);
    const xs = Array.from({ length: 1000 }, () => a.nextInt(10));
    expect(Array.from({ length: 1000 }, () => b.nextInt(10))).toEqual(xs);
    expect(xs.every((x) => Number.isInteger(x) && x >= 0 && x < 10)).toBe(true);
    expect(new Set(xs).size).toBe(10);
  });
  it("is roughly uniform over 16 values", () => {
    const r = seededRandomSource(7);
    const counts = new Array(16).fill(0) as number[];
    for (let i = 0; i < 160_000; i++) counts[r.nextInt(16)]!++;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(500);
  });
  it("rejects a bad range", () => {
    const r = seededRandomSource(1);
    for (const bad of [0, -1, 1.5, 2 ** 32 + 1, Number.NaN]) {
      expect(() => r.nextInt(bad)).toThrowError(
        expect.objectContaining({ code: "invalid_argument" }),
      );
    }
  });
});

describe("RequestIdIssuer", () => {
  it("issues 4 hex digits when there is no collision", () => {
    const issuer = new RequestIdIssuer({ random: seededRandomSource(1), reservations: new Set() });
    expect(issuer.issue()).toMatch(/^[0-9a-f]{4}$/);
  });

  it("extends a colliding candidate one random digit at a time", () => {
    // A source whose first four draws of every issue are 0xb, 0x7, 0x2, 0xf, so every ID starts b72f.
    const seeded = seededRandomSource(3);
    let draw = 0;
    const colliding: RandomSource = {
      nextInt: (max) => {
        const fixed = [0xb, 0x7, 0x2, 0xf];
        const value = draw < 4 ? fixed[draw]! : seeded.nextInt(max);
        draw++;
        return value;
      },
    };
    const reservations = new Set<string>();
    const issuer = new RequestIdIssuer({ random: colliding, reservations });
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      draw = 0;
      ids.push(issuer.issue());
    }
    expect(ids[0]).toBe("b72f");
    for (const id of ids.slice(1)) {
      expect(id.startsWith("b72f")).toBe(true);
      expect(id.length).toBeGreaterThan(4);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...reservations].sort()).toEqual([...ids].sort());
  });

  it("a seeded source with a tiny space collides on purpose and still never repeats", () => {
    // Each draw is only 0 or 1, so 4-digit candidates collide after 16 issues.
    const base = seededRandomSource(9);
    const twoValued: RandomSource = { nextInt: () => base.nextInt(2) };
    const issuer = new RequestIdIssuer({ random: twoValued, reservations: new Set() });
    const ids = Array.from({ length: 500 }, () => issuer.issue());
    expect(new Set(ids).size).toBe(500);
    expect(ids.some((id) => id.length > 6)).toBe(true);
    for (const id of ids) expect(id).toMatch(/^[01]{4,}$/);
  });

  it("never issues an ID twice across 200,000 issues", () => {
    const reservations = new Set<string>();
    const issuer = new RequestIdIssuer({ random: seededRandomSource(12345), reservations });
    const seen = new Set<string>();
    let repeats = 0;
    let malformed = 0;
    let longest = 0;
    for (let i = 0; i < 200_000; i++) {
      const id = issuer.issue();
      if (seen.has(id)) repeats++;
      if (!/^[0-9a-f]{4,}$/.test(id)) malformed++;
      seen.add(id);
      longest = Math.max(longest, id.length);
    }
    expect(repeats).toBe(0);
    expect(malformed).toBe(0);
    expect(reservations.size).toBe(200_000);
    expect(longest).toBeGreaterThan(4);
    expect(longest).toBeLessThan(12);
  }, 60_000);

  it("works with any has/add store and reserves before returning", () => {
    const log: string[] = [];
    const store = {
      ids: new Set<string>(["0000"]),
      has(id: string) {
        log.push(`has ${id}`);
        return this.ids.has(id);
      },
      add(id: string) {
        log.push(`add ${id}`);
        this.ids.add(id);
      },
    };
    const zeros: RandomSource = { nextInt: () => 0 };
    const issuer = new RequestIdIssuer({ random: zeros, reservations: store });
    expect(issuer.issue()).toBe("00000");
    expect(log).toEqual(["has 0000", "has 00000", "add 00000"]);
  });

  it("fails with request_id_exhausted when the store claims everything", () => {
    const issuer = new RequestIdIssuer({
      random: seededRandomSource(1),
      reservations: { has: () => true, add: () => {} },
    });
    expect(() => issuer.issue()).toThrowError(
      expect.objectContaining({ code: "request_id_exhausted" }),
    );
  });

  it("fails with random_out_of_range for a faulty random source", () => {
    for (const bad of [16, -1, 0.5, Number.NaN]) {
      const issuer = new RequestIdIssuer({
        random: { nextInt: () => bad },
        reservations: new Set(),
      });
      expect(() => issuer.issue()).toThrowError(
        expect.objectContaining({ code: "random_out_of_range" }),
      );
    }
  });

  it("rejects missing dependencies", () => {
    expect(
      () => new RequestIdIssuer({ random: {} as never, reservations: new Set() }),
    ).toThrowError(expect.objectContaining({ code: "invalid_argument" }));
    expect(
      () => new RequestIdIssuer({ random: seededRandomSource(1), reservations: {} as never }),
    ).toThrowError(expect.objectContaining({ code: "invalid_argument" }));
  });
});

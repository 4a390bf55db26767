import { seededRandomSource } from "@sisyphus/core-hash";
import { describe, expect, it } from "vitest";
import { isWriteSafetyError } from "./errors.js";
import {
  decodeReservationLog,
  encodeReservationRecord,
  MemoryReservationStore,
  RequestIdRegistry,
} from "./reservations.js";

describe("reservation encoding", () => {
  it("packs an ID into 1 + ceil(digits / 2) bytes and round-trips it", () => {
    expect([...encodeReservationRecord("b72f")]).toEqual([4, 0xb7, 0x2f]);
    expect([...encodeReservationRecord("b72f1")]).toEqual([5, 0xb7, 0x2f, 0x10]);
    const ids = [
      "0000",
      "ffff",
      "abcde",
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    ];
    const log = new Uint8Array(ids.reduce((n, id) => n + encodeReservationRecord(id).length, 0));
    let at = 0;
    for (const id of ids) {
      const rec = encodeReservationRecord(id);
      log.set(rec, at);
      at += rec.length;
    }
    expect(decodeReservationLog(log)).toEqual({ ids, validBytes: log.length });
  });

  it("refuses anything but 4-64 lowercase hex digits", () => {
    for (const bad of ["abc", "ABCD", "xyz0", "a".repeat(65), ""]) {
      expect(() => encodeReservationRecord(bad)).toThrow(TypeError);
    }
  });

  it("stops at a torn tail and reports the valid length", () => {
    const a = encodeReservationRecord("abcd");
    const b = encodeReservationRecord("1234567");
    const torn = new Uint8Array([...a, ...b.subarray(0, 2)]);
    expect(decodeReservationLog(torn)).toEqual({ ids: ["abcd"], validBytes: a.length });
    expect(decodeReservationLog(new Uint8Array([2, 0xab]))).toEqual({ ids: [], validBytes: 0 });
  });
});

describe("RequestIdRegistry", () => {
  it("issues 4-digit IDs first, extends on collision, and never repeats", async () => {
    const store = new MemoryReservationStore();
    const registry = await RequestIdRegistry.open({ store, random: seededRandomSource(9) });
    const ids = new Set<string>();
    for (let i = 0; i < 3000; i++) ids.add(await registry.issue());
    expect(ids.size).toBe(3000);
    const lengths = [...ids].map((id) => id.length);
    expect(Math.min(...lengths)).toBe(4);
    expect([...(await store.loadAll())]).toEqual([...ids]);
    expect(registry.size).toBe(3000);
    expect(store.byteLength).toBeLessThanOrEqual(3000 * 4);
  });

  it("fails closed when the store cannot be read", async () => {
    const error = await RequestIdRegistry.open({
      store: {
        loadAll: async () => {
          throw new Error("disk gone");
        },
        append: async () => {},
      },
      random: seededRandomSource(1),
    }).catch((e: unknown) => e);
    expect(isWriteSafetyError(error) && error.code).toBe("write_coordinator_unavailable");
  });
});

import { AliasPool, stateHash } from "@sisyphus/core-hash";
import { describe, expect, it } from "vitest";
import { LEASE_TTL_MS, LEASES_GLOBAL_MAX, LEASES_PER_SCOPE_MAX } from "./constants.js";
import { LeasePool } from "./lease-pool.js";
import { FakeClock } from "./test-support.js";

const d = (n: number) => stateHash({ n });

function pool(limits?: { perScope?: number; global?: number }) {
  const clock = new FakeClock();
  const aliases = new AliasPool();
  const leases = new LeasePool(
    limits === undefined
      ? { clock, epoch: "e1", aliases }
      : { clock, epoch: "e1", aliases, limits },
  );
  return { clock, aliases, leases };
}

describe("LeasePool", () => {
  it("issues the digest's alias from the shared pool and resolves it within its scope only", () => {
    const { leases, aliases } = pool();
    const lease = leases.issue("scope-a", d(1));
    expect(lease.credential).toBe(aliases.aliasFor(d(1)));
    expect(lease.credential).toHaveLength(4);
    expect(leases.resolve("scope-a", lease.credential)).toEqual({ status: "found", lease });
    expect(leases.resolve("scope-b", lease.credential)).toEqual({ status: "missing" });
  });

  it("expiry follows the monotonic clock: a wall clock stepped back or forward changes nothing", () => {
    const clock = new FakeClock();
    const monotonic = new FakeClock(0);
    const leases = new LeasePool({ clock, monotonic, epoch: "e1", aliases: new AliasPool() });
    const lease = leases.issue("s", d(1));
    expect(lease.expiresAt).toBe(clock.now() + LEASE_TTL_MS);
    clock.advance(-3_600_000);
    monotonic.advance(LEASE_TTL_MS);
    expect(leases.resolve("s", lease.credential).status).toBe("expired");
    const next = leases.issue("s", d(2));
    clock.advance(7_200_000);
    monotonic.advance(LEASE_TTL_MS - 1);
    expect(leases.resolve("s", next.credential)).toEqual({ status: "found", lease: next });
  });

  it("a 64-digit credential is only a lookup key: it resolves only to an existing lease", () => {
    const { leases } = pool();
    const lease = leases.issue("s", d(1));
    expect(leases.resolve("s", d(1).slice(10)).status).toBe("found");
    expect(leases.resolve("s", d(2).slice(10)).status).toBe("missing");
    expect(lease.digest).toBe(d(1));
  });

  it("resolution is exact: a longer prefix of the leased digest is not its alias", () => {
    const { leases } = pool();
    const lease = leases.issue("s", d(1));
    expect(leases.resolve("s", d(1).slice(10, 15)).status).toBe("missing");
    expect(leases.resolve("s", lease.credential).status).toBe("found");
  });

  it("TTL boundary: valid at TTL-1 ms, expired at TTL and at TTL+1 ms", () => {
    const { leases, clock } = pool();
    const start = clock.now();
    const a = leases.issue("s", d(1));
    expect(a.expiresAt).toBe(start + LEASE_TTL_MS);
    clock.t = start + LEASE_TTL_MS - 1;
    expect(leases.resolve("s", a.credential).status).toBe("found");
    clock.t = start + LEASE_TTL_MS;
    expect(leases.resolve("s", a.credential).status).toBe("expired");
    const { leases: l2, clock: c2 } = pool();
    const b = l2.issue("s", d(1));
    c2.t = b.expiresAt + 1;
    expect(l2.resolve("s", b.credential).status).toBe("expired");
    expect(l2.size).toBe(0);
  });

  it("re-issuing the same scope and digest refreshes the TTL", () => {
    const { leases, clock } = pool();
    const first = leases.issue("s", d(1));
    clock.advance(LEASE_TTL_MS - 10);
    const second = leases.issue("s", d(1));
    expect(second.credential).toBe(first.credential);
    clock.advance(20);
    expect(leases.resolve("s", first.credential).status).toBe("found");
    expect(leases.size).toBe(1);
  });

  it(`keeps ${LEASES_PER_SCOPE_MAX} leases per scope and evicts the oldest first`, () => {
    const { leases } = pool();
    const issued = Array.from({ length: LEASES_PER_SCOPE_MAX + 1 }, (_, i) =>
      leases.issue("s", d(i)),
    );
    expect(leases.resolve("s", issued[0]!.credential).status).toBe("evicted");
    for (const lease of issued.slice(1)) {
      expect(leases.resolve("s", lease.credential).status).toBe("found");
    }
    expect(leases.size).toBe(LEASES_PER_SCOPE_MAX);
  });

  it(`keeps ${LEASES_GLOBAL_MAX} leases overall and evicts the oldest first`, () => {
    const { leases } = pool();
    const issued = Array.from({ length: LEASES_GLOBAL_MAX + 2 }, (_, i) =>
      leases.issue(`scope-${i}`, d(i)),
    );
    expect(leases.size).toBe(LEASES_GLOBAL_MAX);
    expect(leases.resolve("scope-0", issued[0]!.credential).status).toBe("evicted");
    expect(leases.resolve("scope-1", issued[1]!.credential).status).toBe("evicted");
    expect(leases.resolve("scope-2", issued[2]!.credential).status).toBe("found");
  });

  it("custom limits apply", () => {
    const { leases } = pool({ perScope: 1, global: 2 });
    const a = leases.issue("s", d(1));
    const b = leases.issue("s", d(2));
    expect(leases.resolve("s", a.credential).status).toBe("evicted");
    leases.issue("t", d(3));
    leases.issue("u", d(4));
    expect(leases.resolve("s", b.credential).status).toBe("evicted");
    expect(leases.size).toBe(2);
  });

  it("consume removes the lease; other-epoch answers when the record names another epoch", () => {
    const { leases } = pool();
    const a = leases.issue("s", d(1));
    expect(leases.resolve("s", a.credential, "e0").status).toBe("other-epoch");
    expect(leases.resolve("s", a.credential, "e1").status).toBe("found");
    leases.consume(a);
    expect(leases.resolve("s", a.credential).status).toBe("consumed");
    expect(leases.resolve("t", a.credential).status).toBe("missing");
    // a fresh preflight of the same state leases it again
    leases.issue("s", d(1));
    expect(leases.resolve("s", a.credential).status).toBe("found");
  });

  it("a new pool (new process) knows none of the old leases", () => {
    const { leases, aliases, clock } = pool();
    const a = leases.issue("s", d(1));
    const restarted = new LeasePool({ clock, epoch: "e2", aliases: new AliasPool() });
    expect(restarted.resolve("s", a.credential).status).toBe("missing");
    // even if the alias pool were shared, the lease itself is gone
    const sharedAliases = new LeasePool({ clock, epoch: "e2", aliases });
    expect(sharedAliases.resolve("s", a.credential).status).toBe("missing");
  });
});

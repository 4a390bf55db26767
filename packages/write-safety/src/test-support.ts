/**
 * Shared fixtures for this package's tests (not exported; the `./testing` suites use its
 * `FakeClock`): a fake clock and a tiny in-memory "kernel" of string values, with probe / execute /
 * readback hooks in the shape mcp-tools uses.
 */
import { seededRandomSource, stateHash } from "@sisyphus/core-hash";
import type { Clock } from "./clock.js";
import type { WriteCoordinatorOptions } from "./coordinator.js";
import { createWriteCoordinator } from "./coordinator.js";
import type { CommitHooks, WriteCall } from "./hooks.js";
import { MemoryLedgerStore } from "./ledger.js";
import { type ActionPolicy, mutationPolicy } from "./policy.js";
import { MemoryReservationStore } from "./reservations.js";

/** A clock tests move by hand. */
export class FakeClock implements Clock {
  constructor(public t = 1_786_543_200_000) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** A key/value "kernel"; `writes` counts executions that reached it. */
export class FakeKernel {
  readonly values = new Map<string, string>();
  writes = 0;
  /** Next write: apply nothing but answer success. */
  silentNoop = false;
  digest(id: string) {
    return stateHash({ id, value: this.values.get(id) ?? null });
  }
}

/** A strict `set` call on one target. */
export function setCall(
  id: string,
  value: string,
  extra: Record<string, unknown> = {},
  policy: ActionPolicy | undefined = mutationPolicy("state"),
): WriteCall {
  return { tool: "kv", action: "set", policy, args: { id, value, ...extra }, targetIds: [id] };
}

/** Hooks that set `values[id] = value` on the fake kernel. */
export function setHooks(kernel: FakeKernel, id: string, value: string): CommitHooks {
  return {
    replayComparable: true,
    probe: async () => ({ digest: kernel.digest(id) }),
    execute: async () => {
      kernel.writes++;
      if (!kernel.silentNoop) kernel.values.set(id, value);
      return { receipt: { id } };
    },
    readback: async () =>
      kernel.values.get(id) === value
        ? { outcome: "applied", digest: kernel.digest(id) }
        : { outcome: "mismatch", reason: "value_not_written", digest: kernel.digest(id) },
  };
}

/** A coordinator over fresh in-memory stores. */
export async function makeCoordinator(overrides: Partial<WriteCoordinatorOptions> = {}) {
  const clock = new FakeClock();
  const ledgerStore = new MemoryLedgerStore();
  const reservationStore = new MemoryReservationStore();
  const coordinator = await createWriteCoordinator({
    clock,
    random: seededRandomSource(7),
    epoch: "epoch-1",
    ledgerStore,
    reservationStore,
    ...overrides,
  });
  return { clock, ledgerStore, reservationStore, coordinator };
}

/**
 * Model-based randomized test of the coordinator. Random programs of preflights (state-guarded and
 * additive), commits (right, absent, full-length or foreign credentials; changed arguments;
 * failures before and after dispatch, readback failures, silent no-ops, ledger writes failing
 * before dispatch or after readback), concurrent commits, external edits, clock jumps and process
 * restarts (new epoch, same durable stores) run against the real coordinator and a small reference
 * model that predicts every answer. Invariants checked after every step: at most one execution per
 * request ID ever; no execution unless the live state equals the leased digest; a replay returns
 * the stored receipt; an unknown outcome is never re-executed; a lease never outlives its process.
 */
import { AliasPool, type StateDigest, seededRandomSource, stateHash } from "@sisyphus/core-hash";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StrictPreflightAnswer } from "./answers.js";
import {
  LEASE_TTL_MS,
  LEASES_PER_SCOPE_MAX,
  LEDGER_RETENTION_MS,
  REQUEST_ID_FIRST_EXECUTION_TTL_MS,
} from "./constants.js";
import { createWriteCoordinator, type WriteCoordinator } from "./coordinator.js";
import { isWriteSafetyError } from "./errors.js";
import type { CommitHooks } from "./hooks.js";
import { MemoryLedgerStore } from "./ledger.js";
import { mutationPolicy } from "./policy.js";
import { MemoryReservationStore } from "./reservations.js";
import { FakeClock } from "./test-support.js";
import { FaultyLedgerStore } from "./testing.js";

const KEYS = ["a", "b"] as const;
const WRITE_VALUES = ["x", "y"] as const;
const EDIT_VALUES = ["x", "y", "z", "w"] as const;
type Key = (typeof KEYS)[number];
type Failure =
  | "none"
  | "before_dispatch"
  | "after_dispatch"
  | "readback_throws"
  | "silent_noop"
  | "ledger_executing_fails"
  | "ledger_commit_fails";
type Credential = "own" | "absent" | "full" | "foreign";

type Cmd =
  | { t: "preflight"; key: Key; value: string; additive: boolean }
  | { t: "commit"; ticket: number; changeArgs: boolean; cred: Credential; failure: Failure }
  | { t: "concurrent"; tickets: [number, number] }
  | { t: "edit"; key: Key; value: string }
  | { t: "advance"; ms: number }
  | { t: "restart" };

/**
 * State digests of the fake kernel. They all share their first 6 hex digits, so aliases grow past
 * the 4-digit minimum and any comparison of prefixes instead of complete digests is caught.
 */
const SHARED_PREFIX = "b72f8a";
const digestOf = (key: string, value: string | null): StateDigest =>
  `sha256:v1:${SHARED_PREFIX}${stateHash({ key, value }).slice(10 + SHARED_PREFIX.length)}`;

interface Ticket {
  requestId: string;
  /** Additive actions (precondition `none`) get a request ID and no credential. */
  additive: boolean;
  credential: string;
  key: Key;
  value: string;
  digest: StateDigest;
}

interface ModelRequest {
  scope: string;
  epoch: number;
  expiresAt: number;
  state: "issued" | "executing" | "committed" | "unknown" | "failed_before_execute";
  executingAt?: number;
  receipt?: { status: string; previous: StateDigest; result: StateDigest };
}

interface ModelLease {
  digest: StateDigest;
  issuedAt: number;
}

/** The reference model: plain maps, no hashing shortcuts beyond the digests themselves. */
class Model {
  epoch = 0;
  now = 0;
  readonly kernel = new Map<Key, string | null>(KEYS.map((k) => [k, null]));
  readonly requests = new Map<string, ModelRequest>();
  /** scope → leases in age order (refresh re-appends). */
  leases = new Map<string, ModelLease[]>();

  pruneLeases(): void {
    for (const [scope, list] of this.leases) {
      this.leases.set(
        scope,
        list.filter((l) => this.now < l.issuedAt + LEASE_TTL_MS),
      );
    }
  }

  issueLease(scope: string, digest: StateDigest): void {
    this.pruneLeases();
    const list = (this.leases.get(scope) ?? []).filter((l) => l.digest !== digest);
    list.push({ digest, issuedAt: this.now });
    while (list.length > LEASES_PER_SCOPE_MAX) list.shift();
    this.leases.set(scope, list);
  }

  findLease(scope: string, digest: StateDigest): ModelLease | undefined {
    this.pruneLeases();
    return this.leases.get(scope)?.find((l) => l.digest === digest);
  }

  consumeLease(scope: string, digest: StateDigest): void {
    const list = this.leases.get(scope);
    if (list)
      this.leases.set(
        scope,
        list.filter((l) => l.digest !== digest),
      );
  }

  liveRequest(requestId: string): ModelRequest | undefined {
    const r = this.requests.get(requestId);
    if (r === undefined) return undefined;
    const deadline =
      r.executingAt === undefined ? r.expiresAt : r.executingAt + LEDGER_RETENTION_MS;
    return this.now < deadline ? r : undefined;
  }
}

const scopeOf = (key: string, value: string, additive = false) =>
  `${additive ? "add" : "set"}:${key}=${value}`;

/** Predicted answer: a status, or an error code, or "not_dispatched" (the executor's own error). */
type Outcome = string;

interface World {
  /** Ledger record state whose next durable write fails (once), or null. */
  failPut: { state: string | null };
  model: Model;
  /** The "real" kernel the hooks read and write; the model keeps its own copy. */
  kernel: Map<Key, string | null>;
  clock: FakeClock;
  coordinator: WriteCoordinator;
  ledgerStore: MemoryLedgerStore;
  reservationStore: MemoryReservationStore;
  tickets: Ticket[];
  executions: Map<string, number>;
  issuedEpoch: Map<string, number>;
  firstReceipt: Map<string, { status: string; previous: StateDigest; result: StateDigest }>;
}

async function openCoordinator(
  w: Pick<World, "clock" | "ledgerStore" | "reservationStore" | "failPut">,
  epoch: number,
) {
  const failPut = w.failPut;
  return createWriteCoordinator({
    clock: w.clock,
    random: seededRandomSource(epoch * 7919 + 1),
    epoch: `epoch-${epoch}`,
    ledgerStore: new FaultyLedgerStore(w.ledgerStore.reopen(), (op, entry) => {
      if (op !== "put" || failPut.state === null || entry?.state !== failPut.state) return false;
      failPut.state = null;
      return true;
    }),
    reservationStore: w.reservationStore.reopen(),
    aliases: new AliasPool(),
  });
}

function call(key: Key, value: string, extra: Record<string, unknown>, additive = false) {
  return {
    tool: "kv",
    action: additive ? "add" : "set",
    policy: mutationPolicy(additive ? "none" : "state"),
    args: { key, value, ...extra },
    targetIds: [key],
  };
}

function hooksFor(
  w: World,
  key: Key,
  value: string,
  failure: Failure,
  expectDigest: StateDigest | undefined,
): CommitHooks {
  return {
    probe: async () => ({ digest: digestOf(key, w.kernel.get(key) ?? null) }),
    execute: async (ctx) => {
      // Invariant: no execution unless the live state equals the leased digest.
      const live = digestOf(key, w.kernel.get(key) ?? null);
      expect(ctx.before?.digest).toBe(live);
      if (expectDigest !== undefined) expect(live).toBe(expectDigest);
      if (failure === "before_dispatch") {
        throw Object.assign(new Error("refused before dispatch"), { writeDispatched: false });
      }
      const id = ctx.requestId!;
      w.executions.set(id, (w.executions.get(id) ?? 0) + 1);
      if (failure !== "silent_noop") w.kernel.set(key, value);
      if (failure === "after_dispatch") throw new Error("connection reset after dispatch");
      return { receipt: { key } };
    },
    readback: async () => {
      if (failure === "readback_throws") throw new Error("readback transport failure");
      const digest = digestOf(key, w.kernel.get(key) ?? null);
      return w.kernel.get(key) === value
        ? { outcome: "applied", digest }
        : { outcome: "mismatch", reason: "value differs", digest };
    },
  };
}

/** Predict, then apply to the model, the commit of `ticket` with the given variations. */
function predictCommit(
  w: World,
  t: Ticket,
  value: string,
  cred: Credential,
  credDigest: StateDigest | undefined,
  failure: Failure,
): Outcome {
  const m = w.model;
  const scope = scopeOf(t.key, value, t.additive);
  const req = m.liveRequest(t.requestId);
  if (req === undefined) return "preflight_lease_invalid";
  if (req.scope !== scope) return "idempotency_conflict";
  if (req.state === "committed") return `replayed:${req.receipt!.status}`;
  if (req.state === "executing" || req.state === "unknown") return "outcome_unknown";
  if (req.epoch !== m.epoch || m.now >= req.expiresAt) return "preflight_lease_invalid";
  const before = digestOf(t.key, m.kernel.get(t.key) ?? null);
  let lease: ModelLease | undefined;
  if (!t.additive) {
    if (cred === "absent") return "precondition_required";
    lease = credDigest === undefined ? undefined : m.findLease(scope, credDigest);
    if (lease === undefined) return "preflight_lease_invalid";
    if (before !== lease.digest) {
      m.consumeLease(scope, lease.digest);
      return "state_changed";
    }
  }
  if (failure === "ledger_executing_fails") return "write_coordinator_unavailable";
  req.state = "executing";
  req.executingAt ??= m.now;
  if (failure === "before_dispatch") {
    req.state = "failed_before_execute";
    return "not_dispatched";
  }
  if (lease !== undefined) m.consumeLease(scope, lease.digest);
  const previousValue = m.kernel.get(t.key) ?? null;
  if (failure !== "silent_noop") m.kernel.set(t.key, value);
  if (failure === "after_dispatch" || failure === "readback_throws") {
    req.state = "unknown";
    return "outcome_unknown";
  }
  if (m.kernel.get(t.key) !== value) {
    req.state = "unknown";
    return "readback_mismatch";
  }
  if (failure === "ledger_commit_fails") {
    req.state = "unknown";
    return "outcome_unknown";
  }
  req.state = "committed";
  const result = digestOf(t.key, value);
  const status = previousValue === value ? "no_change" : "committed";
  req.receipt = { status, previous: before, result };
  return status;
}

/** Every outcome seen over all runs, so the test fails if the generator stops reaching a branch. */
const seen = new Map<Outcome, number>();

async function observe(w: World, p: Promise<unknown>, requestId: string): Promise<Outcome> {
  try {
    const r = (await p) as {
      status: string;
      replayed?: true;
      previousHash?: string;
      resultHash?: string;
    };
    const full = {
      status: r.status,
      previous: w.coordinator.aliases.resolve(r.previousHash ?? "")!,
      result: w.coordinator.aliases.resolve(r.resultHash ?? "")!,
    };
    if (r.replayed) {
      // Invariant: a replay returns the stored receipt.
      expect(full).toEqual(w.firstReceipt.get(requestId));
      return `replayed:${r.status}`;
    }
    // Invariant: a lease never outlives its process.
    expect(w.issuedEpoch.get(requestId)).toBe(w.model.epoch);
    expect(w.firstReceipt.has(requestId)).toBe(false);
    w.firstReceipt.set(requestId, full);
    return r.status;
  } catch (e) {
    if (isWriteSafetyError(e)) return e.code;
    if ((e as { writeDispatched?: unknown }).writeDispatched === false) return "not_dispatched";
    throw e;
  }
}

async function runProgram(cmds: Cmd[]): Promise<void> {
  const clock = new FakeClock(1_786_543_200_000);
  const ledgerStore = new MemoryLedgerStore();
  const reservationStore = new MemoryReservationStore();
  const model = new Model();
  model.now = clock.now();
  const failPut = { state: null as string | null };
  const w: World = {
    failPut,
    model,
    kernel: new Map<Key, string | null>(KEYS.map((k) => [k, null])),
    clock,
    ledgerStore,
    reservationStore,
    coordinator: await openCoordinator({ clock, ledgerStore, reservationStore, failPut }, 0),
    tickets: [],
    executions: new Map(),
    issuedEpoch: new Map(),
    firstReceipt: new Map(),
  };
  const unknownIds = new Set<string>();

  const commitOne = (t: Ticket, cmd: Extract<Cmd, { t: "commit" }>) => {
    const value = cmd.changeArgs ? (t.value === "x" ? "y" : "x") : t.value;
    const foreign = w.tickets[(w.tickets.indexOf(t) + 1) % w.tickets.length]!;
    const extra: Record<string, unknown> = { requestId: t.requestId };
    if (cmd.cred === "own") extra["expectedStateHash"] = t.credential;
    else if (cmd.cred === "full") extra["expectedStateHash"] = t.digest;
    else if (cmd.cred === "foreign") extra["expectedStateHash"] = foreign.credential;
    // An additive ticket has no credential: "own"/"foreign" from one is an absent credential.
    const cred = extra["expectedStateHash"] === "" ? "absent" : cmd.cred;
    if (cred === "absent") delete extra["expectedStateHash"];
    // Aliases belong to a process: after a restart an old alias may name another digest (or
    // none). The shared alias pool (core-hash, tested there) is the oracle for what it names now.
    const credDigest =
      cred === "absent"
        ? undefined
        : w.coordinator.aliases.resolve(extra["expectedStateHash"] as string);
    const expected = predictCommit(w, t, value, cred, credDigest, cmd.failure);
    w.failPut.state =
      cmd.failure === "ledger_executing_fails"
        ? "executing"
        : cmd.failure === "ledger_commit_fails"
          ? "committed"
          : null;
    const p = w.coordinator.commit(
      call(t.key, value, extra, t.additive),
      hooksFor(w, t.key, value, cmd.failure, t.additive ? undefined : credDigest),
    );
    p.catch(() => undefined); // observed below; this only marks it handled if an assertion fails first
    return { expected, p };
  };

  for (const cmd of cmds) {
    switch (cmd.t) {
      case "preflight": {
        const before = digestOf(cmd.key, model.kernel.get(cmd.key) ?? null);
        const answer = (await w.coordinator.preflight(
          call(cmd.key, cmd.value, { validateOnly: true }, cmd.additive),
          async () => ({ digest: digestOf(cmd.key, w.kernel.get(cmd.key) ?? null) }),
        )) as StrictPreflightAnswer;
        expect(answer.writeAttempted).toBe(false);
        expect(w.issuedEpoch.has(answer.requestId)).toBe(false);
        if (cmd.additive) {
          expect(answer.preconditionField).toBeNull();
          expect(answer).not.toHaveProperty("expectedStateHash");
        } else {
          expect(w.coordinator.aliases.resolve(answer.expectedStateHash!)).toBe(before);
          model.issueLease(scopeOf(cmd.key, cmd.value), before);
        }
        w.issuedEpoch.set(answer.requestId, model.epoch);
        model.requests.set(answer.requestId, {
          scope: scopeOf(cmd.key, cmd.value, cmd.additive),
          epoch: model.epoch,
          expiresAt: model.now + REQUEST_ID_FIRST_EXECUTION_TTL_MS,
          state: "issued",
        });
        w.tickets.push({
          requestId: answer.requestId,
          additive: cmd.additive,
          credential: answer.expectedStateHash ?? "",
          key: cmd.key,
          value: cmd.value,
          digest: before,
        });
        break;
      }
      case "commit": {
        if (w.tickets.length === 0) break;
        const t = w.tickets[cmd.ticket % w.tickets.length]!;
        const { expected, p } = commitOne(t, cmd);
        const actual = await observe(w, p, t.requestId);
        expect(actual).toBe(expected);
        seen.set(actual, (seen.get(actual) ?? 0) + 1);
        if (t.additive) seen.set(`additive:${actual}`, (seen.get(`additive:${actual}`) ?? 0) + 1);
        if (actual === "outcome_unknown" || actual === "readback_mismatch")
          unknownIds.add(t.requestId);
        break;
      }
      case "concurrent": {
        if (w.tickets.length === 0) break;
        const runs = cmd.tickets.map((i) => {
          const t = w.tickets[i % w.tickets.length]!;
          const c = {
            t: "commit",
            ticket: i,
            changeArgs: false,
            cred: "own",
            failure: "none",
          } as const;
          const { expected, p } = commitOne(t, c);
          return { t, expected, p };
        });
        // The lane is FIFO and the model applied them in the same order.
        for (const r of runs) {
          const actual = await observe(w, r.p, r.t.requestId);
          expect(actual).toBe(r.expected);
          seen.set(`concurrent:${actual}`, (seen.get(`concurrent:${actual}`) ?? 0) + 1);
        }
        break;
      }
      case "edit":
        model.kernel.set(cmd.key, cmd.value);
        w.kernel.set(cmd.key, cmd.value);
        break;
      case "advance":
        clock.advance(cmd.ms);
        model.now = clock.now();
        break;
      case "restart":
        model.epoch++;
        model.leases = new Map();
        w.coordinator = await openCoordinator(w, model.epoch);
        break;
    }
    failPut.state = null;
    // The model and the real kernel agree after every step.
    expect([...w.kernel]).toEqual([...model.kernel]);
    // Invariant: at most one execution per request ID, ever (unknown outcomes included).
    for (const n of w.executions.values()) expect(n).toBeLessThanOrEqual(1);
    const health = w.coordinator.health();
    expect(health.inFlight).toBe(0);
    expect(health.queued).toBe(0);
  }
  // An unknown outcome is never re-executed: its single execution is the only one.
  for (const id of unknownIds) expect(w.executions.get(id) ?? 0).toBeLessThanOrEqual(1);
}

const key = fc.constantFrom(...KEYS);
const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant("preflight" as const),
      key,
      value: fc.constantFrom(...WRITE_VALUES),
      additive: fc.constantFrom(false, false, true),
    }),
  },
  {
    weight: 7,
    arbitrary: fc.record({
      t: fc.constant("commit" as const),
      ticket: fc.nat(40),
      changeArgs: fc.constantFrom(false, false, false, true),
      cred: fc.constantFrom<Credential>("own", "own", "own", "absent", "full", "foreign"),
      failure: fc.constantFrom<Failure>(
        "none",
        "none",
        "none",
        "before_dispatch",
        "after_dispatch",
        "readback_throws",
        "silent_noop",
        "ledger_executing_fails",
        "ledger_commit_fails",
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("concurrent" as const),
      tickets: fc.tuple(fc.nat(40), fc.nat(40)),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("edit" as const),
      key,
      value: fc.constantFrom(...EDIT_VALUES),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("advance" as const),
      ms: fc.constantFrom(1, 60_000, LEASE_TTL_MS - 1, LEASE_TTL_MS + 1, LEDGER_RETENTION_MS),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ t: "restart" as const }) },
);

describe("WriteCoordinator model-based", () => {
  it("the test's digests share 6 hex digits and differ within 8", () => {
    const prefixes = new Set<string>();
    for (const k of KEYS)
      for (const v of [null, ...EDIT_VALUES]) {
        expect(digestOf(k, v).slice(10, 16)).toBe(SHARED_PREFIX);
        prefixes.add(digestOf(k, v).slice(10, 18));
      }
    expect(prefixes.size).toBe(KEYS.length * (EDIT_VALUES.length + 1));
  });

  it("matches the reference model and keeps every invariant over random programs", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cmdArb, { minLength: 1, maxLength: 40 }), async (cmds) => {
        await runProgram(cmds);
      }),
      { numRuns: 3000 },
    );
    const required = [
      "committed",
      "no_change",
      "replayed:committed",
      "replayed:no_change",
      "state_changed",
      "preflight_lease_invalid",
      "precondition_required",
      "idempotency_conflict",
      "outcome_unknown",
      "readback_mismatch",
      "not_dispatched",
      "write_coordinator_unavailable",
      "concurrent:committed",
      "additive:committed",
      "additive:replayed:committed",
      "additive:preflight_lease_invalid",
      "additive:idempotency_conflict",
      "additive:outcome_unknown",
      "additive:not_dispatched",
      "concurrent:replayed:committed",
    ];
    for (const outcome of required) expect(seen.get(outcome) ?? 0, outcome).toBeGreaterThan(0);
  }, 110_000);
});

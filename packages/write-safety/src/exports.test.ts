import { describe, expect, it } from "vitest";
import * as main from "./index.js";
import * as testing from "./testing.js";

describe("public surface", () => {
  it("the main entry exports exactly the documented runtime names", () => {
    expect(Object.keys(main).sort()).toEqual(
      [
        "EXTERNAL_POLICY",
        "LEASES_GLOBAL_MAX",
        "LEASES_PER_SCOPE_MAX",
        "LEASE_TOMBSTONES_MAX",
        "LEASE_TTL_MS",
        "LEDGER_RECEIPT_MAX_CHARS",
        "LEDGER_RETENTION_MS",
        "LeasePool",
        "Ledger",
        "MemoryLedgerStore",
        "MemoryReservationStore",
        "READ_POLICY",
        "RECEIPT_DIGESTS",
        "REPLAY_NOTES",
        "REQUEST_ID_FIRST_EXECUTION_TTL_MS",
        "RequestIdRegistry",
        "SAFETY_ARGUMENT_FIELDS",
        "WRITE_ADMISSION_MAX_IN_FLIGHT",
        "WIRE_ERRORS",
        "WRITE_SAFETY_ERROR_CODES",
        "WRITE_SAFETY_REASON_HINTS",
        "WriteCancellation",
        "WriteCoordinator",
        "WriteSafetyError",
        "WriteTracker",
        "businessArguments",
        "createWriteCoordinator",
        "decodeReservationLog",
        "encodeReservationRecord",
        "isActionPolicy",
        "isNotDispatched",
        "isSafetyArgumentField",
        "isWireErrorCode",
        "isWriteSafetyError",
        "leaseScope",
        "mutationPolicy",
        "preconditionField",
        "systemClock",
        "writeSafetyHint",
      ].sort(),
    );
  });

  it("the testing entry exports the contract suites and fault wrappers", () => {
    expect(Object.keys(testing).sort()).toEqual([
      "FaultyLedgerStore",
      "FaultyReservationStore",
      "describeCoordinatorStoreFailures",
      "describeLedgerStoreContract",
      "describeReservationStoreContract",
      "sampleLedgerEntry",
    ]);
  });

  it("constants hold the spec's numbers", () => {
    expect(main.LEASE_TTL_MS).toBe(600_000);
    expect(main.REQUEST_ID_FIRST_EXECUTION_TTL_MS).toBe(600_000);
    expect(main.LEDGER_RETENTION_MS).toBe(604_800_000);
    expect(main.WRITE_ADMISSION_MAX_IN_FLIGHT).toBe(128);
  });

  it("the error codes are exactly the spec's, each with a hint", () => {
    expect([...main.WRITE_SAFETY_ERROR_CODES].sort()).toEqual(
      [
        "precondition_required",
        "preflight_lease_invalid",
        "state_changed",
        "outcome_unknown",
        "readback_mismatch",
        "idempotency_conflict",
        "write_coordinator_unavailable",
        "write_coordinator_changed",
        "preflight_unavailable",
        "queue_full",
      ].sort(),
    );
    for (const hint of main.WRITE_SAFETY_ERROR_CODES.map((code) => main.WIRE_ERRORS[code].hint)) {
      expect(hint).not.toContain("\n");
      expect(hint.length).toBeGreaterThan(10);
    }
  });
});

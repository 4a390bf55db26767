import { describe, expect, it } from "vitest";
import { PRECONDITION_FIELDS, preconditionField } from "./policy.js";
import {
  businessArguments,
  isSafetyArgumentField,
  leaseScope,
  SAFETY_ARGUMENT_FIELDS,
} from "./scope.js";

const base = { tool: "block", action: "update", targetIds: ["b", "a", "b"] };

describe("leaseScope", () => {
  it("ignores safety fields, so preflight and commit share a scope", () => {
    const preflight = leaseScope({ ...base, args: { id: "a", data: "x", validateOnly: true } });
    const commit = leaseScope({
      ...base,
      args: {
        id: "a",
        data: "x",
        requestId: "b72f",
        expectedStateHash: "8ac2",
        expectedHash: "1234",
        confirm: true,
      },
    });
    expect(commit.key).toBe(preflight.key);
    expect(commit.argsDigest).toBe(preflight.argsDigest);
  });

  it("changes with any business argument, the tool, the action or the target set", () => {
    const key = leaseScope({ ...base, args: { id: "a", data: "x" } }).key;
    expect(leaseScope({ ...base, args: { id: "a", data: "y" } }).key).not.toBe(key);
    expect(leaseScope({ ...base, tool: "doc", args: { id: "a", data: "x" } }).key).not.toBe(key);
    expect(leaseScope({ ...base, action: "replace", args: { id: "a", data: "x" } }).key).not.toBe(
      key,
    );
    expect(
      leaseScope({ ...base, targetIds: ["a", "c"], args: { id: "a", data: "x" } }).key,
    ).not.toBe(key);
  });

  it("sorts and de-duplicates target IDs", () => {
    const scope = leaseScope({ ...base, args: {} });
    expect(scope.targetIds).toEqual(["a", "b"]);
    expect(leaseScope({ ...base, targetIds: ["a", "b"], args: {} }).key).toBe(scope.key);
  });

  it("strips only top-level safety fields", () => {
    expect(isSafetyArgumentField("expectedStructureHash")).toBe(true);
    expect(isSafetyArgumentField("expected")).toBe(false);
    expect(isSafetyArgumentField("data")).toBe(false);
    expect(businessArguments({ data: { requestId: "kept" }, requestId: "x" })).toEqual({
      data: { requestId: "kept" },
    });
  });

  it("lists every safety field by name, each credential field included", () => {
    expect(PRECONDITION_FIELDS).toEqual(
      (["state", "structure", "manifest", "source"] as const).map((k) => preconditionField(k)),
    );
    expect([...SAFETY_ARGUMENT_FIELDS].sort()).toEqual(
      [
        "validateOnly",
        "requestId",
        "expectedStateHash",
        "expectedStructureHash",
        "expectedManifestHash",
        "expectedSourceHash",
        "confirm",
        "confirmation",
        "requestState",
      ].sort(),
    );
    for (const name of SAFETY_ARGUMENT_FIELDS) expect(isSafetyArgumentField(name)).toBe(true);
  });
});

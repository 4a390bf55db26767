import { describe, expect, it } from "vitest";
import {
  EXTERNAL_POLICY,
  isActionPolicy,
  missingPolicies,
  mutationPolicy,
  type PolicyRegistry,
  policyFor,
  preconditionField,
  READ_POLICY,
} from "./policy.js";

describe("policy", () => {
  it("maps precondition kinds to their credential fields", () => {
    expect(preconditionField("state")).toBe("expectedStateHash");
    expect(preconditionField("structure")).toBe("expectedStructureHash");
    expect(preconditionField("manifest")).toBe("expectedManifestHash");
    expect(preconditionField("source")).toBe("expectedSourceHash");
    expect(preconditionField("none")).toBeNull();
  });

  const registry: PolicyRegistry = {
    block: { update: mutationPolicy("state"), get: READ_POLICY, append: mutationPolicy("none") },
    feedback: { submit: EXTERNAL_POLICY },
  };

  it("looks up own properties only, so an unknown action has no policy", () => {
    expect(policyFor(registry, "block", "update")).toEqual({
      kind: "mutation",
      precondition: "state",
    });
    expect(policyFor(registry, "block", "toString")).toBeUndefined();
    expect(policyFor(registry, "constructor", "x")).toBeUndefined();
    expect(policyFor(registry, "block", "delete")).toBeUndefined();
  });

  it("reports every action without a well-formed policy", () => {
    const bad = {
      block: { weird: { kind: "mutation", precondition: "value" } },
    } as unknown as PolicyRegistry;
    expect(
      missingPolicies({ ...registry, ...bad }, [
        { tool: "block", action: "weird" },
        { tool: "feedback", action: "submit" },
        { tool: "av", action: "render" },
      ]),
    ).toEqual([
      { tool: "block", action: "weird" },
      { tool: "av", action: "render" },
    ]);
  });

  it("validates policy shapes", () => {
    expect(isActionPolicy(READ_POLICY)).toBe(true);
    expect(isActionPolicy({ kind: "mutation", precondition: "none" })).toBe(true);
    expect(isActionPolicy({ kind: "mutation" })).toBe(false);
    expect(isActionPolicy({ kind: "write" })).toBe(false);
    expect(isActionPolicy(null)).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import {
  EXTERNAL_POLICY,
  isActionPolicy,
  mutationPolicy,
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

  it("accepts only own precondition kinds, never an inherited property name", () => {
    for (const precondition of ["toString", "constructor", "hasOwnProperty", "__proto__"]) {
      expect(isActionPolicy({ kind: "mutation", precondition }), precondition).toBe(false);
    }
    expect(isActionPolicy({ kind: "mutation", precondition: "value" })).toBe(false);
  });

  it("builds frozen, well-formed policies of every kind", () => {
    const kinds = ["state", "structure", "manifest", "source", "none"] as const;
    for (const policy of [READ_POLICY, EXTERNAL_POLICY, ...kinds.map((k) => mutationPolicy(k))]) {
      expect(isActionPolicy(policy)).toBe(true);
      expect(Object.isFrozen(policy)).toBe(true);
    }
    expect(mutationPolicy("structure")).toEqual({ kind: "mutation", precondition: "structure" });
  });

  it("validates policy shapes", () => {
    expect(isActionPolicy(READ_POLICY)).toBe(true);
    expect(isActionPolicy({ kind: "mutation", precondition: "none" })).toBe(true);
    expect(isActionPolicy({ kind: "mutation" })).toBe(false);
    expect(isActionPolicy({ kind: "write" })).toBe(false);
    expect(isActionPolicy(null)).toBe(false);
  });
});

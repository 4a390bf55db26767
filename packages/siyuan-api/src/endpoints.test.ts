import { describe, expect, it } from "vitest";
import { clientMethodKeys } from "../test/support/method-walk.js";
import { createSiyuanClient } from "./client.js";
import { ENDPOINTS } from "./endpoints.js";
import type { Transport } from "./transport/transport.js";

const unusedTransport: Transport = {
  name: "unused",
  send: () => Promise.reject(new Error("not used in this test")),
  close: async () => {},
};

describe("endpoint table", () => {
  const client = createSiyuanClient({ transport: unusedTransport });

  it("has exactly one row per client method, and no row without a method", () => {
    expect(clientMethodKeys(client)).toEqual(Object.keys(ENDPOINTS).sort());
  });

  it("classifies every row as read or write, with unique /api/ paths", () => {
    const paths = Object.values(ENDPOINTS).map((e) => e.path);
    expect(new Set(paths).size).toBe(paths.length);
    for (const [key, spec] of Object.entries(ENDPOINTS)) {
      expect(["read", "write"], key).toContain(spec.kind);
      expect(spec.path, key).toMatch(/^\/api\/[a-zA-Z]+(\/[a-zA-Z][a-zA-Z0-9]*)?$/);
    }
  });

  it("marks every mutating kernel endpoint as a write", () => {
    const mutating =
      /\/(open|close|create|remove|rename|set|change|move|insert|prepend|append|update|delete|fold|unfold|batchSet|add|put|upload|push|render)|\/api\/transactions$/;
    for (const [key, spec] of Object.entries(ENDPOINTS)) {
      if (mutating.test(spec.path)) expect(spec.kind, key).toBe("write");
    }
  });
});

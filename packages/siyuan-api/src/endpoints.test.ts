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
    // template/render is a read only because the client always sends preview:true
    const previewOnly = new Set(["/api/template/render"]);
    for (const [key, spec] of Object.entries(ENDPOINTS)) {
      if (mutating.test(spec.path) && !previewOnly.has(spec.path)) {
        expect(spec.kind, key).toBe("write");
      }
    }
  });

  it("sends template/render with preview:true, so the read saves nothing", async () => {
    const sent: unknown[] = [];
    const answer = JSON.stringify({ code: 0, msg: "", data: { path: "/w/x.md", content: "" } });
    const transport: Transport = {
      name: "recording",
      send: async (req) => {
        if (req.body.kind === "json") sent.push(JSON.parse(req.body.text));
        return {
          type: "text",
          status: 200,
          contentType: "application/json",
          byteLength: answer.length,
          text: answer,
        };
      },
      close: async () => {},
    };
    const client = createSiyuanClient({ transport });
    await client.template.render({ id: "20200101000000-abcdefg", path: "/w/x.md" });
    expect(sent).toEqual([{ id: "20200101000000-abcdefg", path: "/w/x.md", preview: true }]);
  });
});

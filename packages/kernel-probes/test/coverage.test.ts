/**
 * The probes cover every kernel endpoint the product calls: each path of the typed client's
 * endpoint table, the raw calls the tools make beside it, and the routes they reach directly.
 */
import { ENDPOINTS } from "@sisyphus/siyuan-api/kernel";
import { describe, expect, it } from "vitest";
import { PROBES } from "../src/probes/index.js";

/** Kernel paths the product reaches outside the endpoint table. */
const OTHER_PRODUCT_PATHS = [
  "/api/block/batchUpdateBlock", // mcp-tools kernel-client (callRaw)
  "/mcp", // the kernel's own MCP endpoint (extension.list / extension.call)
  "GET /assets/*", // asset downloads
  "GET /export/*", // export downloads
  "/plugin/private/*", // the kernel plugin's routes
];

describe("probe coverage", () => {
  const covered = new Set(PROBES.flatMap((p) => p.endpoints));

  it("every endpoint of @sisyphus/siyuan-api's table has a probe", () => {
    const missing = Object.values(ENDPOINTS)
      .map((e) => e.path)
      .filter((p) => !covered.has(p));
    expect(missing).toEqual([]);
  });

  it("every other kernel path the product reaches has a probe", () => {
    expect(OTHER_PRODUCT_PATHS.filter((p) => !covered.has(p))).toEqual([]);
  });

  it("probe IDs are unique", () => {
    const ids = PROBES.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

import { describe, expect, it } from "vitest";
import {
  CAUSE_CHAIN_MAX_DEPTH,
  causeChain,
  errorCodes,
  httpStatusOf,
  mentionsUnauthorized,
} from "./mcp-http-client.js";

/** An error with a code, wrapped in a client error, as `fetch` and MCP clients report them. */
function wrapped(inner: Error & { code?: string }): Error {
  return new TypeError("fetch failed", { cause: inner });
}

describe("causeChain", () => {
  it("walks causes and aggregated errors in the order met", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const unreachable = Object.assign(new Error("connect ENETUNREACH"), { code: "ENETUNREACH" });
    const aggregate = new AggregateError([refused, unreachable], "all attempts failed");
    const top = wrapped(aggregate);
    expect(causeChain(top)).toEqual([top, aggregate, refused, unreachable]);
    expect(errorCodes(top)).toEqual(["ECONNREFUSED", "ENETUNREACH"]);
  });

  it("stops at its depth, so a cycle ends", () => {
    const a: { cause?: unknown } = {};
    a.cause = a;
    expect(causeChain(a)).toHaveLength(CAUSE_CHAIN_MAX_DEPTH);
  });

  it("finds the first HTTP status and an unauthorized message on any link", () => {
    const http = Object.assign(new Error("Error POSTing to endpoint: nope"), {
      data: { status: 503 },
    });
    expect(httpStatusOf(wrapped(http))).toBe(503);
    expect(httpStatusOf(new Error("plain"))).toBeUndefined();
    expect(mentionsUnauthorized(wrapped(new Error("HTTP 401")))).toBe(true);
    expect(mentionsUnauthorized(new Error("x", { cause: new Error("Unauthorised") }))).toBe(true);
    expect(mentionsUnauthorized(new Error("HTTP 4010"))).toBe(false);
  });

  it("takes numeric codes as strings and ignores what is not an object", () => {
    expect(errorCodes(Object.assign(new Error("rpc"), { code: -32602 }))).toEqual(["-32602"]);
    expect(errorCodes("a string")).toEqual([]);
    expect(causeChain(undefined)).toEqual([]);
  });
});

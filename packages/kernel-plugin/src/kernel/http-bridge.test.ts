import { DEFAULT_MAX_REQUEST_BODY_SIZE } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { parsedJsonBody } from "./http-bridge.js";

const post = (body: string, headers: Record<string, string> = {}) =>
  new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });

describe("parsedJsonBody", () => {
  it("parses a JSON body once and leaves the request's body unread", async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"ü":"€"}}';
    const request = post(body);
    expect(await parsedJsonBody(request)).toEqual(JSON.parse(body));
    expect(request.bodyUsed).toBe(false);
    expect(await request.text()).toBe(body);
  });

  it("gives JSON that is not an object as it parses (null, numbers)", async () => {
    expect(await parsedJsonBody(post("null"))).toBeNull();
    expect(await parsedJsonBody(post("42"))).toBe(42);
  });

  it("leaves an empty or unparseable body to the SDK (undefined)", async () => {
    expect(await parsedJsonBody(post(""))).toBeUndefined();
    expect(await parsedJsonBody(post("{not json"))).toBeUndefined();
  });

  it("leaves a body that may exceed the SDK's limit to the SDK (declared or by length)", async () => {
    const declared = post("{}", { "content-length": String(DEFAULT_MAX_REQUEST_BODY_SIZE + 1) });
    expect(await parsedJsonBody(declared)).toBeUndefined();
    const long = JSON.stringify({ data: "x".repeat(Math.ceil(DEFAULT_MAX_REQUEST_BODY_SIZE / 3)) });
    expect(await parsedJsonBody(post(long))).toBeUndefined();
    const fits = JSON.stringify({ data: "x".repeat(1000) });
    expect(await parsedJsonBody(post(fits))).toEqual(JSON.parse(fits));
  });
});

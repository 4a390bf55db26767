import { McpServer } from "@modelcontextprotocol/server";
import { systemClock } from "@sisyphus/write-safety";
import { afterEach, describe, expect, it } from "vitest";
import { type AuthorityEndpoint, createAuthorityEndpoint, type ResponseMode } from "./endpoint.js";

const open: AuthorityEndpoint[] = [];
afterEach(async () => {
  for (const e of open.splice(0)) await e.close();
});

/** An endpoint over a server with one tool, `wait`, that answers once its call is cancelled. */
function endpointWithWait(responseMode: ResponseMode) {
  let reached: () => void = () => undefined;
  const waiting = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const endpoint = createAuthorityEndpoint({
    responseMode,
    clock: systemClock,
    server: () => {
      const server = new McpServer({ name: "test", version: "1" });
      server.registerTool(
        "wait",
        { description: "answers when cancelled" },
        (ctx) =>
          new Promise((resolve) => {
            ctx.mcpReq.signal.addEventListener("abort", () => resolve({ content: [] }));
            reached();
          }),
      );
      return server;
    },
  });
  open.push(endpoint);
  return { endpoint, waiting };
}

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

function post(
  endpoint: AuthorityEndpoint,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  const request = new Request("http://localhost/mcp", {
    method: "POST",
    headers: { ...HEADERS, ...headers },
    body: JSON.stringify(body),
  });
  return endpoint.fetch(request, { parsedBody: body });
}

async function session(endpoint: AuthorityEndpoint, protocolVersion: string) {
  const init = await post(endpoint, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  expect(init.status).toBe(200);
  await init.text();
  const headers = {
    "mcp-session-id": init.headers.get("mcp-session-id") as string,
    "mcp-protocol-version": protocolVersion,
  };
  await (
    await post(endpoint, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)
  ).text();
  return headers;
}

describe("createAuthorityEndpoint", () => {
  it("keeps legacy sessions, and answers without one or with an unknown one as both shells did", async () => {
    const { endpoint } = endpointWithWait("json");
    const headers = await session(endpoint, "2025-11-25");
    expect(endpoint.legacySessions()).toBe(1);
    expect(endpoint.hasSession(headers["mcp-session-id"])).toBe(true);
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
    const listed = (await (await post(endpoint, list, headers)).json()) as {
      result: { tools: { name: string }[] };
    };
    expect(listed.result.tools.map((t) => t.name)).toEqual(["wait"]);
    const unknown = await post(endpoint, list, { ...headers, "mcp-session-id": "nope" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      error: { code: -32001, message: "Session not found" },
    });
    const none = await post(endpoint, list);
    expect(none.status).toBe(400);
    expect(await none.json()).toMatchObject({
      error: {
        code: -32000,
        message: "Bad Request: no valid Mcp-Session-Id; send initialize first",
      },
    });
  });

  it("refuses batches on sessions at 2025-06-18 or later, keeps them on earlier ones", async () => {
    const { endpoint } = endpointWithWait("json");
    const batch = [
      { jsonrpc: "2.0", id: 3, method: "tools/list", params: {} },
      { jsonrpc: "2.0", id: 4, method: "tools/list", params: {} },
    ];
    const late = await post(endpoint, batch, await session(endpoint, "2025-11-25"));
    expect(late.status).toBe(400);
    expect(await late.json()).toMatchObject({ error: { code: -32600 } });
    const early = await post(endpoint, batch, await session(endpoint, "2025-03-26"));
    expect(early.status).toBe(200);
    expect(((await early.json()) as unknown[]).length).toBe(2);
  });

  it("answers a JSON-mode session call that notifications/cancelled names, once it is waiting", async () => {
    const { endpoint, waiting } = endpointWithWait("json");
    const headers = await session(endpoint, "2025-11-25");
    const call = post(
      endpoint,
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "wait", arguments: {} } },
      headers,
    );
    await waiting;
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } };
    await (await post(endpoint, cancel, headers)).text();
    expect(await (await call).json()).toMatchObject({
      id: 7,
      error: { code: -32800, message: "Request cancelled" },
    });
  });

  it("routes a 2026-07-28 request to the stateless handler", async () => {
    const { endpoint } = endpointWithWait("json");
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const res = await post(
      endpoint,
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } },
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(await res.json()).toMatchObject({ result: { supportedVersions: ["2026-07-28"] } });
    expect(endpoint.legacySessions()).toBe(0);
  });
});

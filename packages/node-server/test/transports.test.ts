import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { SERVER_INSTRUCTIONS } from "@sisyphus/mcp-tools";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { describe, expect, it } from "vitest";
import { MAX_REQUEST_BODY_BYTES } from "../src/constants.js";
import {
  AUTH_TOKEN,
  auditEnv,
  authorityFor,
  BIN,
  healthOf,
  httpClient,
  legacyInitialize,
  RAW_HEADERS,
  sharedDemoAuthority,
  sharedStdioClient,
  spawnAuthority,
  TOOL_NAMES,
  tempDataDir,
} from "./harness.js";

const shared = sharedDemoAuthority();

describe("both protocol eras", () => {
  it("serves MCP 2026-07-28 over HTTP statelessly", async () => {
    const client = await httpClient(shared.authority.url, { era: "modern" });
    expect(client.getProtocolEra()).toBe("modern");
    // server/discover carries the server's instructions
    expect(client.getInstructions()).toBe(SERVER_INSTRUCTIONS);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    await client.close();
  });

  it("serves legacy initialize over HTTP with an Mcp-Session-Id session", async () => {
    const client = await httpClient(shared.authority.url, { era: "legacy" });
    expect(client.getProtocolEra()).toBe("legacy");
    // initialize carries the server's instructions
    expect(client.getInstructions()).toBe(SERVER_INSTRUCTIONS);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    const health = await healthOf(shared.authority.url);
    expect(health["legacySessions"]).toBeGreaterThanOrEqual(1);
    await client.close();
  });

  it("serves both eras over stdio", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const client = await sharedStdioClient(shared, era);
      expect(client.getProtocolEra()).toBe(era);
      expect(client.getInstructions(), era).toBe(SERVER_INSTRUCTIONS);
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
      const read = await client.callTool({
        name: "block",
        arguments: { action: "get_kramdown", id: "20260101120102-pgoals1" },
      });
      expect(read.isError).not.toBe(true);
      await client.close();
    }
  });

  it("answers an unknown legacy session with 404 and a legacy call without session with 400", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    const unknown = await fetch(shared.authority.url, {
      method: "POST",
      headers: { ...RAW_HEADERS, "mcp-session-id": "nope" },
      body,
    });
    expect(unknown.status).toBe(404);
    const none = await fetch(shared.authority.url, { method: "POST", headers: RAW_HEADERS, body });
    expect(none.status).toBe(400);
  });
  it("ends a legacy session on DELETE; the session is then unknown (404)", async () => {
    const init = await legacyInitialize(shared.authority.url);
    expect(init.status).toBe(200);
    const session = init.headers.get("mcp-session-id") as string;
    expect(session).toMatch(/^[\x21-\x7e]+$/);
    await init.text();
    const withSession = {
      ...RAW_HEADERS,
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    };
    const del = await fetch(shared.authority.url, { method: "DELETE", headers: withSession });
    expect(del.status).toBe(200);
    const after = await fetch(shared.authority.url, {
      method: "POST",
      headers: withSession,
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
    });
    expect(after.status).toBe(404);
  });

  it("streams a legacy session's GET as SSE at once, and frees it the moment the client drops it", async () => {
    const init = await legacyInitialize(shared.authority.url);
    expect(init.status).toBe(200);
    const session = init.headers.get("mcp-session-id") as string;
    await init.text();
    const headers = {
      authorization: RAW_HEADERS.authorization,
      accept: "text/event-stream",
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    };
    // The stream's headers come at once, not with its first keep-alive (15 s): past 10 s the
    // fetch fails.
    const open = async () => {
      const drop = new AbortController();
      const signal = AbortSignal.any([drop.signal, AbortSignal.timeout(10_000)]);
      const res = await fetch(shared.authority.url, { headers, signal });
      return { res, drop };
    };
    const first = await open();
    expect(first.res.status).toBe(200);
    expect(first.res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    // One GET stream per session: a second one while the first is open is refused.
    const second = await open();
    expect(second.res.status).toBe(409);
    await second.res.text();
    first.drop.abort();
    // The dropped stream is released at once, not at its next keep-alive (15 s): a new GET is
    // served well before that.
    const again = await waitFor(
      async () => {
        const next = await open();
        if (next.res.status === 200) return next;
        await next.res.text();
        return undefined;
      },
      { timeoutMs: 5_000, what: "a new GET stream after the client dropped the first" },
    );
    again.drop.abort();
    await fetch(shared.authority.url, { method: "DELETE", headers });
  });
});

describe("HTTP security", () => {
  const health = () => shared.authority.url.replace("/mcp", "/health");

  it("refuses a missing or wrong bearer token with 401", async () => {
    expect((await fetch(health())).status).toBe(401);
    expect(
      (await fetch(health(), { headers: { authorization: "Bearer wrong-token-0123456789" } }))
        .status,
    ).toBe(401);
    const post = await fetch(shared.authority.url, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(post.status).toBe(401);
  });

  it("refuses a foreign Origin with 403 and accepts a loopback one", async () => {
    const auth = { authorization: `Bearer ${AUTH_TOKEN}` };
    expect(
      (await fetch(health(), { headers: { ...auth, origin: "http://evil.example" } })).status,
    ).toBe(403);
    expect(
      (await fetch(health(), { headers: { ...auth, origin: "http://localhost:5173" } })).status,
    ).toBe(200);
  });

  it("refuses an oversized body with 413", async () => {
    const big = "x".repeat(MAX_REQUEST_BODY_BYTES + 10);
    const res = await fetch(shared.authority.url, {
      method: "POST",
      body: big,
      headers: { authorization: `Bearer ${AUTH_TOKEN}`, "content-type": "application/json" },
    });
    expect(res.status).toBe(413);
  });

  it("takes a template body over the old 4 MiB cap: the template budget bounds it, not the transport", async () => {
    const client = await httpClient(shared.authority.url, { era: "modern" });
    const content = `# Big\n${"line of a large template\n".repeat(240_000)}`; // ~6 MiB
    const preflight = await client.callTool({
      name: "file",
      arguments: { action: "create_template", name: "big.md", content, validateOnly: true },
    });
    expect(preflight.isError, JSON.stringify(preflight.structuredContent)).not.toBe(true);
    expect((preflight.structuredContent as { requestId?: unknown }).requestId).toEqual(
      expect.any(String),
    );
    await client.close();
  });

  it("reports aggregate counts only on /health", async () => {
    const res = await fetch(health(), { headers: { authorization: `Bearer ${AUTH_TOKEN}` } });
    const text = await res.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    for (const value of Object.values(body)) expect(["number", "boolean"]).toContain(typeof value);
    expect(body).toHaveProperty("ledgerEntries");
    expect(body).toHaveProperty("leases");
    expect(body).toHaveProperty("inFlight");
    expect(body).toHaveProperty("readBudgetExceededCalls");
    expect(text).not.toContain(AUTH_TOKEN);
    expect(text).not.toContain(shared.sandbox.token);
  });
});

describe("kernel down", () => {
  it("starts and lists tools without the kernel, and reports kernel trouble on the call", async () => {
    const down = await spawnAuthority({
      dataDir: tempDataDir(),
      siyuanUrl: "http://127.0.0.1:9",
      siyuanToken: "x",
    });
    const client = await httpClient(down.url, { era: "modern" });
    const tools = await client.listTools();
    expect(tools.tools).toHaveLength(TOOL_NAMES.length);
    const read = await client.callTool({
      name: "block",
      arguments: { action: "get_kramdown", id: "20260101120102-pgoals1" },
    });
    expect(read.isError).toBe(true);
    await client.close();
    await down.stop();
  });

  it("refuses a second process on the same data directory, naming the holder", async () => {
    const err = await authorityFor(shared.sandbox, shared.dataDir).catch((e: Error) => e);
    expect(String(err)).toContain(`owned by process ${shared.authority.child.pid}`);
  });
});

describe("embedded demo", () => {
  it("starts the demo sandbox without a SiYuan URL, prints endpoint, token and client config, and serves notes", async () => {
    const dir = tempDataDir();
    const child = spawn(process.execPath, [BIN, "--port", "0", "--data-dir", dir], {
      env: { PATH: process.env["PATH"] ?? "", ...auditEnv() },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stderr.setEncoding("utf8");
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(out)), 20_000);
        child.stderr.on("data", (c: string) => {
          out += c;
          if (/"mcpServers"[\s\S]*\n}\n/.test(out)) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      expect(out).toContain("embedded demo SiYuan sandbox");
      const url = /listening on (\S+\/mcp)/.exec(out)?.[1] as string;
      const token = /auth token (\S+)/.exec(out)?.[1] as string;
      const config = JSON.parse(out.slice(out.indexOf("{"))) as {
        mcpServers: { sisyphus: { url: string } };
      };
      expect(config.mcpServers.sisyphus.url).toBe(url);
      const client = await httpClient(url, { era: "modern", token });
      const read = await client.callTool({
        name: "block",
        arguments: { action: "get_kramdown", id: "20260101120102-pgoals1" },
      });
      expect(read.isError).not.toBe(true);
      await client.close();
      for (const name of readdirSync(dir)) {
        if (statSync(join(dir, name)).isFile())
          expect(readFileSync(join(dir, name), "utf8")).not.toContain(token);
      }
    } finally {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
    expect(existsSync(join(dir, "shared.authority.json"))).toBe(false);
  });
});

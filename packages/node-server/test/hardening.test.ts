/**
 * Hostile input against the running authority over raw HTTP (`node:http`, so Host and
 * Authorization go out byte for byte), legacy batching, and the data directory's permissions.
 */
import { chmodSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import {
  AUTH_TOKEN,
  authorityFor,
  httpClient,
  sc,
  sharedDemoAuthority,
  strictUpdate,
} from "./harness.js";

const shared = sharedDemoAuthority();

interface RawAnswer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * One raw HTTP/1.1 request to the authority; `headers` are sent exactly (no Host is added; an
 * array value goes out as repeated header lines).
 */
function raw(
  path: string,
  headers: Record<string, string | string[]>,
  options: { method?: string; body?: string | Buffer } = {},
): Promise<RawAnswer> {
  const port = Number(new URL(shared.authority.url).port);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: options.method ?? (options.body === undefined ? "GET" : "POST"),
        headers: Object.entries(headers).flatMap(([name, value]) =>
          (Array.isArray(value) ? value : [value]).flatMap((v) => [name, v]),
        ),
        setHost: false,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

const hostOf = () => new URL(shared.authority.url).host;
const auth = () => ({ host: hostOf(), authorization: `Bearer ${AUTH_TOKEN}` });
const mcpHeaders = () => ({
  ...auth(),
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
});
const ROUTES: Array<[string, string]> = [
  ["GET", "/health"],
  ["POST", "/mcp"],
  ["GET", "/mcp"],
  ["DELETE", "/mcp"],
  ["GET", "/nowhere"],
];

describe("Host is parsed strictly on every route (400/403, never 500)", () => {
  it("answers 400 for userinfo, trailing junk, an empty or a repeated Host, and 403 for a foreign one", async () => {
    const port = new URL(shared.authority.url).port;
    const cases: Array<[string[], number, string]> = [
      [[`evil.example:${port}@127.0.0.1`], 400, "bad_host"],
      [[`127.0.0.1:${port}.evil.example`], 400, "bad_host"],
      [[""], 400, "bad_host"],
      [[`127.0.0.1:${port}/x`], 400, "bad_host"],
      [[`127.0.0.1:${port}`, `127.0.0.1:${port}`], 400, "bad_host"],
      [[`evil.example:${port}`], 403, "forbidden_host"],
      [[`127.0.0.1.evil.example:${port}`], 403, "forbidden_host"],
    ];
    for (const [method, path] of ROUTES) {
      for (const [hosts, status, error] of cases) {
        // A repeated header goes out as two lines when given as an array.
        const headers = { host: hosts, authorization: `Bearer ${AUTH_TOKEN}` };
        const res = await raw(path, headers, {
          method,
          ...(method === "POST" ? { body: "{}" } : {}),
        });
        expect([res.status, JSON.parse(res.body)], `${method} ${path} Host ${hosts}`).toEqual([
          status,
          { error },
        ]);
      }
    }
  });

  it("still serves loopback Hosts: 127.0.0.1, localhost and [::1] with any port", async () => {
    const port = new URL(shared.authority.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, "localhost"]) {
      const res = await raw("/health", { host, authorization: `Bearer ${AUTH_TOKEN}` });
      expect(res.status, host).toBe(200);
    }
  });

  it("answers 400, not 500, for a request target that is not a URL", async () => {
    const res = await raw("http://[", auth());
    expect(res.status).toBe(400);
  });
});

describe("the bearer credential is compared exactly", () => {
  it("refuses a token with a no-break space or extra whitespace before or after it, on every route", async () => {
    const nbsp = Buffer.from("\u00a0", "utf8").toString("latin1");
    const variants = [
      `Bearer ${AUTH_TOKEN}${nbsp}`,
      `Bearer ${nbsp}${AUTH_TOKEN}`,
      `Bearer  ${AUTH_TOKEN}`,
      `Bearer\t${AUTH_TOKEN}`,
      `Bearer ${AUTH_TOKEN}\t${nbsp}`,
    ];
    for (const [method, path] of ROUTES) {
      for (const authorization of variants) {
        const res = await raw(
          path,
          { host: hostOf(), authorization },
          { method, ...(method === "POST" ? { body: "{}" } : {}) },
        );
        expect(res.status, `${method} ${path} ${JSON.stringify(authorization)}`).toBe(401);
      }
    }
    const ok = await raw("/health", { host: hostOf(), authorization: `bearer ${AUTH_TOKEN}` });
    expect(ok.status).toBe(200);
  });
});

describe("deeply nested JSON", () => {
  it("refuses a body nested 10,000 levels deep with a JSON-RPC invalid-request error, and keeps serving", async () => {
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    const inParams = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":${deep}}}`;
    for (const body of [deep, inParams]) {
      const res = await raw("/mcp", mcpHeaders(), { body });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600 },
      });
    }
    // Brackets inside strings are not nesting: a normal call whose data is full of them runs.
    const client = await httpClient(shared.authority.url, { era: "modern" });
    const { commit } = await strictUpdate(client, DEMO_IDS.paragraphStatus, "[".repeat(300));
    expect(sc(commit)["status"]).toBe("committed");
    await client.close();
  });
});

describe("JSON-RPC batches on legacy sessions", () => {
  async function session(protocolVersion: string): Promise<string> {
    const init = await raw("/mcp", mcpHeaders(), {
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }),
    });
    expect(init.status).toBe(200);
    expect(init.body).toContain(`"protocolVersion":"${protocolVersion}"`);
    return init.headers["mcp-session-id"] as string;
  }
  const batch = JSON.stringify([
    { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
    { jsonrpc: "2.0", id: 3, method: "tools/list", params: {} },
  ]);

  it("refuses batches on sessions negotiated at 2025-06-18 or later", async () => {
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const id = await session(version);
      const res = await raw(
        "/mcp",
        { ...mcpHeaders(), "mcp-session-id": id, "mcp-protocol-version": version },
        { body: batch },
      );
      expect(res.status, version).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: -32600 } });
    }
  });

  it("keeps batches on 2025-03-26 sessions", async () => {
    const id = await session("2025-03-26");
    const res = await raw(
      "/mcp",
      { ...mcpHeaders(), "mcp-session-id": id, "mcp-protocol-version": "2025-03-26" },
      { body: batch },
    );
    expect(res.status).toBe(200);
    expect(res.body).toContain('"id":2');
    expect(res.body).toContain('"id":3');
  });
});

describe("data directory permissions", () => {
  const modeOf = (path: string) => statSync(path).mode & 0o777;

  it("tightens a wider data directory of its own to 0700, says so, and writes its files 0600", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sisyphus-e2e-"));
    chmodSync(dir, 0o755);
    const auth = await authorityFor(shared.sandbox, dir);
    expect(auth.stderr()).toContain("(mode 0755); tightened it to 0700");
    expect(modeOf(dir)).toBe(0o700);
    const client = await httpClient(auth.url, { era: "modern" });
    const { commit } = await strictUpdate(client, DEMO_IDS.paragraphGoals, "Goals, privately");
    expect(sc(commit)["status"]).toBe("committed");
    await client.close();
    for (const name of ["ledger.wal", "reservations.wal", "authority.json", "authority.lock"]) {
      expect(modeOf(join(dir, name)), name).toBe(0o600);
    }
    await auth.stop();
  });

  it("leaves a shared directory as it is but warns at start", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sisyphus-e2e-"));
    writeFileSync(join(dir, "someone-elses.txt"), "x");
    chmodSync(dir, 0o755);
    const auth = await authorityFor(shared.sandbox, dir);
    expect(auth.stderr()).toContain("WARNING: the data directory");
    expect(auth.stderr()).toContain("someone-elses.txt");
    expect(modeOf(dir)).toBe(0o755);
    expect(modeOf(join(dir, "ledger.wal"))).toBe(0o600);
    expect(modeOf(join(dir, "reservations.wal"))).toBe(0o600);
    await auth.stop();
  });
});

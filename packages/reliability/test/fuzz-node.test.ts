/**
 * Bad input against the real built Node server over HTTP (issue 18 "Bad input"): fuzzed tool
 * arguments for every catalog action, credentials, JSON-RPC frames, HTTP headers and Content-Length
 * lies. Each property holds for every case: a typed answer (never a 5xx, never a stack), no kernel
 * write; after each batch the process still runs and answers a real read. The seed is printed;
 * `FUZZ_SEED=<n>` replays it, `RELIABILITY_LONG=1` runs 20 times the cases.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { MAX_REQUEST_BODY_BYTES } from "../../node-server/src/constants.js";
import {
  AUTH_TOKEN,
  blockPreflight,
  httpClient,
  sc,
  sharedDemoAuthority,
  strictUpdate,
} from "../../node-server/test/harness.js";
import {
  count,
  fieldValue,
  frame,
  kernelWritesSince,
  LONG,
  legacyInitializeBody,
  logMark,
  MODERN_META,
  modernCall,
  outcome,
  outcomeSummary,
  params,
  rawHttp,
  rawSocket,
  SEED,
  shapedCall,
  tally,
  toolCall,
  toolResultProblem,
  unexpectedWrites,
  untyped,
} from "./support/fuzz-kit.js";

// The long run (20 times the cases) outlasts the suite's per-test limit.
if (LONG) vi.setConfig({ testTimeout: 60 * 60_000 });

const shared = sharedDemoAuthority();
const port = () => Number(new URL(shared.authority.url).port);
const host = () => `127.0.0.1:${port()}`;
const auth = () => ({ host: host(), authorization: `Bearer ${AUTH_TOKEN}` });

beforeAll(() => {
  console.log(`fuzz-node seed ${SEED} (replay: FUZZ_SEED=${SEED})`);
});
afterAll(() => {
  console.log(`fuzz-node cases ${JSON.stringify(Object.fromEntries(tally))}`);
  console.log(`fuzz-node outcomes ${JSON.stringify(outcomeSummary(), null, 1)}`);
});

/** The process runs and answers a real read through the official client. */
async function stillServes(): Promise<void> {
  expect(shared.authority.child.exitCode).toBeNull();
  const client = await httpClient(shared.authority.url, { era: "modern" });
  const read = await client.callTool({
    name: "block",
    arguments: { action: "get_kramdown", id: DEMO_IDS.paragraphGoals },
  });
  expect(read.isError, JSON.stringify(sc(read))).not.toBe(true);
  await client.close();
}

/** A raw modern `tools/call`; the answer, already judged typed. */
async function call(
  property: string,
  name: unknown,
  args: unknown,
  extra: Record<string, unknown> = {},
) {
  const { headers, body } = modernCall(name, args);
  const parsed = JSON.parse(body) as { params: Record<string, unknown> };
  Object.assign(parsed.params, extra);
  const answer = await rawHttp(
    port(),
    "/mcp",
    { ...auth(), ...headers },
    {
      body: JSON.stringify(parsed),
    },
  );
  outcome(property, answer);
  const problem = untyped(answer);
  if (problem !== undefined) throw new Error(problem);
  return answer;
}

function resultOf(answer: { body: string }): Record<string, unknown> {
  return ((JSON.parse(answer.body) as { result?: Record<string, unknown> }).result ?? {}) as Record<
    string,
    unknown
  >;
}

/** Tool calls, fuzzed and schema-shaped: each answered or refused with a typed code, no write. */
const TOOL_CALL_PROPERTIES = [
  {
    label: "toolArguments",
    suite: "fuzzed tool arguments (every catalog action)",
    title: "answers each with a result or a typed error, and writes nothing",
    calls: toolCall,
    runs: 120,
  },
  {
    label: "shapedArguments",
    suite: "schema-shaped tool arguments (every catalog action, one field spoiled or none)",
    title:
      "answers reads and preflights, refuses commits without a lease with a typed code, and writes nothing",
    calls: shapedCall,
    runs: 100,
  },
] as const;

for (const p of TOOL_CALL_PROPERTIES) {
  describe(p.suite, () => {
    it(p.title, async () => {
      await fc.assert(
        fc.asyncProperty(p.calls, async (c) => {
          count(`node.${p.label}`);
          const before = logMark(shared.sandbox);
          const answer = await call(p.label, c.name, c.arguments);
          expect(unexpectedWrites(shared.sandbox, before, c, answer)).toEqual([]);
        }),
        params(p.runs),
      );
      await stillServes();
    });
  });
}

describe("fuzzed credentials on a leased commit", () => {
  it("refuses every commit whose requestId or precondition is not the lease's, with a typed code and no write", async () => {
    const client = await httpClient(shared.authority.url, { era: "modern" });
    const del = await blockPreflight(client, { action: "delete", id: DEMO_IDS.paragraphJournal });
    const other = await blockPreflight(client, {
      action: "update",
      id: DEMO_IDS.paragraphMilestones,
      dataType: "markdown",
      data: "other lease",
    });
    await client.close();
    const real = del.commitArgs as Record<string, unknown>;
    const field = del.field;
    const requestId = fc.oneof(
      fc.constant(real["requestId"]),
      fc.constant(other.p["requestId"]),
      fc.uuid(),
      fieldValue,
    );
    const hash = fc.oneof(
      fc.constant(real[field]),
      fc.constant(other.p[other.field]),
      fc.constant(`${String(real[field]).slice(0, -1)}0`),
      fieldValue,
    );
    const creds = fc
      .record({
        requestId,
        hash,
        hashField: fc.constantFrom(field, "expectedStateHash", "expectedManifestHash"),
        confirm: fc.oneof(fc.constant(true), fieldValue),
        dropRequestId: fc.boolean(),
      })
      .filter(
        (c) =>
          c.dropRequestId ||
          c.requestId !== real["requestId"] ||
          c.hash !== real[field] ||
          c.hashField !== field,
      );
    const mark = logMark(shared.sandbox);
    await fc.assert(
      fc.asyncProperty(creds, async (c) => {
        count("node.credentials");
        const args: Record<string, unknown> = {
          action: "delete",
          id: DEMO_IDS.paragraphJournal,
          [c.hashField]: c.hash,
          confirm: c.confirm,
        };
        if (!c.dropRequestId) args["requestId"] = c.requestId;
        const result = resultOf(await call("credentials", "block", args));
        expect(result["isError"], JSON.stringify(result)).toBe(true);
      }),
      params(60),
    );
    expect(kernelWritesSince(shared.sandbox, mark)).toEqual([]);
    expect(shared.sandbox.control.kramdown(DEMO_IDS.paragraphJournal)).not.toBeNull();
    await stillServes();
  });

  it("refuses forged, altered and foreign requestStates with confirmation_invalid (or asks again), never deleting", async () => {
    const client = await httpClient(shared.authority.url, { era: "modern" });
    const del = await blockPreflight(client, { action: "delete", id: DEMO_IDS.paragraphQuote });
    const other = await blockPreflight(client, { action: "delete", id: DEMO_IDS.mathJournal });
    await client.close();
    const form = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
    const issue = async (args: Record<string, unknown>) => {
      const r = resultOf(
        await call("issue", "block", args, { _meta: { ...MODERN_META, ...form } }),
      );
      return r["requestState"] as string;
    };
    const accept = { confirm: { action: "accept", content: { confirm: true } } };
    const mutation = fc.oneof(
      fc.constant((s: string) => `${s.slice(0, -4)}AAAA`),
      fc.constant((s: string) => s.slice(0, Math.floor(s.length / 2))),
      fc.nat().map((i) => (s: string) => {
        const at = i % s.length;
        return `${s.slice(0, at)}${s[at] === "A" ? "B" : "A"}${s.slice(at + 1)}`;
      }),
      fieldValue.map((v) => () => v),
      fc.constant((_s: string) => "foreign"),
    );
    const mark = logMark(shared.sandbox);
    await fc.assert(
      fc.asyncProperty(
        mutation,
        fc.oneof(fc.constant<unknown>(accept), fieldValue),
        async (mutate, inputResponses) => {
          count("node.requestState");
          const state = await issue(del.commitArgs);
          const sent = mutate(state);
          const forged = sent === "foreign" ? await issue(other.commitArgs) : sent;
          const answer = await call("requestState", "block", del.commitArgs, {
            _meta: { ...MODERN_META, ...form },
            inputResponses,
            requestState: forged,
          });
          // A JSON-RPC error (malformed params) was judged typed by `call`.
          if ("error" in JSON.parse(answer.body)) return;
          const r = resultOf(answer);
          if (r["resultType"] === "input_required") return;
          expect(r["isError"], JSON.stringify(r)).toBe(true);
          expect(toolResultProblem(r)).toBeUndefined();
        },
      ),
      params(25),
    );
    expect(kernelWritesSince(shared.sandbox, mark)).toEqual([]);
    await stillServes();
  });
});

describe("fuzzed JSON-RPC frames", () => {
  it("answers bad jsonrpc, ids of every type, batches, missing methods, truncated and invalid UTF-8 frames with typed errors", async () => {
    const mark = logMark(shared.sandbox);
    const headers = fc.constantFrom<Record<string, string>>(
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call" },
      { "mcp-protocol-version": "2026-07-28" },
      {},
    );
    await fc.assert(
      fc.asyncProperty(frame, headers, async (body, extra) => {
        count("node.frames");
        const answer = await rawHttp(
          port(),
          "/mcp",
          {
            ...auth(),
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...extra,
          },
          { body },
        );
        outcome("frames", answer);
        expect(untyped(answer)).toBeUndefined();
      }),
      params(200),
    );
    expect(kernelWritesSince(shared.sandbox, mark)).toEqual([]);
    await stillServes();
  });

  it("answers the same frames inside legacy sessions (2025-03-26 batches, 2025-11-25) with typed answers", async () => {
    const mark = logMark(shared.sandbox);
    const sessions: Array<[string, string]> = [];
    for (const version of ["2025-03-26", "2025-11-25"]) {
      const init = await rawHttp(
        port(),
        "/mcp",
        {
          ...auth(),
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        { body: legacyInitializeBody(version) },
      );
      expect(init.status).toBe(200);
      sessions.push([version, init.headers["mcp-session-id"] as string]);
    }
    await fc.assert(
      fc.asyncProperty(frame, fc.constantFrom(...sessions), async (body, [version, session]) => {
        count("node.legacyFrames");
        const answer = await rawHttp(
          port(),
          "/mcp",
          {
            ...auth(),
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": version,
            "mcp-session-id": session,
          },
          { body },
        );
        outcome("legacyFrames", answer);
        expect(untyped(answer)).toBeUndefined();
      }),
      params(120),
    );
    expect(kernelWritesSince(shared.sandbox, mark)).toEqual([]);
    await stillServes();
  });

  it("refuses a frame over the body limit with 413 (-32600), declared or not", async () => {
    count("node.frames");
    const over = Buffer.alloc(MAX_REQUEST_BODY_BYTES + 1, 0x20);
    const sent = await rawHttp(
      port(),
      "/mcp",
      { ...auth(), "content-type": "application/json" },
      {
        body: over,
      },
    );
    expect([sent.status, JSON.parse(sent.body).error.code]).toEqual([413, -32600]);
    await stillServes();
  });
});

/** Header values Node's client can send: printable Latin-1, possibly empty. */
const headerText = fc
  .string({
    unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)),
    maxLength: 60,
  })
  .filter((s) => !/[\x7f]/.test(s));

describe("fuzzed HTTP headers", () => {
  const option = <T>(values: fc.Arbitrary<T>) => fc.option(values, { nil: undefined });
  const headerSet = fc.record({
    "mcp-protocol-version": option(
      fc.oneof(
        fc.constantFrom("2026-07-28", "2025-11-25", "2025-03-26", "2024-11-05", "9999-01-01"),
        headerText,
      ),
    ),
    "mcp-session-id": option(fc.oneof(fc.uuid(), headerText)),
    "mcp-method": option(fc.oneof(fc.constantFrom("tools/call", "tools/list"), headerText)),
    "mcp-name": option(fc.oneof(fc.constant("block"), headerText)),
    origin: option(
      fc.oneof(
        fc.constantFrom(
          "http://127.0.0.1",
          "http://localhost:3000",
          "https://evil.example",
          "null",
        ),
        headerText,
      ),
    ),
    host: fc.oneof(
      { weight: 3, arbitrary: fc.constant("ok") },
      {
        weight: 1,
        arbitrary: fc.constantFrom("evil.example", "localhost", "[::1]:1", "127.0.0.1:0"),
      },
      { weight: 1, arbitrary: headerText },
    ),
    accept: option(
      fc.oneof(
        fc.constantFrom(
          "application/json",
          "text/event-stream",
          "*/*",
          "application/json, text/event-stream",
        ),
        headerText,
      ),
    ),
    "content-type": option(
      fc.oneof(
        fc.constantFrom("application/json", "text/plain", "application/json; charset=latin1"),
        headerText,
      ),
    ),
    authorization: fc.oneof(
      { weight: 4, arbitrary: fc.constant(`Bearer ${AUTH_TOKEN}`) },
      { weight: 1, arbitrary: headerText },
    ),
    method: fc.constantFrom("POST", "POST", "GET", "DELETE", "PUT", "OPTIONS"),
  });

  it("answers every combination with a documented status and a typed body", async () => {
    const mark = logMark(shared.sandbox);
    const read = modernCall("block", { action: "get_kramdown", id: DEMO_IDS.paragraphGoals });
    await fc.assert(
      fc.asyncProperty(headerSet, async ({ method, host: h, ...rest }) => {
        count("node.headers");
        const headers: Record<string, string> = { host: h === "ok" ? host() : h };
        for (const [k, v] of Object.entries(rest)) if (v !== undefined) headers[k] = v;
        const answer = await rawHttp(port(), "/mcp", headers, {
          method,
          ...(method === "POST" ? { body: read.body } : {}),
        });
        outcome("headers", answer);
        expect(untyped(answer)).toBeUndefined();
        if (answer.status >= 400 && answer.body !== "") {
          expect([400, 401, 403, 404, 405, 406, 415]).toContain(answer.status);
        }
      }),
      params(150),
    );
    expect(kernelWritesSince(shared.sandbox, mark)).toEqual([]);
    await stillServes();
  });

  it("answers Content-Length lies (short, non-numeric, negative, repeated, long then closed) without a 5xx", async () => {
    const lie = fc.record({
      declared: fc.oneof(
        fc.integer({ min: 0, max: 200 }).map(String),
        fc.constantFrom("-1", "abc", "1e3", "0x10", " 12", "99999999999999999999", "5, 6"),
      ),
      repeat: fc.option(fc.integer({ min: 0, max: 200 }).map(String), { nil: undefined }),
    });
    const body = modernCall("tools/list", {}).body;
    await fc.assert(
      fc.asyncProperty(lie, async ({ declared, repeat }) => {
        count("node.contentLength");
        const head = [
          "POST /mcp HTTP/1.1",
          `Host: ${host()}`,
          `Authorization: Bearer ${AUTH_TOKEN}`,
          "Content-Type: application/json",
          "Accept: application/json, text/event-stream",
          "MCP-Protocol-Version: 2026-07-28",
          `Content-Length: ${declared}`,
          ...(repeat === undefined ? [] : [`Content-Length: ${repeat}`]),
          "Connection: close",
        ].join("\r\n");
        const text = await rawSocket(port(), Buffer.from(`${head}\r\n\r\n${body}`, "latin1"));
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
        expect(status < 500, text.slice(0, 300)).toBe(true);
        expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
      }),
      params(40),
    );
    await stillServes();
  });
});

describe("after the fuzzing", () => {
  it("still commits a real strict write exactly once", async () => {
    const client = await httpClient(shared.authority.url, { era: "modern" });
    const before = shared.sandbox.control.count("/api/block/updateBlock");
    const { commit } = await strictUpdate(client, DEMO_IDS.paragraphStatus, "Status: fuzzed, fine");
    expect(sc(commit)["status"]).toBe("committed");
    expect(shared.sandbox.control.count("/api/block/updateBlock")).toBe(before + 1);
    await client.close();
  });
});

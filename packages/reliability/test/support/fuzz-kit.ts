/**
 * Shared machinery of the bad-input fuzz files (issue 18 "Bad input"): the seed and run counts,
 * raw HTTP (bytes and headers exactly as given, so a fuzzed Host or Content-Length goes out
 * unchanged), the known error codes, the judge of one answer, the arbitraries built from the
 * mcp-tools catalog, and the count of kernel writes in the sandbox request log.
 */
import { request } from "node:http";
import { connect } from "node:net";
import { ACTIONS, findAction } from "@sisyphus/mcp-tools";
import { ENDPOINTS } from "@sisyphus/siyuan-api";
import { DEMO_IDS, type Sandbox } from "@sisyphus/siyuan-sandbox";
import { isWireErrorCode, WIRE_ERRORS } from "@sisyphus/write-safety";
import fc from "fast-check";

/** RELIABILITY_LONG=1 multiplies every property's runs by this. */
const LONG_FACTOR = 20;
export const LONG = process.env["RELIABILITY_LONG"] === "1";

/**
 * The run's seed: `FUZZ_SEED` replays a failure exactly, else a fresh one. Printed once per file
 * (and fast-check prints it with the counterexample and its path on failure).
 */
export const SEED = Number(process.env["FUZZ_SEED"] ?? Math.floor(Math.random() * 2 ** 31));

/** fast-check parameters of one property of `runs` cases (times {@link LONG_FACTOR} under LONG). */
export function params(runs: number): fc.Parameters<unknown> {
  return { seed: SEED, numRuns: LONG ? runs * LONG_FACTOR : runs, endOnFailure: true };
}

/** Counts every case each property ran, for the report (`fuzz cases` in docs/reliability.md). */
export const tally = new Map<string, number>();
export function count(property: string): void {
  tally.set(property, (tally.get(property) ?? 0) + 1);
}

/** What the answers were, per property (status and code), for the report and to see the spread. */
export const outcomes = new Map<string, Map<string, number>>();
export function outcome(property: string, answer: RawAnswer): void {
  const m = outcomes.get(property) ?? new Map<string, number>();
  outcomes.set(property, m);
  let key = String(answer.status);
  try {
    const first = messagesOf(answer)[0] as Record<string, unknown> | undefined;
    const rpc = (first?.["error"] as { code?: unknown } | undefined)?.code;
    const result = first?.["result"] as
      | {
          isError?: boolean;
          resultType?: string;
          structuredContent?: { error?: { code?: string } };
        }
      | undefined;
    if (typeof first?.["error"] === "string") key += ` ${first["error"]}`;
    else if (rpc !== undefined) key += ` rpc ${String(rpc)}`;
    else if (result?.isError) key += ` ${result.structuredContent?.error?.code}`;
    else if (result !== undefined) key += ` ${result.resultType ?? "result"}`;
  } catch {
    key += " unparsed";
  }
  m.set(key, (m.get(key) ?? 0) + 1);
}

/** The outcome spread as plain objects (printed after each file). */
export function outcomeSummary(): Record<string, Record<string, number>> {
  return Object.fromEntries([...outcomes].map(([p, m]) => [p, Object.fromEntries(m)]));
}

/** Every error code a tool result may carry: the tools', the shell's and the coordinator's. */
export const KNOWN_CODES: ReadonlySet<string> = new Set(Object.keys(WIRE_ERRORS));

const ENDPOINT_KIND = new Map<string, string>(
  Object.values(ENDPOINTS).map((e) => [e.path, e.kind]),
);

/** Kernel API calls in `sb`'s request log after `fromSeq` that are not reads (unknown ones count). */
export function kernelWritesSince(sb: Sandbox, fromSeq: number): string[] {
  return writeEntriesSince(sb, fromSeq).map((e) => `${e.method} ${e.path}`);
}

function writeEntriesSince(sb: Sandbox, fromSeq: number) {
  return sb.control
    .log()
    .filter((e) => e.seq > fromSeq && e.path.startsWith("/api/"))
    .filter((e) => ENDPOINT_KIND.get(e.path) !== "read");
}

/**
 * The kernel writes of one tool call that it should not have made: none may follow a refused call
 * or any call of a strict mutation (no fuzzed call holds a lease). An `external` action runs
 * unleased (the catalog's policy): when it succeeded (`system.notify`'s toast) it may reach its
 * endpoint, and when it failed, only calls the kernel itself refused (envelope code ≠ 0, e.g.
 * `file.export_resources` of a missing path → `kernel_error`) may be in the log.
 */
export function unexpectedWrites(
  sb: Sandbox,
  fromSeq: number,
  call: { name: unknown; arguments: unknown },
  answer: RawAnswer,
): string[] {
  const action = (call.arguments as { action?: unknown } | null)?.action;
  const surface = typeof call.name === "string" ? findAction(call.name, action) : undefined;
  const kind = surface?.policy.kind;
  const first = messagesOf(answer)[0] as { result?: { isError?: boolean } } | undefined;
  const succeeded = first?.result !== undefined && first.result.isError !== true;
  if (kind === "external" && succeeded) return [];
  return writeEntriesSince(sb, fromSeq)
    .filter((e) => !(kind === "read" && READ_USES.has(e.path)))
    .filter((e) => !(kind === "external" && e.code !== 0))
    .map((e) => `${e.method} ${e.path}`);
}

/**
 * Endpoints the client counts as writes that read actions call as reads: `av.render` pages a view
 * with `createIfNotExist: false` (mcp-tools kernel.ts), so it never creates the database file.
 */
const READ_USES = new Set(["/api/av/renderAttributeView"]);

/** The last sequence number of `sb`'s request log (0 when empty). */
export function logMark(sb: Sandbox): number {
  return sb.control.log().at(-1)?.seq ?? 0;
}

/** One raw answer. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One raw HTTP/1.1 request to `port` on 127.0.0.1: `headers` go out exactly (no Host added, an
 * array is repeated lines), `body` as bytes.
 */
export function rawHttp(
  port: number,
  path: string,
  headers: Record<string, string | string[]>,
  options: { method?: string; body?: string | Buffer } = {},
): Promise<RawAnswer> {
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
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/**
 * Bytes written straight to a socket (for Content-Length lies Node's client will not send); the
 * text the server sent back until it closed the connection or sent one complete answer.
 */
export function rawSocket(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let got = "";
    socket.setEncoding("latin1");
    socket.on("data", (c: string) => {
      got += c;
      if (completeAnswer(got)) socket.destroy();
    });
    socket.on("close", () => resolve(got));
    socket.on("error", (e: NodeJS.ErrnoException) =>
      e.code === "ECONNRESET" ? resolve(got) : reject(e),
    );
    socket.end(bytes);
  });
}

/** Whether `text` holds a whole HTTP answer (headers and a Content-Length body). */
function completeAnswer(text: string): boolean {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end));
  return length !== null && Buffer.byteLength(text.slice(end + 4), "latin1") >= Number(length[1]);
}

/** The JSON-RPC messages of an answer body: one JSON value, or the `data:` lines of an SSE stream. */
export function messagesOf(answer: RawAnswer): unknown[] {
  const type = String(answer.headers["content-type"] ?? "");
  if (type.startsWith("text/event-stream")) {
    return answer.body
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trim())
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as unknown);
  }
  if (answer.body === "") return [];
  const value = JSON.parse(answer.body) as unknown;
  return Array.isArray(value) ? value : [value];
}

/**
 * What is wrong with one answer to fuzzed input, or undefined when it is typed: never a 5xx, never a
 * stack trace; a JSON body whose error is a JSON-RPC error with an integer code, a tool result
 * whose `error.code` is known, or an HTTP error object `{error: <string>}`.
 */
export function untyped(answer: RawAnswer): string | undefined {
  if (answer.status >= 500) return `status ${answer.status}: ${answer.body.slice(0, 300)}`;
  if (/\n\s+at .+:\d+:\d+/.test(answer.body)) return `stack trace: ${answer.body.slice(0, 300)}`;
  let messages: unknown[];
  try {
    messages = messagesOf(answer);
  } catch {
    return `status ${answer.status}, body not JSON: ${answer.body.slice(0, 200)}`;
  }
  if (messages.length === 0 && answer.status !== 202 && answer.status !== 204) {
    if (answer.status >= 400) return `status ${answer.status} with an empty body`;
  }
  for (const m of messages) {
    const problem = untypedMessage(m, answer.status);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function untypedMessage(m: unknown, status: number): string | undefined {
  if (typeof m !== "object" || m === null) return `answer is not an object: ${JSON.stringify(m)}`;
  const o = m as Record<string, unknown>;
  if ("jsonrpc" in o) {
    if ("error" in o) {
      const code = (o["error"] as { code?: unknown } | undefined)?.code;
      return Number.isInteger(code)
        ? undefined
        : `JSON-RPC error without a code: ${JSON.stringify(o)}`;
    }
    return toolResultProblem(o["result"]);
  }
  if (typeof o["error"] === "string" && status >= 400) return undefined;
  if (status < 300) return undefined;
  return `status ${status} without a typed error: ${JSON.stringify(o).slice(0, 200)}`;
}

/**
 * A tool result's problem: an error result must carry a known `structuredContent.error.code`, and
 * say `writeAttempted: true` only with a code whose `WIRE_ERRORS` row allows it.
 */
export function toolResultProblem(result: unknown): string | undefined {
  const r = result as
    | {
        isError?: boolean;
        structuredContent?: { error?: { code?: unknown; writeAttempted?: unknown } };
      }
    | undefined;
  if (r?.isError !== true) return undefined;
  const code = r.structuredContent?.error?.code;
  if (!(typeof code === "string" && KNOWN_CODES.has(code)))
    return `tool error without a known code: ${JSON.stringify(r).slice(0, 300)}`;
  if (
    r.structuredContent?.error?.writeAttempted === true &&
    !(isWireErrorCode(code) && WIRE_ERRORS[code].writeAttempted === "possible")
  )
    return `tool error ${code} says writeAttempted: true, which its code never allows: ${JSON.stringify(r).slice(0, 300)}`;
  return undefined;
}

// ---------------------------------------------------------------- arbitraries

const demoIds = Object.values(DEMO_IDS);
/** Strings up to 256 KiB: the huge-string case of every field. */
const huge = fc
  .tuple(
    fc.constantFrom("x", "ö", "\u{1F600}", "[", "\\", "\u0000"),
    fc.integer({ min: 1, max: 1 << 18 }),
  )
  .map(([c, n]) => c.repeat(Math.ceil(n / c.length)));

/** A value for any field: arbitrary JSON, plausible IDs and paths, odd strings, huge strings. */
export const fieldValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 3, arbitrary: fc.constantFrom(...demoIds) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "",
      "../../etc/passwd",
      "/etc/passwd",
      "/data/../../conf",
      "C:\\Windows",
      "\u0000",
      "%00",
      "\ud800",
      "20260101120000-zzzzzzz",
      "markdown",
      "dom",
      -1,
      1e308,
      Number.MAX_SAFE_INTEGER + 2,
      true,
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: huge },
);

/** Fields every tool call may carry beside the action's own (the write-safety and shell fields). */
export const SAFETY_FIELDS = [
  "requestId",
  "expectedStateHash",
  "expectedStructureHash",
  "expectedManifestHash",
  "expectedSourceHash",
  "validateOnly",
  "confirm",
  "taskId",
];

/** Field names of an action's argument schema (zod 4 object). */
function fieldsOf(args: unknown): string[] {
  const shape = (args as { shape?: Record<string, unknown> }).shape;
  return shape === undefined ? [] : Object.keys(shape);
}

/** zod 4's internal definition of a schema (what `fromSchema` walks). */
interface ZodDef {
  type: string;
  innerType?: unknown;
  element?: unknown;
  shape?: Record<string, unknown>;
  options?: unknown[];
  entries?: Record<string, unknown>;
  values?: unknown[];
  in?: unknown;
  valueType?: unknown;
}

const defOf = (schema: unknown) => (schema as { _zod: { def: ZodDef } })._zod.def;
const WRAPPERS = new Set([
  "optional",
  "default",
  "nullable",
  "readonly",
  "catch",
  "prefault",
  "nonoptional",
]);

/**
 * Values shaped like `schema` (an action's zod argument schema): demo IDs and short strings for
 * strings, small integers, the enum's own members; anything else falls back to {@link fieldValue}.
 */
export function fromSchema(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return fromSchema(def.innerType, depth);
  if (depth > 3) return fieldValue;
  switch (def.type) {
    case "string":
      return fc.oneof(
        fc.constantFrom(...demoIds),
        fc.string({ maxLength: 24 }),
        fc.constantFrom("markdown", "/", "a.png"),
      );
    case "number":
    case "int":
      return fc.integer({ min: -2, max: 100 });
    case "boolean":
      return fc.boolean();
    case "enum":
      return fc.constantFrom(...Object.values(def.entries ?? { x: "x" }));
    case "literal":
      return fc.constantFrom(...(def.values ?? [null]));
    case "array":
      return fc.array(fromSchema(def.element, depth + 1), { maxLength: 3 });
    case "object":
      return shapedObject(def.shape ?? {}, depth + 1);
    case "union":
      return fc.oneof(...(def.options ?? []).map((o) => fromSchema(o, depth + 1)));
    case "pipe":
      return fromSchema(def.in, depth);
    case "record":
      return fc.dictionary(fc.string({ maxLength: 8 }), fromSchema(def.valueType, depth + 1), {
        maxKeys: 3,
      });
    default:
      return fieldValue;
  }
}

/** An object with some or all of `shape`'s fields, each shaped like its schema. */
function shapedObject(
  shape: Record<string, unknown>,
  depth: number,
): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys(shape);
  return fc
    .tuple(...names.map((n) => fc.option(fromSchema(shape[n], depth), { freq: 4, nil: undefined })))
    .map((values) =>
      Object.fromEntries(
        names.flatMap((n, i) => (values[i] === undefined ? [] : [[n, values[i]]])),
      ),
    );
}

/**
 * A schema-shaped call: every field of some catalog action filled with a value of its type, then
 * sometimes one field replaced by a fuzzed value, sometimes `validateOnly: true` (a preflight). These
 * reach the reads, the preflights and the write path's credential checks, which a random value rarely
 * passes the argument check to reach.
 */
export const shapedCall: fc.Arbitrary<{ name: string; arguments: unknown }> = fc
  .constantFrom(...ACTIONS)
  .chain((surface) =>
    fc
      .record({
        args: shapedObject((surface.args as { shape: Record<string, unknown> }).shape, 0),
        spoil: fc.option(fc.tuple(fc.nat(), fieldValue), { freq: 2, nil: undefined }),
        validateOnly: fc.boolean(),
      })
      .map(({ args, spoil, validateOnly }) => {
        const out: Record<string, unknown> = { action: surface.action, ...args };
        const names = Object.keys(out).filter((k) => k !== "action");
        if (spoil !== undefined && names.length > 0)
          out[names[spoil[0] % names.length] as string] = spoil[1];
        if (validateOnly && surface.policy.kind === "mutation") out["validateOnly"] = true;
        return { name: surface.tool, arguments: out };
      }),
  );

/**
 * A `tools/call` for some catalog action: each of its fields present or not with a fuzzed value,
 * sometimes safety fields and unknown fields; sometimes an unknown tool or action, or arguments
 * that are not an object at all.
 */
export const toolCall: fc.Arbitrary<{ name: string; arguments: unknown }> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom(...ACTIONS).chain((surface) =>
      fc
        .record({
          own: fc
            .subarray(fieldsOf(surface.args))
            .chain((names) => fc.tuple(...names.map((n) => fc.tuple(fc.constant(n), fieldValue)))),
          safety: fc
            .subarray(SAFETY_FIELDS, { maxLength: 3 })
            .chain((names) => fc.tuple(...names.map((n) => fc.tuple(fc.constant(n), fieldValue)))),
          unknown: fc.array(fc.tuple(fc.string({ maxLength: 12 }), fieldValue), { maxLength: 2 }),
          action: fc.oneof(
            { weight: 9, arbitrary: fc.constant<unknown>(surface.action) },
            { weight: 1, arbitrary: fieldValue },
          ),
        })
        .map(({ own, safety, unknown, action }) => ({
          name: surface.tool,
          arguments: Object.fromEntries([["action", action], ...own, ...safety, ...unknown]),
        })),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      name: fc.oneof(fc.constantFrom(...new Set(ACTIONS.map((a) => a.tool))), fc.string()),
      arguments: fieldValue,
    }),
  },
);

/** The names of the catalog's tools. */
export const TOOL_NAMES = [...new Set(ACTIONS.map((a) => a.tool))];

/** JSON-RPC ids of every type, valid and not. */
export const anyId: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 20 }),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);

/** The `_meta` of a 2026-07-28 request. */
export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A well-formed 2026-07-28 `tools/call` body and its headers (auth added by the caller). */
export function modernCall(name: unknown, args: unknown, id: unknown = 1) {
  return {
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      ...(typeof name === "string" && /^[\x21-\x7e]*$/.test(name) ? { "mcp-name": name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args, _meta: MODERN_META },
    }),
  };
}

/** A raw legacy `initialize` at `protocolVersion` (the answer's `mcp-session-id` names the session). */
export function legacyInitializeBody(protocolVersion: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion, capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
  });
}

/** Fuzzed JSON-RPC frames: bad `jsonrpc`, ids of every type, batches, missing or odd methods. */
export const frame: fc.Arbitrary<Buffer> = fc
  .oneof(
    fc.record(
      {
        jsonrpc: fc.oneof(fc.constant("2.0"), fc.constant("1.0"), fieldValue),
        id: anyId,
        method: fc.oneof(
          fc.constantFrom(
            "tools/call",
            "tools/list",
            "initialize",
            "server/discover",
            "resources/read",
            "prompts/get",
            "notifications/cancelled",
            "ping",
            "",
          ),
          fc.string({ maxLength: 30 }),
          fieldValue,
        ),
        params: fc.oneof(
          fc.constant({ _meta: MODERN_META }),
          fc.record({ _meta: fc.constant(MODERN_META), name: fieldValue, arguments: fieldValue }),
          fieldValue,
        ),
      },
      { requiredKeys: [] },
    ),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
    fc.jsonValue({ maxDepth: 3 }),
  )
  .chain((v) =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constant(Buffer.from(JSON.stringify(v) ?? "null")) },
      // Invalid UTF-8 inside a string, a truncated frame, or raw binary.
      {
        weight: 1,
        arbitrary: fc.constant(
          Buffer.concat([
            Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list","x":"'),
            Buffer.from([0xff, 0xc0, 0x80, 0xed, 0xa0, 0x80]),
            Buffer.from('"}'),
          ]),
        ),
      },
      { weight: 1, arbitrary: fc.constant(Buffer.from((JSON.stringify(v) ?? "").slice(0, -1))) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) },
    ),
  );

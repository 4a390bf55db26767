/**
 * Bad input against the kernel plugin in the sandbox's plugin host (issue 18 "Bad input"): fuzzed
 * tool arguments, JSON-RPC frames and headers on `/mcp`, upload bodies and file names on
 * `/transfer/upload` (traversal, absolute paths, odd and broken percent-encoding, NUL, control
 * characters, very long names, bad base64), `/transfer/lookup` and `/tasks` bodies. Each case gets
 * a typed answer and writes nothing to the kernel; after each batch the plugin answers a real read.
 * The seed is printed; `FUZZ_SEED=<n>` replays it, `RELIABILITY_LONG=1` runs 20 times the cases.
 */
import { DEMO_IDS, type Sandbox } from "@sisyphus/siyuan-sandbox";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { fileNameProblem } from "../../kernel-plugin/src/kernel/staging.js";
import {
  kernelClient,
  PLUGIN_NAME,
  sandboxWithPlugin,
  sc,
} from "../../kernel-plugin/test/harness.js";
import {
  count,
  fieldValue,
  frame,
  kernelWritesSince,
  LONG,
  legacyInitializeBody,
  logMark,
  modernCall,
  outcome,
  outcomeSummary,
  params,
  type RawAnswer,
  rawHttp,
  SEED,
  shapedCall,
  tally,
  toolCall,
  unexpectedWrites,
  untyped,
} from "./support/fuzz-kit.js";

// The long run (20 times the cases) outlasts the suite's per-test limit.
if (LONG) vi.setConfig({ testTimeout: 60 * 60_000 });

let sb: Sandbox;
beforeAll(async () => {
  console.log(`fuzz-kernel seed ${SEED} (replay: FUZZ_SEED=${SEED})`);
  sb = await sandboxWithPlugin();
});
afterAll(async () => {
  console.log(`fuzz-kernel cases ${JSON.stringify(Object.fromEntries(tally))}`);
  console.log(`fuzz-kernel outcomes ${JSON.stringify(outcomeSummary(), null, 1)}`);
  await sb?.stop();
});

const port = () => Number(new URL(sb.url).port);
const route = (path: string) => `/plugin/private/${PLUGIN_NAME}${path}`;
const auth = () => ({ host: `127.0.0.1:${port()}`, authorization: `Token ${sb.token}` });

/** The plugin answers `/health` and a real read through the official client. */
async function stillServes(): Promise<void> {
  const health = await rawHttp(port(), route("/health"), auth());
  expect(health.status).toBe(200);
  const client = await kernelClient(sb);
  const read = await client.callTool({
    name: "block",
    arguments: { action: "get_kramdown", id: DEMO_IDS.paragraphGoals },
  });
  expect(read.isError, JSON.stringify(sc(read))).not.toBe(true);
  await client.close();
}

function judged(property: string, answer: RawAnswer): RawAnswer {
  outcome(property, answer);
  const problem = untyped(answer);
  if (problem !== undefined) throw new Error(problem);
  return answer;
}

/** Tool calls, fuzzed and schema-shaped: each answered or refused with a typed code, no write. */
const TOOL_CALL_PROPERTIES = [
  {
    label: "toolArguments",
    suite: "fuzzed tool arguments through the plugin's /mcp",
    title: "answers each with a result or a typed error, and writes nothing",
    calls: toolCall,
    runs: 60,
  },
  {
    label: "shapedArguments",
    suite: "schema-shaped tool arguments through the plugin's /mcp",
    title:
      "answers reads and preflights, refuses commits without a lease with a typed code, and writes nothing",
    calls: shapedCall,
    runs: 50,
  },
] as const;

for (const p of TOOL_CALL_PROPERTIES) {
  describe(p.suite, () => {
    it(p.title, async () => {
      await fc.assert(
        fc.asyncProperty(p.calls, async (c) => {
          count(`kernel.${p.label}`);
          const { headers, body } = modernCall(c.name, c.arguments);
          const before = logMark(sb);
          const answer = judged(
            p.label,
            await rawHttp(port(), route("/mcp"), { ...auth(), ...headers }, { body }),
          );
          expect(unexpectedWrites(sb, before, c, answer)).toEqual([]);
        }),
        params(p.runs),
      );
      await stillServes();
    });
  });
}

describe("fuzzed JSON-RPC frames and headers on the plugin's /mcp", () => {
  it("answers every frame with a typed error or result, and writes nothing", async () => {
    const mark = logMark(sb);
    await fc.assert(
      fc.asyncProperty(frame, fc.boolean(), async (body, versioned) => {
        count("kernel.frames");
        const headers = {
          ...auth(),
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(versioned ? { "mcp-protocol-version": "2026-07-28" } : {}),
        };
        judged("frames", await rawHttp(port(), route("/mcp"), headers, { body }));
      }),
      params(80),
    );
    expect(kernelWritesSince(sb, mark)).toEqual([]);
    await stillServes();
  });

  it("answers the same frames inside a legacy 2025-11-25 session with typed answers", async () => {
    const mark = logMark(sb);
    const base = {
      ...auth(),
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const init = await rawHttp(port(), route("/mcp"), base, {
      body: legacyInitializeBody("2025-11-25"),
    });
    expect(init.status).toBe(200);
    const session = init.headers["mcp-session-id"] as string;
    await fc.assert(
      fc.asyncProperty(frame, async (body) => {
        count("kernel.legacyFrames");
        const headers = {
          ...base,
          "mcp-protocol-version": "2025-11-25",
          "mcp-session-id": session,
        };
        judged("legacyFrames", await rawHttp(port(), route("/mcp"), headers, { body }));
      }),
      params(60),
    );
    expect(kernelWritesSince(sb, mark)).toEqual([]);
    await stillServes();
  });

  it("answers fuzzed protocol, session, Origin, Accept and Content-Type headers with a typed answer", async () => {
    const text = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 40,
    });
    const option = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
    const headerSet = fc.record({
      "mcp-protocol-version": option(
        fc.oneof(fc.constantFrom("2026-07-28", "2025-11-25", "1999-01-01"), text),
      ),
      "mcp-session-id": option(fc.oneof(fc.uuid(), text)),
      origin: option(
        fc.oneof(fc.constantFrom("https://evil.example", "http://127.0.0.1", "null"), text),
      ),
      accept: option(
        fc.oneof(fc.constantFrom("application/json", "text/event-stream", "*/*"), text),
      ),
      "content-type": option(fc.oneof(fc.constantFrom("application/json", "text/plain"), text)),
      method: fc.constantFrom("POST", "POST", "GET", "DELETE", "PUT"),
    });
    const read = modernCall("block", { action: "get_kramdown", id: DEMO_IDS.paragraphGoals });
    const mark = logMark(sb);
    await fc.assert(
      fc.asyncProperty(headerSet, async ({ method, ...rest }) => {
        count("kernel.headers");
        const headers: Record<string, string> = { ...auth() };
        for (const [k, v] of Object.entries(rest)) if (v !== undefined) headers[k] = v;
        const answer = await rawHttp(port(), route("/mcp"), headers, {
          method,
          ...(method === "POST" || method === "PUT" ? { body: read.body } : {}),
        });
        if (rest.accept === "text/event-stream" && answer.status === 500) {
          // The kernel's `es` slot cannot set a status (contract §8.4): its refusal is the kernel's
          // 500 whose text starts with the status and code it stands for (sse.ts StreamRefused).
          outcome("headers", { ...answer, body: "" });
          expect(answer.body).toMatch(SSE_REFUSAL);
          return;
        }
        judged("headers", answer);
      }),
      params(60),
    );
    expect(kernelWritesSince(sb, mark)).toEqual([]);
    await stillServes();
  });
});

/**
 * A refusal of the `es` slot as the kernel writes it: thrown at once, goja's exception text
 * (`StreamRefused: <status> <code>: <message> at <frame>`); decided after a settings read, SiYuan
 * 3.7.3's text for any rejected handler (sse.ts serveStream).
 */
const SSE_REFUSAL =
  /^\[plugin:[\w-]+\] Error occurred while handling SSE request: (StreamRefused: [45]\d\d [a-z_]+: [^\n]*|promise rejected: <nil>)$/;

/** Documented answers of `/transfer/*` (transfer-routes.ts): status → error codes. */
const TRANSFER_ERRORS: Record<number, readonly string[]> = {
  400: [
    "invalid_json",
    "invalid_arguments",
    "invalid_file_name",
    "empty_file",
    "invalid_base64",
    "invalid_sha256",
    "invalid_size",
  ],
  405: ["method_not_allowed"],
  413: ["file_too_large"],
  415: ["unsupported_content_type"],
  429: ["staging_busy"],
  503: ["staging_cleared"],
  507: ["staging_full"],
};

/** `text` as goja's JSON.parse decodes its escaped form: each lone surrogate becomes U+FFFD. */
function asGojaDecodes(text: string): string {
  if (process.env["SIYUAN_SANDBOX_PLUGIN_ENGINE"] !== "goja") return text;
  return text.replace(
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    "\ufffd",
  );
}

/** What is wrong with a `/transfer/upload` answer to a file named `name` (undefined: nothing). */
function uploadProblem(answer: RawAnswer, name: string | undefined): string | undefined {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.body) as Record<string, unknown>;
  } catch {
    return `status ${answer.status}, body not JSON: ${answer.body.slice(0, 200)}`;
  }
  if (answer.status === 200) {
    if (name === undefined || fileNameProblem(name) !== undefined) {
      return `accepted a bad name ${JSON.stringify(name)}: ${answer.body}`;
    }
    return body["fileName"] === name && typeof body["uploadSource"] === "string"
      ? undefined
      : `accepted under another name: ${answer.body}`;
  }
  const allowed = TRANSFER_ERRORS[answer.status] ?? [];
  return allowed.includes(body["error"] as string)
    ? undefined
    : `untyped: ${answer.status} ${answer.body}`;
}

/** File names: traversal, absolute, separators, NUL and control characters, odd Unicode, long. */
const fileName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "../../etc/passwd",
    "..",
    ".",
    "/etc/passwd",
    "C:\\evil.txt",
    "a/b.png",
    "a\\b.png",
    "nul\u0000.png",
    "tab\t.png",
    "del\u007f.png",
    "\ud800.png",
    "é.png",
    "\u202e gnp.exe",
    " ",
    "",
    "x".repeat(255),
    "x".repeat(256),
    "ö".repeat(128),
    "ok.png",
  ),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 300 }),
);

/** The name header's raw value: well encoded, broken encodings, or raw text. */
const nameHeader = fileName.chain((name) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constant({
        header: encodeURIComponent(toWellFormed(name)),
        name: toWellFormed(name),
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom("%", "%zz", "%E0%A4", "%C0%AF", "%ED%A0%80", "%00", "%2e%2e%2f", "%FF", "%2F")
        .map((bad) => ({
          header: `${encodeURIComponent(toWellFormed(name))}${bad}`,
          name: undefined,
        })),
    },
    {
      weight: 1,
      arbitrary: fc.constant({ header: name.replace(/[^\x20-\x7e]/g, "?"), name: undefined }),
    },
  ),
);

/** `s` with lone surrogates replaced (encodeURIComponent throws on them). */
function toWellFormed(s: string): string {
  return s.replace(
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    "\ufffd",
  );
}

function decodedOrUndefined(header: string): string | undefined {
  try {
    return decodeURIComponent(header);
  } catch {
    return undefined;
  }
}

describe("fuzzed uploads to /transfer/upload", () => {
  it("stages only well-formed single names, under exactly that name; refuses the rest with a documented code", async () => {
    const mark = logMark(sb);
    const contentType = fc.oneof(
      { weight: 6, arbitrary: fc.constant("application/octet-stream") },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "APPLICATION/OCTET-STREAM",
          "text/plain",
          "",
          "application/octet-stream; x=1",
        ),
      },
    );
    await fc.assert(
      fc.asyncProperty(
        nameHeader,
        fc.uint8Array({ maxLength: 512 }),
        contentType,
        fc.constantFrom(0, 1, 1, 1, 2),
        async ({ header }, bytes, type, headerCount) => {
          count("kernel.upload");
          const headers: Record<string, string | string[]> = { ...auth(), "content-type": type };
          if (headerCount > 0) headers["x-sisyphus-file-name"] = Array(headerCount).fill(header);
          const answer = await rawHttp(port(), route("/transfer/upload"), headers, {
            body: Buffer.from(bytes),
          });
          outcome("upload", answer);
          const raw = type.split(";")[0]?.trim().toLowerCase() === "application/octet-stream";
          // The field value is what HTTP delivers: leading and trailing spaces and tabs are not part
          // of it (RFC 9110 §5.5), so a raw name " ab" arrives as "ab".
          const value = header.replace(/^[ \t]+|[ \t]+$/g, "");
          const name = headerCount === 1 && raw ? decodedOrUndefined(value) : undefined;
          const problem = uploadProblem(answer, answer.status === 200 ? name : undefined);
          expect(problem).toBeUndefined();
        },
      ),
      params(120),
    );
    expect(kernelWritesSince(sb, mark)).toEqual([]);
    await stillServes();
  });

  it("checks JSON uploads' names and base64 the same way", async () => {
    const mark = logMark(sb);
    const base64 = fc.oneof(
      fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString("base64")),
      fc.constantFrom("", "A", "AB=", "====", "QQ", "Q Q==", "QQ==\n", "-_8=", "QUJD\u0000"),
      fieldValue,
    );
    const body = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record(
          { fileName: fc.oneof(fileName, fieldValue), dataBase64: base64 },
          { requiredKeys: [] },
        ),
      },
      { weight: 1, arbitrary: fieldValue },
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        count("kernel.uploadJson");
        const answer = await rawHttp(
          port(),
          route("/transfer/upload"),
          { ...auth(), "content-type": "application/json" },
          { body: JSON.stringify(b) ?? "" },
        );
        outcome("uploadJson", answer);
        const name = (b as { fileName?: unknown } | null)?.fileName;
        // The name the plugin sees: goja's JSON.parse (SiYuan 3.7.3's engine) decodes a lone
        // surrogate escape as U+FFFD, a well-formed name; node:vm's keeps it, and it is refused.
        const seen = typeof name === "string" ? asGojaDecodes(name) : undefined;
        expect(uploadProblem(answer, seen)).toBeUndefined();
      }),
      params(80),
    );
    expect(kernelWritesSince(sb, mark)).toEqual([]);
    await stillServes();
  });

  it("refuses a body over the file cap from its declared length with 413 file_too_large", async () => {
    count("kernel.upload");
    const over = Buffer.alloc(10 * 1024 * 1024 + 1, 1);
    const answer = await rawHttp(
      port(),
      route("/transfer/upload"),
      { ...auth(), "content-type": "application/octet-stream", "x-sisyphus-file-name": "big.bin" },
      { body: over },
    );
    expect([answer.status, JSON.parse(answer.body).error]).toEqual([413, "file_too_large"]);
    await stillServes();
  });
});

describe("fuzzed /transfer/lookup and /tasks bodies", () => {
  const anyBody = fc.oneof(
    fc.record(
      {
        fileName: fc.oneof(fileName, fieldValue),
        sha256: fc.oneof(
          fc.string({
            unit: fc.constantFrom(..."0123456789abcdefABCDEF"),
            minLength: 64,
            maxLength: 64,
          }),
          fieldValue,
        ),
        size: fieldValue,
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        taskId: fc.oneof(fc.uuid(), fieldValue),
        operation: fc.oneof(fc.constantFrom("status", "result", "cancel"), fieldValue),
      },
      { requiredKeys: [] },
    ),
    fieldValue,
  );
  const raw = fc.oneof(
    { weight: 6, arbitrary: anyBody.map((b) => JSON.stringify(b) ?? "") },
    { weight: 1, arbitrary: fc.constantFrom("", "null", "[]", "{", "\u0000", "1") },
  );

  it("answers each with a typed JSON answer and never a 5xx", async () => {
    const mark = logMark(sb);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("/transfer/lookup", "/tasks"),
        raw,
        fc.constantFrom("POST", "POST", "GET"),
        async (path, body, method) => {
          count("kernel.lookupTasks");
          const answer = await rawHttp(
            port(),
            route(path),
            { ...auth(), "content-type": "application/json" },
            {
              method,
              ...(method === "POST" ? { body } : {}),
            },
          );
          outcome(path, answer);
          expect(answer.status, `${path} ${JSON.stringify(body)}: ${answer.body}`).toBeLessThan(
            500,
          );
          const parsed = JSON.parse(answer.body) as Record<string, unknown>;
          if (answer.status >= 400) expect(typeof parsed["error"]).toBe("string");
        },
      ),
      params(80),
    );
    expect(kernelWritesSince(sb, mark)).toEqual([]);
    await stillServes();
  });
});

describe("regressions found by the fuzzer", () => {
  it("answers POST /tasks with a JSON body that is not an object with 400 invalid_json (was: null → 500 TypeError)", async () => {
    for (const body of ["null", "1", '"x"', "true"]) {
      const answer = await rawHttp(
        port(),
        route("/tasks"),
        { ...auth(), "content-type": "application/json" },
        { body },
      );
      expect([answer.status, JSON.parse(answer.body)], body).toEqual([
        400,
        { error: "invalid_json" },
      ]);
    }
    await stillServes();
  });
});

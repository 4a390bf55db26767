/**
 * The MCP conformance suite's fixtures (its "everything server": `test_*` tools, prompts,
 * resources, a resource template and completions), as a {@link ServerExtension} of the real
 * server, so every scenario runs through our transports, sessions, authentication, guards, error
 * handling and admission gate. Test builds only: `server-main.ts` is its one importer, built by
 * this package's `tsup.config.ts` into `test-artifacts/`; node-server's production bundle never
 * contains it (test/fixtures.test.ts checks).
 *
 * Names, arguments and answers follow the "Server Implementation Requirements" of each scenario
 * in @modelcontextprotocol/conformance (`conformance list --server`, the scenario descriptions).
 * Tools that need the client (sampling, elicitation, roots) ask in the era's own way: a 2025
 * session request (`elicitInput`, `requestSampling`), a 2026-07-28 `input_required` result.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import {
  acceptedContent,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  completable,
  type ElicitRequestFormParams,
  fromJsonSchema,
  type GetPromptResult,
  type InputRequest,
  inputRequired,
  inputResponse,
  type McpServer,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  ResourceTemplate,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { ExtensionGate, ExtensionTool, ServerExtension } from "@sisyphus/node-server";
import { z } from "zod";

/** A 1×1 PNG and a minimal WAV: the scenarios check the block's shape and MIME type. */
const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV_MINIMAL = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
const STEP_MS = 50;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });
const NO_ARGS = { type: "object", properties: {} };

/** A 2026-07-28 request carries its envelope; a 2025 session request does not. */
function isModern(ctx: ServerContext): boolean {
  return envelope(ctx)?.[PROTOCOL_VERSION_META_KEY] !== undefined;
}

function envelope(ctx: ServerContext): Record<string, unknown> | undefined {
  return ctx.mcpReq.envelope as Record<string, unknown> | undefined;
}

function clientCapabilities(ctx: ServerContext): ClientCapabilities {
  return (envelope(ctx)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? {};
}

/** `input_required` results travel through the tool-result slot, as in the gateway. */
function asking(
  inputRequests: Record<string, InputRequest>,
  requestState?: string,
): CallToolResult {
  return inputRequired({
    inputRequests,
    ...(requestState === undefined ? {} : { requestState }),
  }) as unknown as CallToolResult;
}

/**
 * `requestState` comes back from the client: the fixture seals its states with an HMAC under a key
 * of this process, and the SDK's verify hook (`verifyRequestState` below) refuses a sealed state
 * that does not verify with `-32602` before any handler runs. States without the prefix are not
 * the fixture's (the shell's confirmations) and pass unchanged.
 */
const STATE_PREFIX = "fx1.";
const stateKey = randomBytes(32);
const mac = (payload: string) => createHmac("sha256", stateKey).update(payload).digest("base64url");
function seal(payload: string): string {
  return `${STATE_PREFIX}${Buffer.from(payload).toString("base64url")}.${mac(payload)}`;
}
/** The payload of a sealed state; throws if it is not one this process sealed. */
function unseal(state: unknown): string {
  if (typeof state !== "string" || !state.startsWith(STATE_PREFIX)) throw invalidState();
  const [body, given] = state.slice(STATE_PREFIX.length).split(".");
  if (body === undefined || given === undefined) throw invalidState();
  const payload = Buffer.from(body, "base64url").toString();
  const expected = Buffer.from(mac(payload));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    throw invalidState();
  }
  return payload;
}
function invalidState(): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    "requestState failed its integrity check",
  );
}

const nameForm = (message: string): ElicitRequestFormParams => ({
  mode: "form",
  message,
  requestedSchema: {
    type: "object",
    properties: { name: { type: "string" } },
    required: ["name"],
  },
});

/** Asks the client to fill a form: the 2025 session request, or a 2026 `input_required` round. */
async function elicitText(
  ctx: ServerContext,
  key: string,
  params: ElicitRequestFormParams,
  done: (action: string, content: Record<string, unknown>) => string,
): Promise<CallToolResult> {
  if (!isModern(ctx)) {
    const answer = await ctx.mcpReq.elicitInput(params);
    return text(done(answer.action, (answer.content as Record<string, unknown>) ?? {}));
  }
  const view = inputResponse(ctx.mcpReq.inputResponses, key);
  if (view.kind !== "elicit") return asking({ [key]: inputRequired.elicit(params) });
  return text(done(view.action, view.content ?? {}));
}

function samplingText(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((b) =>
      (b as { type?: unknown; text?: unknown }).type === "text"
        ? String((b as { text: unknown }).text)
        : "",
    )
    .join("");
}

/** One fixture tool: its `tools/list` entry (the JSON Schema validates its arguments too) and its run. */
interface FixtureTool extends ExtensionTool {
  run(args: Record<string, unknown>, ctx: ServerContext): Promise<CallToolResult>;
}

function tool(
  name: string,
  description: string,
  run: (ctx: ServerContext, args: Record<string, unknown>) => Promise<CallToolResult>,
  inputSchema: Record<string, unknown> = NO_ARGS,
): FixtureTool {
  return {
    name,
    description,
    inputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false },
    run: (args, ctx) => run(ctx, args),
  };
}

const simpleTool = (
  name: string,
  description: string,
  run: (ctx: ServerContext) => Promise<CallToolResult>,
) => tool(name, description, run);

const contentTools: FixtureTool[] = [
  simpleTool("test_simple_text", "Returns one text block.", async () =>
    text("This is a simple text response for testing."),
  ),
  simpleTool("test_image_content", "Returns one image block.", async () => ({
    content: [{ type: "image", data: PNG_1X1, mimeType: "image/png" }],
  })),
  simpleTool("test_audio_content", "Returns one audio block.", async () => ({
    content: [{ type: "audio", data: WAV_MINIMAL, mimeType: "audio/wav" }],
  })),
  simpleTool("test_embedded_resource", "Returns one embedded resource.", async () => ({
    content: [
      {
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content.",
        },
      },
    ],
  })),
  simpleTool(
    "test_multiple_content_types",
    "Returns text, image and resource blocks.",
    async () => ({
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: PNG_1X1, mimeType: "image/png" },
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: JSON.stringify({ test: "data", value: 123 }),
          },
        },
      ],
    }),
  ),
  simpleTool("test_error_handling", "Always answers a tool error.", async () => ({
    isError: true,
    content: [{ type: "text", text: "This tool intentionally returns an error for testing" }],
  })),
];

const notifyingTools: FixtureTool[] = [
  simpleTool("test_tool_with_logging", "Logs three info messages while it runs.", async (ctx) => {
    for (const [i, message] of [
      "Tool execution started",
      "Tool processing data",
      "Tool execution completed",
    ].entries()) {
      if (i > 0) await sleep(STEP_MS);
      await ctx.mcpReq.log("info", message);
    }
    return text("Tool with logging executed successfully");
  }),
  simpleTool(
    "test_logging_tool",
    "Logs one info message (only when asked to log).",
    async (ctx) => {
      await ctx.mcpReq.log("info", "test_logging_tool ran");
      return text("Logging tool executed");
    },
  ),
  simpleTool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100.", async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await sleep(STEP_MS);
      if (progressToken !== undefined) {
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken, progress, total: 100, message: `Completed ${progress} of 100` },
        });
      }
    }
    return text(String(progressToken ?? "no progress token"));
  }),
];

const SEP1034_FORM: ElicitRequestFormParams = {
  mode: "form",
  message: "Please review and update the form fields with defaults",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", description: "User name", default: "John Doe" },
      age: { type: "integer", description: "User age", default: 30 },
      score: { type: "number", description: "User score", default: 95.5 },
      status: {
        type: "string",
        description: "User status",
        enum: ["active", "inactive", "pending"],
        default: "active",
      },
      verified: { type: "boolean", description: "Verification status", default: true },
    },
  },
};

const SEP1330_FORM = {
  mode: "form",
  message: "Please select options from the enum fields",
  requestedSchema: {
    type: "object",
    properties: {
      untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
      titledSingle: {
        type: "string",
        oneOf: [
          { const: "value1", title: "First Option" },
          { const: "value2", title: "Second Option" },
          { const: "value3", title: "Third Option" },
        ],
      },
      legacyEnum: {
        type: "string",
        enum: ["opt1", "opt2", "opt3"],
        enumNames: ["Option One", "Option Two", "Option Three"],
      },
      untitledMulti: {
        type: "array",
        items: { type: "string", enum: ["option1", "option2", "option3"] },
      },
      titledMulti: {
        type: "array",
        items: {
          anyOf: [
            { const: "value1", title: "First Choice" },
            { const: "value2", title: "Second Choice" },
            { const: "value3", title: "Third Choice" },
          ],
        },
      },
    },
  },
} as unknown as ElicitRequestFormParams;

const completed = (action: string, content: Record<string, unknown>) =>
  `Elicitation completed: action=${action}, content=${JSON.stringify(content)}`;

const stringArg = (name: string, description: string) => ({
  type: "object",
  properties: { [name]: { type: "string", description } },
  required: [name],
});

const clientTools: FixtureTool[] = [
  tool(
    "test_sampling",
    "Asks the client's LLM.",
    async (ctx, args) => {
      const params = {
        messages: [
          {
            role: "user" as const,
            content: { type: "text" as const, text: String(args["prompt"]) },
          },
        ],
        maxTokens: 100,
      };
      if (!isModern(ctx)) {
        const result = await ctx.mcpReq.requestSampling(params);
        return text(`LLM response: ${samplingText(result.content)}`);
      }
      const view = inputResponse(ctx.mcpReq.inputResponses, "completion");
      if (view.kind !== "sampling") {
        return asking({ completion: inputRequired.createMessage(params) });
      }
      return text(`LLM response: ${samplingText(view.result.content)}`);
    },
    stringArg("prompt", "The prompt to send to the LLM"),
  ),
  tool(
    "test_elicitation",
    "Asks the user for input.",
    (ctx, args) =>
      elicitText(
        ctx,
        "response",
        {
          mode: "form",
          message: String(args["message"]),
          requestedSchema: {
            type: "object",
            properties: {
              username: { type: "string", description: "User's response" },
              email: { type: "string", description: "User's email address" },
            },
            required: ["username", "email"],
          },
        },
        (action, content) => `User response: action=${action}, content=${JSON.stringify(content)}`,
      ),
    stringArg("message", "The message to show the user"),
  ),
  simpleTool("test_elicitation_sep1034_defaults", "Elicits with defaults (SEP-1034).", (ctx) =>
    elicitText(ctx, "details", SEP1034_FORM, completed),
  ),
  simpleTool("test_elicitation_sep1330_enums", "Elicits every enum form (SEP-1330).", (ctx) =>
    elicitText(ctx, "choices", SEP1330_FORM, completed),
  ),
  // A round that asks for sampling: on 2026-07-28 the SDK answers -32021 when the request's
  // client capabilities lack it (MissingRequiredClientCapabilityError) instead of asking.
  simpleTool("test_missing_capability", "Needs the client's sampling capability.", async (ctx) => {
    const params = {
      messages: [{ role: "user" as const, content: { type: "text" as const, text: "Say hello" } }],
      maxTokens: 20,
    };
    if (!isModern(ctx)) {
      const result = await ctx.mcpReq.requestSampling(params);
      return text(`LLM response: ${samplingText(result.content)}`);
    }
    const view = inputResponse(ctx.mcpReq.inputResponses, "hello");
    if (view.kind !== "sampling") return asking({ hello: inputRequired.createMessage(params) });
    return text(`LLM response: ${samplingText(view.result.content)}`);
  }),
  simpleTool("test_streaming_elicitation", "Asks for a name (input_required).", (ctx) =>
    elicitText(
      ctx,
      "user_name",
      nameForm("What is your name?"),
      (action, content) => `action=${action}, name=${String(content["name"] ?? "")}`,
    ),
  ),
];

/** The SEP-2322 multi-round-trip tools (2026-07-28 `input_required` results). */
const inputRequiredTools: FixtureTool[] = [
  simpleTool("test_input_required_result_elicitation", "One elicitation round.", async (ctx) => {
    const name = acceptedContent<{ name?: unknown }>(ctx.mcpReq.inputResponses, "user_name")?.name;
    if (typeof name !== "string") {
      return asking({ user_name: inputRequired.elicit(nameForm("What is your name?")) });
    }
    return text(`Hello, ${name}!`);
  }),
  simpleTool("test_input_required_result_sampling", "One sampling round.", async (ctx) => {
    const view = inputResponse(ctx.mcpReq.inputResponses, "capital_question");
    if (view.kind !== "sampling") {
      return asking({
        capital_question: inputRequired.createMessage({
          messages: [
            { role: "user", content: { type: "text", text: "What is the capital of France?" } },
          ],
          maxTokens: 100,
        }),
      });
    }
    return text(`The model answered: ${samplingText(view.result.content)}`);
  }),
  simpleTool("test_input_required_result_list_roots", "One roots/list round.", async (ctx) => {
    const view = inputResponse(ctx.mcpReq.inputResponses, "client_roots");
    if (view.kind !== "roots") return asking({ client_roots: inputRequired.listRoots() });
    return text(`Client roots: ${view.roots.map((r) => r.uri).join(", ") || "(none)"}`);
  }),
  simpleTool(
    "test_input_required_result_request_state",
    "Round-trips requestState.",
    async (ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, "confirm");
      const state = ctx.mcpReq.requestState<string>();
      if (view.kind !== "elicit" || state === undefined) {
        return asking({ confirm: inputRequired.elicit(confirmForm()) }, seal("request-state"));
      }
      if (unseal(state) !== "request-state") throw invalidState();
      return text("state-ok: the echoed request state verified.");
    },
  ),
  simpleTool(
    "test_input_required_result_multiple_inputs",
    "Three inputs in one round.",
    async (ctx) => {
      const r = ctx.mcpReq.inputResponses;
      const state = ctx.mcpReq.requestState<string>();
      const answered =
        inputResponse(r, "user_name").kind === "elicit" &&
        inputResponse(r, "greeting").kind === "sampling" &&
        inputResponse(r, "client_roots").kind === "roots";
      if (!answered || state === undefined) {
        return asking(
          {
            user_name: inputRequired.elicit(nameForm("What is your name?")),
            greeting: inputRequired.createMessage({
              messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }],
              maxTokens: 50,
            }),
            client_roots: inputRequired.listRoots(),
          },
          seal("multiple"),
        );
      }
      unseal(state);
      return text("Every input answered; the call is complete.");
    },
  ),
  simpleTool("test_input_required_result_multi_round", "Two elicitation rounds.", async (ctx) => {
    const state = ctx.mcpReq.requestState<string>();
    const round = state === undefined ? "" : unseal(state);
    const step2 = acceptedContent<{ color?: unknown }>(ctx.mcpReq.inputResponses, "step2");
    if (round.startsWith("round-2:") && typeof step2?.color === "string") {
      return text(`${round.slice("round-2:".length)} likes ${step2.color}; both rounds complete.`);
    }
    const step1 = acceptedContent<{ name?: unknown }>(ctx.mcpReq.inputResponses, "step1");
    if (round === "round-1" && typeof step1?.name === "string") {
      return asking(
        {
          step2: inputRequired.elicit({
            mode: "form",
            message: "Step 2: What is your favorite color?",
            requestedSchema: {
              type: "object",
              properties: { color: { type: "string" } },
              required: ["color"],
            },
          }),
        },
        seal(`round-2:${step1.name}`),
      );
    }
    return asking(
      { step1: inputRequired.elicit(nameForm("Step 1: What is your name?")) },
      seal("round-1"),
    );
  }),
  simpleTool(
    "test_input_required_result_tampered_state",
    "Rejects a changed requestState.",
    async (ctx) => {
      const state = ctx.mcpReq.requestState<string>();
      if (state === undefined) {
        return asking({ confirm: inputRequired.elicit(confirmForm()) }, seal("tamper-test"));
      }
      if (unseal(state) !== "tamper-test") throw invalidState();
      return text("Request state verified; the call is complete.");
    },
  ),
  simpleTool(
    "test_input_required_result_capabilities",
    "Asks only what the client declared.",
    async (ctx) => {
      if (Object.keys(ctx.mcpReq.inputResponses ?? {}).length > 0) {
        return text("Declared-capability input answered.");
      }
      const caps = clientCapabilities(ctx);
      const requests: Record<string, InputRequest> = {};
      if (caps.elicitation !== undefined)
        requests["user_name"] = inputRequired.elicit(nameForm("What is your name?"));
      if (caps.sampling !== undefined) {
        requests["greeting"] = inputRequired.createMessage({
          messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }],
          maxTokens: 50,
        });
      }
      if (caps.roots !== undefined) requests["client_roots"] = inputRequired.listRoots();
      if (Object.keys(requests).length === 0)
        return text("The client declared nothing to ask with.");
      return asking(requests);
    },
  ),
];

function confirmForm(): ElicitRequestFormParams {
  return {
    mode: "form",
    message: "Please confirm",
    requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
  };
}

/** The JSON Schema 2020-12 tool of `json-schema-2020-12`, advertised verbatim. */
const JSON_SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's conditional keyword, not a thenable.
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

const jsonSchemaTool = tool(
  "json_schema_2020_12_tool",
  "Tool with JSON Schema 2020-12 features",
  async () => text("ok"),
  JSON_SCHEMA_2020_12,
);

/** SEP-2243: arguments mirrored in `Mcp-Param-*` headers, which the SDK's HTTP handler checks. */
const customHeadersTool = tool(
  "test_custom_headers",
  "A tool with x-mcp-header annotations to test custom header mirroring and encoding",
  async (_ctx, args) => text(`region=${String(args["region"])}`),
  {
    type: "object",
    properties: {
      region: { type: "string", description: "Plain ASCII string value", "x-mcp-header": "Region" },
      query: { type: "string", description: "No x-mcp-header annotation" },
    },
    required: ["region"],
  },
);

const TOOLS: readonly FixtureTool[] = [
  ...contentTools,
  ...notifyingTools,
  ...clientTools,
  ...inputRequiredTools,
  jsonSchemaTool,
  customHeadersTool,
];

function registerTools(server: McpServer, gate: ExtensionGate): void {
  for (const t of TOOLS) {
    server.registerTool(
      t.name,
      { description: t.description, inputSchema: fromJsonSchema(t.inputSchema) },
      (args, ctx) =>
        gate(ctx.mcpReq.signal, () => t.run((args ?? {}) as Record<string, unknown>, ctx)),
    );
  }
}

function registerResources(server: McpServer): void {
  server.registerResource(
    "static-text",
    "test://static-text",
    { description: "A static text resource", mimeType: "text/plain" },
    (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: "text/plain",
          text: "This is the content of the static text resource.",
        },
      ],
    }),
  );
  server.registerResource(
    "static-binary",
    "test://static-binary",
    { description: "A static binary resource (a PNG)", mimeType: "image/png" },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: "image/png", blob: PNG_1X1 }] }),
  );
  server.registerResource(
    "watched-resource",
    "test://watched-resource",
    { description: "A resource clients may subscribe to", mimeType: "text/plain" },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: "Watched resource content" }],
    }),
  );
  server.registerResource(
    "template",
    new ResourceTemplate("test://template/{id}/data", { list: undefined }),
    { description: "A resource template with an id", mimeType: "application/json" },
    (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: "application/json",
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }),
        },
      ],
    }),
  );
  // Subscriptions are acknowledged (`{}`); the fixtures' resources never change, so no update is sent.
  server.server.setRequestHandler("resources/subscribe", async () => ({}));
  server.server.setRequestHandler("resources/unsubscribe", async () => ({}));
}

const userText = (t: string) => ({
  role: "user" as const,
  content: { type: "text" as const, text: t },
});

function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    "test_simple_prompt",
    { description: "A prompt without arguments" },
    () => ({
      messages: [userText("This is a simple prompt for testing.")],
    }),
  );
  server.registerPrompt(
    "test_prompt_with_arguments",
    {
      description: "A prompt with two arguments",
      argsSchema: z.object({
        arg1: completable(z.string().describe("First test argument"), (value) =>
          ["paris", "park", "party"].filter((v) => v.startsWith(value)),
        ),
        arg2: z.string().describe("Second test argument"),
      }),
    },
    ({ arg1, arg2 }): GetPromptResult => ({
      messages: [userText(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)],
    }),
  );
  server.registerPrompt(
    "test_prompt_with_embedded_resource",
    {
      description: "A prompt embedding a resource",
      argsSchema: z.object({ resourceUri: z.string().describe("URI of the resource to embed") }),
    },
    ({ resourceUri }): GetPromptResult => ({
      messages: [
        {
          role: "user",
          content: {
            type: "resource",
            resource: {
              uri: resourceUri,
              mimeType: "text/plain",
              text: "Embedded resource content for testing.",
            },
          },
        },
        userText("Please process the embedded resource above."),
      ],
    }),
  );
  server.registerPrompt(
    "test_prompt_with_image",
    { description: "A prompt with an image" },
    () => ({
      messages: [
        { role: "user", content: { type: "image", data: PNG_1X1, mimeType: "image/png" } },
        userText("Please analyze the image above."),
      ],
    }),
  );
  server.registerPrompt(
    "test_input_required_result_prompt",
    { description: "A prompt that asks for context first (input_required)" },
    (ctx) => {
      const context = acceptedContent<{ context?: unknown }>(
        ctx.mcpReq.inputResponses,
        "user_context",
      )?.context;
      if (typeof context !== "string") {
        return inputRequired({
          inputRequests: {
            user_context: inputRequired.elicit({
              mode: "form",
              message: "What context should the prompt use?",
              requestedSchema: {
                type: "object",
                properties: { context: { type: "string" } },
                required: ["context"],
              },
            }),
          },
        });
      }
      return { messages: [userText(`Use this context: ${context}`)] };
    },
  );
}

/** The suite's fixtures as an extension of the server (see the module comment). */
export const conformanceFixtures: ServerExtension = {
  // Logging stays unadvertised, as in production (deprecated by SEP-2577).
  capabilities: {
    prompts: { listChanged: false },
    resources: { subscribe: true, listChanged: false },
    completions: {},
  },
  tools: TOOLS.map(({ run: _run, ...listed }) => listed),
  verifyRequestState(state) {
    if (state.startsWith(STATE_PREFIX)) unseal(state);
    return undefined;
  },
  register(server, gate) {
    registerTools(server, gate);
    registerResources(server);
    registerPrompts(server);
  },
};

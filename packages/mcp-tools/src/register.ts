/**
 * Registers the runtime's tools on an `@modelcontextprotocol/server` `McpServer`.
 *
 * The advertised input schema is the compact JSON schema of `describeTools`, handed to the SDK as
 * a Standard Schema whose validation accepts any object: the runtime validates each action's
 * arguments itself, so bad input gets a typed `invalid_arguments` result instead of a protocol error.
 */
import type {
  CallToolResult,
  InputRequiredResult,
  McpServer,
  ServerContext,
  StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import type { ToolResult, ToolRuntime } from "./runtime.js";

/** A shell's own call path: delegation, confirmation, admission. */
export type CallRoute = (
  tool: string,
  args: Record<string, unknown>,
  ctx: ServerContext,
) => Promise<ToolResult | CallToolResult | InputRequiredResult>;

function objectSchema(
  json: Record<string, unknown>,
): StandardSchemaWithJSON<Record<string, unknown>> {
  return {
    "~standard": {
      version: 1,
      vendor: "sisyphus",
      validate: (value: unknown) =>
        typeof value === "object" && value !== null && !Array.isArray(value)
          ? { value: value as Record<string, unknown> }
          : { issues: [{ message: "arguments must be an object" }] },
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

/**
 * Registers every tool of `runtime` on `server`. Without `route`, calls go straight to
 * `runtime.callTool` with the request's abort signal (no confirmation: dangerous actions are refused
 * with `confirmation_required`).
 */
export function registerTools(server: McpServer, runtime: ToolRuntime, route?: CallRoute): void {
  for (const tool of runtime.listTools()) {
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: objectSchema(tool.inputSchema),
        annotations: tool.annotations,
      },
      async (args: Record<string, unknown>, ctx: ServerContext) =>
        (route
          ? route(tool.name, args, ctx)
          : runtime.callTool(tool.name, args, {
              signal: ctx.mcpReq.signal,
            })) as Promise<CallToolResult>,
    );
  }
}

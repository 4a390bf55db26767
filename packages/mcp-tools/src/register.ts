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
import { declaresApps, withApp } from "./app/index.js";
import type { ToolRuntime } from "./runtime.js";
import { SKILL_DESCRIPTION, SKILL_NAME, skillFiles, skillManifest } from "./skill.js";
import type { ToolDescriptor } from "./surface.js";
import type { ToolResult } from "./tool-result.js";

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
 * A shell's `tools/list`: the tools the settings of this list leave on (one settings read per list),
 * e.g. `runtime.listTools(settings.disabled)`.
 */
export type ToolListing = () => Promise<readonly ToolDescriptor[]>;

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

/**
 * Makes `tools/list` answer `listing` (read for each list) instead of every registered tool. The
 * tools stay registered and enabled, so a call of one it leaves out still reaches the shell's route,
 * which answers it (`action_disabled`) instead of the SDK's protocol error for a disabled tool.
 */
export function registerToolListing(server: McpServer, listing: ToolListing): void {
  server.server.setRequestHandler("tools/list", async (_request, ctx) => {
    const tools = (await listing()).map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema as { type: "object"; [key: string]: unknown },
      annotations: t.annotations,
    }));
    // A client that declares MCP Apps also sees the App (`registerApp`): strict-write tools link
    // its resource and its entry point is listed; any other client gets the list unchanged.
    return { tools: declaresApps(server, ctx) ? withApp(tools) : tools };
  });
}

/** The URI of one file of the skill served as a resource (`sisyphus://skills/<name>/<path>`). */
export function skillResourceUri(path: string): string {
  return `sisyphus://skills/${SKILL_NAME}/${path}`;
}

/** The manifest resource's URI: each skill file with its complete SHA-256. */
export const SKILL_MANIFEST_URI = skillResourceUri("manifest.json");

let rendered: { files: ReturnType<typeof skillFiles>; manifestText: string } | undefined;

function skillTexts(): { files: ReturnType<typeof skillFiles>; manifestText: string } {
  if (rendered !== undefined) return rendered;
  const files = skillFiles();
  const manifest = skillManifest();
  const manifestText = `${JSON.stringify(
    {
      ...manifest,
      files: manifest.files.map((f) => ({ ...f, uri: skillResourceUri(f.path) })),
    },
    null,
    2,
  )}\n`;
  rendered = { files, manifestText };
  return rendered;
}

/**
 * Registers the skill `siyuan-strict-writes` on `server` as resources: each file (`SKILL.md`) and
 * the manifest (`manifest.json`: `{ name, description, files: [{ path, uri, sha256, size }] }`, the
 * SHA-256 complete, 64 hex digits). The texts are rendered once per process, in memory (a
 * stateless server builds a server per request): nothing is read from disk.
 */
export function registerSkillResources(server: McpServer): void {
  const { files, manifestText } = skillTexts();
  for (const file of files) {
    const uri = skillResourceUri(file.path);
    server.registerResource(
      `${SKILL_NAME}/${file.path}`,
      uri,
      { description: SKILL_DESCRIPTION, mimeType: file.mimeType },
      async () => ({ contents: [{ uri, mimeType: file.mimeType, text: file.text }] }),
    );
  }
  server.registerResource(
    `${SKILL_NAME}/manifest.json`,
    SKILL_MANIFEST_URI,
    {
      description: `The files of the skill ${SKILL_NAME} with their complete SHA-256 digests.`,
      mimeType: "application/json",
    },
    async () => ({
      contents: [{ uri: SKILL_MANIFEST_URI, mimeType: "application/json", text: manifestText }],
    }),
  );
}

/**
 * The built plugin (`dist/package.zip`) installed into the sandbox's kernel-plugin host, and
 * official MCP clients talking to its private route over loopback HTTP.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll } from "vitest";

export const PLUGIN_NAME = "siyuan-plugins-mcp-sisyphus";
export const PACKAGE_ZIP = resolve(import.meta.dirname, "..", "dist", "package.zip");

/** Writes a workspace file (e.g. `/data/templates/x.md`) through the kernel's `putFile`. */
export async function putWorkspaceFile(sb: Sandbox, path: string, text: string): Promise<void> {
  const form = new FormData();
  form.set("path", path);
  form.set("file", new Blob([text]), path.slice(path.lastIndexOf("/") + 1));
  const res = await fetch(`${sb.url}/api/file/putFile`, {
    method: "POST",
    headers: { authorization: `Token ${sb.token}` },
    body: form,
  });
  if (((await res.json()) as { code: number }).code !== 0)
    throw new Error(`putFile ${path} failed`);
}

/** The plugin's `settings.json` path in the workspace. */
export const SETTINGS_PATH = `/data/storage/petal/${PLUGIN_NAME}/settings.json`;

/** Writes the plugin's `settings.json` through the kernel's file API, as the settings panel will. */
export async function writeSettings(sb: Sandbox, settings: Record<string, unknown>): Promise<void> {
  await putWorkspaceFile(sb, SETTINGS_PATH, JSON.stringify(settings));
}

/**
 * A sandbox kernel with the built plugin installed and running, its kernel endpoint on (the
 * settings select it as the write authority) unless `kernelEndpointEnabled: false`.
 */
export async function sandboxWithPlugin(
  options: { serialisePaths?: boolean; kernelEndpointEnabled?: boolean } = {},
): Promise<Sandbox> {
  if (!existsSync(PACKAGE_ZIP)) {
    throw new Error(`${PACKAGE_ZIP} is missing: run pnpm --filter @sisyphus/kernel-plugin build`);
  }
  const sb = await startSandbox({
    seed: "demo",
    plugins: [PACKAGE_ZIP],
    pluginHost: { serialisePaths: options.serialisePaths ?? true },
  });
  await writeSettings(sb, { kernelEndpointEnabled: options.kernelEndpointEnabled ?? true });
  return sb;
}

/**
 * The fixture most files share: one sandbox with the plugin, started before the file's tests and
 * stopped after them. Read `.current` inside tests and hooks.
 */
export function useSandboxWithPlugin(options: { serialisePaths?: boolean } = {}): {
  readonly current: Sandbox;
} {
  const box = {} as { current: Sandbox };
  beforeAll(async () => {
    box.current = await sandboxWithPlugin(options);
  });
  afterAll(async () => {
    await box.current?.stop();
  });
  return box;
}

/** The plugin's route for `path` on `sb`. */
export function routeOf(sb: Sandbox, path: string): string {
  return `${sb.url}/plugin/private/${PLUGIN_NAME}${path}`;
}

/** The plugin's `/health` on `sb`, as JSON. */
export async function healthOf(sb: Sandbox): Promise<Record<string, unknown>> {
  const res = await fetch(routeOf(sb, "/health"), {
    headers: { authorization: `Token ${sb.token}` },
  });
  return (await res.json()) as Record<string, unknown>;
}

/** An official MCP client on the plugin's `/mcp`, authenticated with the kernel's API token. */
export async function kernelClient(
  sb: Sandbox,
  era: "modern" | "legacy" = "modern",
  capabilities: { elicitation?: { form?: Record<string, never> } } = {},
): Promise<Client> {
  const client = new Client(
    { name: "kernel-e2e", version: "1.0.0" },
    {
      capabilities,
      versionNegotiation: { mode: era === "modern" ? { pin: "2026-07-28" } : "legacy" },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(routeOf(sb, "/mcp")), {
      requestInit: { headers: { authorization: `Token ${sb.token}` } },
    }),
  );
  return client;
}

/** The structured content of a tool result. */
export function sc(result: unknown): Record<string, unknown> {
  return (result as { structuredContent?: Record<string, unknown> }).structuredContent ?? {};
}

/** A strict `block.update` of `id` preflighted through `client`: the arguments of its commit. */
export async function commitArgs(client: Client, id: string, data: string) {
  const args = { action: "update", id, dataType: "markdown", data };
  const pre = sc(
    await client.callTool({ name: "block", arguments: { ...args, validateOnly: true } }),
  );
  if (pre["error"] !== undefined) throw new Error(`preflight failed: ${JSON.stringify(pre)}`);
  const field = pre["preconditionField"] as string;
  return { ...args, requestId: pre["requestId"], [field]: pre[field] };
}

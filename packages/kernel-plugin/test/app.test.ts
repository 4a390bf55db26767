/**
 * The MCP App at the kernel authority: the built plugin in the sandbox's plugin host serves the
 * `ui://` resource, links it from the strict-write tools for a client that declares MCP Apps, and
 * answers the app-only entry point with a preflight's before/after — the official MCP client on
 * the plugin's route.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import { kernelClient, routeOf, sc, useSandboxWithPlugin } from "./harness.js";

const APP_URI = "ui://sisyphus/strict-write.html";
const APP_MIME = "text/html;profile=mcp-app";
const box = useSandboxWithPlugin();

/** A modern client that declares MCP Apps. */
async function appClient(): Promise<Client> {
  const client = new Client(
    { name: "kernel-app-e2e", version: "1.0.0" },
    {
      capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [APP_MIME] } } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(routeOf(box.current, "/mcp")), {
      requestInit: { headers: { authorization: `Token ${box.current.token}` } },
    }),
  );
  return client;
}

describe("the MCP App at the kernel authority", () => {
  it("serves the resource, links it and answers a block.update preview", async () => {
    const client = await appClient();
    try {
      const listed = await client.listResources();
      expect(listed.resources.find((r) => r.uri === APP_URI)?.mimeType).toBe(APP_MIME);
      const read = await client.readResource({ uri: APP_URI });
      const [content] = read.contents as Array<{ mimeType?: string; text?: string }>;
      expect(content?.mimeType).toBe(APP_MIME);
      expect(content?.text).toContain("ui/notifications/tool-result");

      const { tools } = await client.listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      expect(byName.get("block")?._meta).toEqual({ ui: { resourceUri: APP_URI } });
      expect(byName.get("write_preview")?._meta).toEqual({
        ui: { resourceUri: APP_URI, visibility: ["app"] },
      });

      const preview = sc(
        await client.callTool({
          name: "write_preview",
          arguments: {
            arguments: {
              action: "update",
              id: DEMO_IDS.paragraphDecision,
              data: "Decided to use **SQLite** for the index. #decision#",
              validateOnly: true,
            },
          },
        }),
      );
      expect(preview).toMatchObject({
        tool: "block",
        action: "update",
        supported: true,
        precondition: { kind: "state", field: "expectedStateHash" },
        target: { ids: [DEMO_IDS.paragraphDecision], notebook: DEMO_IDS.notebookResearch },
      });
      const [change] = preview["content"] as Array<{ diff: Array<{ op: string; text: string }> }>;
      expect(change?.diff.filter((d) => d.op !== "eq")).toEqual([
        { op: "del", text: "**sql.js**" },
        { op: "ins", text: "**SQLite**" },
      ]);
    } finally {
      await client.close();
    }
  });

  it("lists the tools unchanged for a client without MCP Apps", async () => {
    const client = await kernelClient(box.current);
    try {
      const { tools } = await client.listTools();
      expect(tools.some((t) => t.name === "write_preview")).toBe(false);
      expect(tools.filter((t) => t._meta !== undefined)).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

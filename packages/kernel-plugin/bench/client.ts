/**
 * What the kernel plugin's benchmarks share: the plugin's name and an official MCP client on its
 * private route, pinned to the 2026-07-28 revision (the era every cost figure is measured in).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export const PLUGIN = "siyuan-plugins-mcp-sisyphus";

/** Connects an official MCP client, named `name`, to the plugin's `/mcp` route on `sb`. */
export async function connectPlugin(
  sb: { readonly url: string; readonly token: string },
  name: string,
): Promise<Client> {
  const client = new Client(
    { name, version: "1" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${sb.url}/plugin/private/${PLUGIN}/mcp`), {
      requestInit: { headers: { authorization: `Token ${sb.token}` } },
    }),
  );
  return client;
}

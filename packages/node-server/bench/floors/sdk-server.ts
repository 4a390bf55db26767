/**
 * Cold-start floor: the smallest server the official SDK can answer a 2026-07-28 `tools/list` with
 * (one tool, no auth, no stores, no kernel client), bundled like the real executable but run
 * without a code cache. The benchmark starts it side by side with `sisyphus-server`.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type NodeIncomingMessageLike, toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";

const handler = toNodeHandler(
  createMcpHandler(
    () => {
      const server = new McpServer(
        { name: "floor", version: "1" },
        { capabilities: { tools: {} } },
      );
      server.registerTool("noop", { description: "Does nothing." }, async () => ({ content: [] }));
      return server;
    },
    { legacy: "reject" },
  ),
);
const http = createServer((req, res) => {
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (chunk: string) => {
    body += chunk;
  });
  req.on("end", () => {
    void handler(req as NodeIncomingMessageLike, res, JSON.parse(body));
  });
});
http.listen(0, "127.0.0.1", () => {
  const { port } = http.address() as AddressInfo;
  process.stderr.write(`listening on http://127.0.0.1:${port}/mcp\n`);
});
process.on("SIGTERM", () => process.exit(0));

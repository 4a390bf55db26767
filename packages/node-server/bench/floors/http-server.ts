/**
 * Cold-start floor: Node itself. A bare `node:http` server that answers any POST with a fixed
 * JSON-RPC `tools/list` result; what starting Node and a socket costs before any MCP code.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const http = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { tools: [] } }));
  });
});
http.listen(0, "127.0.0.1", () => {
  const { port } = http.address() as AddressInfo;
  process.stderr.write(`listening on http://127.0.0.1:${port}/mcp\n`);
});
process.on("SIGTERM", () => process.exit(0));

/** test/plugin-rpc-mcp.suite.ts with plugins in the `goja` engine. */
import { definePluginRpcMcpSuite } from "./plugin-rpc-mcp.suite.js";

definePluginRpcMcpSuite("goja");

/** test/plugin-rpc-mcp.suite.ts with plugins in the `vm` engine. */
import { definePluginRpcMcpSuite } from "./plugin-rpc-mcp.suite.js";

definePluginRpcMcpSuite("vm");

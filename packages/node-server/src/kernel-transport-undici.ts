/** Split point for `mcp-stack.ts`'s lazy kernel transport: the only static import of the undici transport. */
export { undiciTransport } from "@sisyphus/siyuan-api";

/**
 * `@sisyphus/mcp-tools/shell`: the protocol pieces every MCP shell (the Node server, the kernel
 * plugin) shares around the tool runtime. Nothing here opens a socket or picks an authority.
 */
export {
  type ClosableSession,
  LEGACY_SESSION_IDLE_MS,
  LegacySessionTable,
  MAX_LEGACY_SESSIONS,
} from "./legacy-sessions.js";

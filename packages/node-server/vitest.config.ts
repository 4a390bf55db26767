import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "node-server",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    // fails a test whose in-process sandbox kernels were asked for /api/repo/* (issue 11)
    setupFiles: ["../siyuan-sandbox/test/no-repo-requests.setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // eventsource and eventsource-parser (used by the MCP client) publish a "source" export
    // condition pointing at .ts files; let Vite transform them instead of Node loading them.
    server: { deps: { inline: [/@modelcontextprotocol\/client/, /eventsource/] } },
  },
});

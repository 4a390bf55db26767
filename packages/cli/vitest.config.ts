import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "cli",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // fails a test whose in-process sandbox kernels were asked for /api/repo/* (issue 11)
    setupFiles: ["../siyuan-sandbox/test/no-repo-requests.setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    server: { deps: { inline: [/@modelcontextprotocol\/client/, /eventsource/] } },
  },
});

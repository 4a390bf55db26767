import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "conformance",
    include: ["test/**/*.test.ts"],
    // The test starts node-server's built executable beside the conformance build: build it first
    // when it is missing or stale, as node-server's own tests do.
    globalSetup: ["../node-server/test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    server: { deps: { inline: [/@modelcontextprotocol\/client/, /eventsource/] } },
  },
});

import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "kernel-plugin",
    // kernel.js runs in goja, SiYuan 3.7.3's engine (issue 30), unless the run asks for the vm
    // engine (the Node 24 and 22 runs of CI do: the engine does not depend on the Node version).
    env: { SIYUAN_SANDBOX_PLUGIN_ENGINE: process.env["SIYUAN_SANDBOX_PLUGIN_ENGINE"] ?? "goja" },
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // fails a test whose in-process sandbox kernels were asked for /api/repo/* (issue 11)
    setupFiles: ["../siyuan-sandbox/test/no-repo-requests.setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    server: { deps: { inline: [/@modelcontextprotocol\/client/, /eventsource/] } },
  },
});

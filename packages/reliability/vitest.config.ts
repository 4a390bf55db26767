import { defineProject } from "vitest/config";

/**
 * The reliability suite (issue 18): its own run (`pnpm test:reliability`), not part of `pnpm test`
 * (the root config leaves this package out), bounded to 10 minutes on 2 cores in CI.
 */
export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "reliability",
    // the kernel plugin runs in goja, SiYuan 3.7.3's engine, unless the run asks for vm
    env: { SIYUAN_SANDBOX_PLUGIN_ENGINE: process.env["SIYUAN_SANDBOX_PLUGIN_ENGINE"] ?? "goja" },
    include: ["test/**/*.test.ts"],
    // The kernel soak has no test outside RELIABILITY_SOAK=1 (a file without one fails the run).
    exclude: process.env["RELIABILITY_SOAK"] === "1" ? [] : ["test/soak-kernel.test.ts"],
    setupFiles: ["../siyuan-sandbox/test/no-repo-requests.setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    server: { deps: { inline: [/@modelcontextprotocol\/client/, /eventsource/] } },
  },
});

import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    // A timeout only detects a hang: a loaded 2-core machine stretches a test several times over.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    name: "kernel-probes",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // fails a test whose sandbox kernels were asked for /api/repo/* (issue 11)
    setupFiles: ["../siyuan-sandbox/test/no-repo-requests.setup.ts"],
  },
});

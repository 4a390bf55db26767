import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "core-hash",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Property tests and the 1M-a vectors share the machine with every other package's suite.
    testTimeout: 30_000,
  },
});

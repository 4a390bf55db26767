import { defineConfig } from "vitest/config";

/**
 * One run over every package; each package's own vitest.config.ts names its project. The
 * reliability suite runs on its own (`pnpm test:reliability`).
 */
export default defineConfig({
  test: {
    projects: ["packages/*", "!packages/reliability"],
  },
});

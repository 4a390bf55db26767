import { defineConfig } from "tsup";

export default defineConfig({
  // `testing` is the store contract suites; it imports vitest (an optional peer), kept external.
  entry: { index: "src/index.ts", testing: "src/testing.ts" },
  format: ["esm"],
  target: "es2022",
  platform: "neutral",
  external: ["vitest", "@sisyphus/core-hash"],
  splitting: true,
  dts: true,
  clean: true,
  sourcemap: true,
});

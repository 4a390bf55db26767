import { defineConfig } from "tsup";

/** One classic script for the bare-context test: write-safety with core-hash inlined, from sources. */
export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["iife"],
  globalName: "SisyphusWriteSafety",
  platform: "neutral",
  target: "es2020",
  noExternal: ["@sisyphus/core-hash"],
  // The test passes a private directory: a concurrent build of this package cleans `dist/`.
  outDir: process.env["WRITE_SAFETY_BARE_OUT_DIR"] ?? "dist/bare-test",
  esbuildOptions(options) {
    options.conditions = ["source"];
  },
});

import { defineConfig } from "tsup";

// The bin bundles the workspace packages it runs on from their TypeScript sources (the "source"
// export condition), so building this one package is enough to run it; only the demo sandbox
// (loaded lazily, with its sql.js) stays external.
export default defineConfig({
  entry: ["src/index.ts", "src/bin.ts"],
  format: ["esm"],
  target: "es2022",
  platform: "node",
  dts: { entry: "src/index.ts" },
  clean: true,
  sourcemap: true,
  noExternal: [/^@sisyphus\/(core-hash|write-safety|siyuan-api|mcp-tools)(\/|$)/],
  external: ["@sisyphus/siyuan-sandbox"],
  // Bundled CommonJS (undici) needs a real `require` inside the ESM output.
  banner: {
    js: 'import { createRequire as __sisyphusCreateRequire } from "node:module"; const require = __sisyphusCreateRequire(import.meta.url);',
  },
  esbuildOptions(options) {
    options.conditions = ["source"];
  },
});

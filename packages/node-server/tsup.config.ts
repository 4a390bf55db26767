import { defineConfig } from "tsup";

// The bin bundles everything it runs on (the workspace packages from their TypeScript sources via
// the "source" export condition, and the npm dependencies), so building this one package is enough
// to run it, and a cold start resolves a handful of files instead of hundreds of modules (measured:
// ~15% faster to the first tools/list). Only the demo sandbox (loaded lazily, with sql.js's wasm)
// stays external.
export default defineConfig({
  entry: ["src/index.ts", "src/bin.ts"],
  format: ["esm"],
  target: "es2022",
  platform: "node",
  dts: { entry: "src/index.ts" },
  clean: true,
  sourcemap: true,
  noExternal: [/^(?!@sisyphus\/siyuan-sandbox)/],
  external: ["@sisyphus/siyuan-sandbox"],
  // Bundled CommonJS (undici) needs a real `require` inside the ESM output.
  banner: {
    js: 'import { createRequire as __sisyphusCreateRequire } from "node:module"; const require = __sisyphusCreateRequire(import.meta.url);',
  },
  esbuildOptions(options) {
    options.conditions = ["source"];
  },
});

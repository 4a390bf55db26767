import { dirname, join } from "node:path";
import { defineConfig } from "tsup";

// zod (its classic API and its core) re-exports every locale as the `locales` namespace (~360 KB of
// the bundle, about half of zod), although only English, which zod installs by itself, is ever used
// here. Bundling the namespace with `en` only keeps the rest out of every cold start's parse.
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build: {
    onResolve(
      o: { filter: RegExp },
      cb: (a: {
        path: string;
        importer: string;
      }) => { path: string; namespace: string } | undefined,
    ): void;
    onLoad(
      o: { filter: RegExp; namespace: string },
      cb: (a: { path: string }) => { contents: string; resolveDir: string },
    ): void;
  }) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|mini|core)[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), "..", "locales", "en.js"), namespace: "zod-en" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-en" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};

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
  esbuildPlugins: [zodEnglishOnly],
  esbuildOptions(options) {
    options.conditions = ["source"];
  },
});

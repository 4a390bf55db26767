import { defineConfig } from "tsup";
import { zodEnglishOnly } from "../../build-support/zod-english-only.ts";

// Two builds. The library entry (`index.ts`) is ESM with declarations. The executable is CommonJS:
// `server.cjs` bundles the server program with everything it runs on at start (the workspace
// packages from their TypeScript sources via the "source" export condition, the SDK and zod), so a
// cold start reads one file, which the launcher `bin.cjs` runs from V8's code cache (see
// `src/bin.ts`). What a start never needs stays outside, resolved from node_modules when first
// used: the demo sandbox (with sql.js's wasm), undici (the kernel transport, loaded on the first
// kernel call) and the MCP client (stdio delegation only). `scripts/build.mjs` runs both builds and
// then makes the code cache.
const EXTERNAL = ["@sisyphus/siyuan-sandbox", "undici", "@modelcontextprotocol/client"];
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
// Everything else is bundled: any specifier that is not one of EXTERNAL or a subpath of one.
const notExternal = new RegExp(`^(?!(${EXTERNAL.map(escapeRegExp).join("|")})(/|$))`);

// The workspace packages are bundled, so the tarball depends on none of them (nor are they
// published): their declarations are inlined like their code. A path mapping to their built
// `dist/*.d.ts` makes them local files to the declaration bundler, which would otherwise leave
// anything reached through node_modules as an import.
const BUNDLED = ["core-hash", "mcp-tools", "siyuan-api", "write-safety"];
const bundledDeclarations = Object.fromEntries(
  BUNDLED.flatMap((name) => [
    [`@sisyphus/${name}`, [`../${name}/dist/index.d.ts`]],
    [`@sisyphus/${name}/*`, [`../${name}/dist/*/index.d.ts`, `../${name}/dist/*.d.ts`]],
  ]),
);

// In the executable, `import-esm.ts` stays its own file: see that file for why.
const importEsmApart = {
  name: "import-esm-apart",
  setup(build: {
    onResolve(o: { filter: RegExp }, cb: () => { path: string; external: boolean }): void;
  }) {
    build.onResolve({ filter: /^\.\/import-esm\.js$/ }, () => ({
      path: "./import-esm.cjs",
      external: true,
    }));
  },
};

export default defineConfig([
  {
    entry: ["src/index.ts", "src/delegation.ts"],
    format: ["esm"],
    target: "es2022",
    platform: "node",
    dts: {
      entry: ["src/index.ts", "src/delegation.ts"],
      compilerOptions: { paths: bundledDeclarations },
    },
    sourcemap: true,
    noExternal: [notExternal],
    external: EXTERNAL,
    // Bundled CommonJS needs a real `require` inside the ESM output.
    banner: {
      js: 'import { createRequire as __sisyphusCreateRequire } from "node:module"; const require = __sisyphusCreateRequire(import.meta.url);',
    },
    esbuildPlugins: [zodEnglishOnly],
    esbuildOptions(options) {
      options.conditions = ["source"];
    },
  },
  {
    entry: { server: "src/server-main.ts", bin: "src/bin.ts", "import-esm": "src/import-esm.ts" },
    // Whitespace and comments only (names stay, and the source map maps back): less to read,
    // decode and hash on every start (sizes and the measured gain: the README's benchmark section).
    minifyWhitespace: true,
    format: ["cjs"],
    target: "node20",
    platform: "node",
    sourcemap: true,
    noExternal: [notExternal],
    external: EXTERNAL,
    esbuildPlugins: [zodEnglishOnly, importEsmApart],
    esbuildOptions(options) {
      options.conditions = ["source"];
    },
  },
]);

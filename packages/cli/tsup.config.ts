import { defineConfig } from "tsup";
import { zodEnglishOnly } from "../../build-support/zod-english-only.ts";

// One ESM file, `dist/cli.js`: the workspace packages are bundled from their TypeScript sources
// (the "source" export condition), so a start reads one file. The MCP client, which the delegation
// link loads on the first call, and the prompt library (loaded only to ask a question) stay in
// node_modules.
const EXTERNAL = ["@modelcontextprotocol/client", "@clack/prompts"];

export default defineConfig({
  entry: { cli: "src/main.ts" },
  format: ["esm"],
  target: "node20",
  platform: "node",
  sourcemap: true,
  clean: true,
  noExternal: [/^@sisyphus\//, /^zod/],
  external: EXTERNAL,
  // Bundled CommonJS needs a real `require` inside the ESM output.
  banner: {
    js: 'import { createRequire as __sisyphusCreateRequire } from "node:module"; const require = __sisyphusCreateRequire(import.meta.url);',
  },
  esbuildPlugins: [zodEnglishOnly],
  esbuildOptions(options) {
    options.conditions = ["source"];
  },
});

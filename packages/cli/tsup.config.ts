import { fileURLToPath } from "node:url";
import { defineConfig, type Options } from "tsup";
import { zodEnglishOnly } from "../../build-support/zod-english-only.ts";

// ESM, `dist/cli.js`: the workspace packages are bundled from their TypeScript sources (the
// "source" export condition), so a start reads one file. The MCP client, which the delegation link
// loads on its first call, is a chunk of its own (`dist/chunk-*.js`, loaded only then) that shares
// the bundle's zod: from node_modules it brought a second zod, about 70 ms of a call's start on
// Node 20. The prompt library (loaded only to ask a question) stays in node_modules.
const EXTERNAL = ["@clack/prompts"];

/** node-server's run-time `import()` helper, replaced by the CLI's, which names the MCP client. */
const cliImportEsm = {
  name: "cli-import-esm",
  setup(build: Parameters<NonNullable<Options["esbuildPlugins"]>[number]["setup"]>[0]) {
    build.onResolve({ filter: /^\.\/import-esm\.js$/ }, (args) =>
      /[\\/]packages[\\/]node-server[\\/]src[\\/]/.test(args.importer)
        ? { path: fileURLToPath(new URL("./src/import-esm.ts", import.meta.url)) }
        : undefined,
    );
  },
};

/**
 * The workspace packages' modules have no import-time side effects (no bare imports, no top-level
 * calls but pure schema and table definitions), so a module none of whose exports the CLI uses is
 * left out whole, with everything only it imports. Without this the root `@sisyphus/mcp-tools`
 * entry brought the tools' handlers, the App's preview and the MCP server SDK (about 700 KB of the
 * 1.3 MB bundle) into every start. esbuild warns when it drops a bare import of such a module.
 */
const WORKSPACE_SOURCE =
  /[\\/]packages[\\/](mcp-tools|siyuan-api|write-safety|core-hash|node-server)[\\/]src[\\/]/;
const workspaceSideEffectFree = {
  name: "workspace-side-effect-free",
  setup(build: Parameters<NonNullable<Options["esbuildPlugins"]>[number]["setup"]>[0]) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === WORKSPACE_SOURCE || args.kind === "entry-point") return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: WORKSPACE_SOURCE,
      });
      if (resolved.errors.length > 0 || !WORKSPACE_SOURCE.test(resolved.path)) return undefined;
      return { ...resolved, sideEffects: false };
    });
  },
};

export default defineConfig({
  entry: { cli: "src/main.ts" },
  format: ["esm"],
  target: "node20",
  platform: "node",
  sourcemap: true,
  clean: true,
  splitting: true,
  noExternal: [/^@sisyphus\//, /^zod/, /^@modelcontextprotocol\/client/],
  external: EXTERNAL,
  // Bundled CommonJS needs a real `require` inside the ESM output.
  banner: {
    js: 'import { createRequire as __sisyphusCreateRequire } from "node:module"; const require = __sisyphusCreateRequire(import.meta.url);',
  },
  esbuildPlugins: [zodEnglishOnly, cliImportEsm, workspaceSideEffectFree],
  esbuildOptions(options) {
    options.conditions = ["source"];
  },
});

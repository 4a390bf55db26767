import { defineConfig, type Options } from "tsup";
import { zodEnglishOnly } from "../../build-support/zod-english-only.ts";

// CommonJS, `dist/cli.cjs` (decision D-270: a start without Node's ES module loader, which cost a
// call a quarter of its time): the workspace packages are bundled from their TypeScript sources
// (the "source" export condition), so a start reads one file (each authority's link is a chunk of
// its own, loaded once the settings chose it; tsup splits CommonJS chunks too). The delegation link speaks MCP itself
// (node-server's `mcp-http-client.ts`), so no MCP SDK is in the bundle. The prompt library
// (loaded only to ask a question) stays in node_modules.
const EXTERNAL = ["@clack/prompts"];

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
  format: ["cjs"],
  // `import.meta.url` in the sources (`authority.ts`) is the chunk's own file URL.
  shims: true,
  target: "node20",
  platform: "node",
  sourcemap: true,
  clean: true,
  splitting: true,
  noExternal: [/^@sisyphus\//, /^zod/],
  external: EXTERNAL,
  esbuildPlugins: [zodEnglishOnly, workspaceSideEffectFree],
  esbuildOptions(options) {
    options.conditions = ["source"];
  },
});

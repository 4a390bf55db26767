import { defineConfig, type Options } from "tsup";
import builds from "../node-server/tsup.config.ts";

// The conformance server (src/server-main.ts: node-server's `startServer` plus the MCP conformance
// suite's fixtures), a test artefact: built like node-server's executable (same bundling, externals
// and plugins, workspace packages from their sources) but into test-artifacts/, which is neither in
// node-server's `files` nor touched by its build. run.sh and test/fixtures.test.ts build and run it;
// node-server's `dist/` never holds a fixture (test/fixtures.test.ts checks). What the executable
// leaves outside the bundle (undici, the MCP client) resolves from this package's node_modules.
const executable = (builds as Options[])[1] as Options;

export default defineConfig({
  ...executable,
  entry: {
    "conformance-server": "src/server-main.ts",
    "import-esm": "../node-server/src/import-esm.ts",
  },
  outDir: "test-artifacts",
  clean: true,
  minifyWhitespace: false,
});

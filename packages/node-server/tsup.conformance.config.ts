import { defineConfig, type Options } from "tsup";
import builds from "./tsup.config.ts";

// The conformance server (src/conformance-main.ts: the server plus the MCP conformance suite's
// fixtures), a test artefact: built like the executable (same bundling, externals and plugins)
// but into test-artifacts/conformance/, which is neither in the package's `files` nor touched by
// the production build (`scripts/build.mjs` runs tsup.config.ts only). packages/conformance/run.sh
// builds and runs it; `dist/` never holds a fixture (test/conformance-fixtures.test.ts checks).
const executable = (builds as Options[])[1] as Options;

export default defineConfig({
  ...executable,
  entry: {
    "conformance-server": "src/conformance-main.ts",
    "import-esm": "src/import-esm.ts",
  },
  outDir: "test-artifacts/conformance",
  clean: true,
  minifyWhitespace: false,
});

import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", "shell/index": "src/shell/index.ts" },
  format: ["esm"],
  target: "es2022",
  dts: { entry: { index: "src/index.ts", "shell/index": "src/shell/index.ts" } },
  clean: true,
  sourcemap: true,
});

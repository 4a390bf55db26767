import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/bin.ts", "src/testing.ts"],
  format: ["esm"],
  target: "es2022",
  dts: { entry: ["src/index.ts", "src/testing.ts"] },
  clean: true,
  sourcemap: true,
});

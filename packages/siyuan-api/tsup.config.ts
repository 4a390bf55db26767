import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/kernel.ts"],
  format: ["esm"],
  target: "es2022",
  dts: { entry: ["src/index.ts", "src/kernel.ts"] },
  clean: true,
  sourcemap: true,
});

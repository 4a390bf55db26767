import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/kernel.ts", "src/constants.ts"],
  format: ["esm"],
  target: "es2022",
  dts: { entry: ["src/index.ts", "src/kernel.ts", "src/constants.ts"] },
  clean: true,
  sourcemap: true,
});

import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "shell/index": "src/shell/index.ts",
    "shell/gate": "src/shell/gate.ts",
    settings: "src/settings.ts",
    answers: "src/answers.ts",
  },
  format: ["esm"],
  target: "es2022",
  dts: {
    entry: {
      index: "src/index.ts",
      "shell/index": "src/shell/index.ts",
      "shell/gate": "src/shell/gate.ts",
      settings: "src/settings.ts",
      answers: "src/answers.ts",
    },
  },
  clean: true,
  sourcemap: true,
});

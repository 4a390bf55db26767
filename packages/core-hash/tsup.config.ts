import { defineConfig } from "tsup";

export default defineConfig([
  {
    // ESM for Node and bundlers. Splitting keeps one shared chunk, so `./node` registers its backend
    // in the same module instance that `.` hashes with.
    entry: { index: "src/index.ts", node: "src/node.ts" },
    format: ["esm"],
    target: "es2022",
    platform: "neutral",
    external: [/^node:/],
    removeNodeProtocol: false,
    splitting: true,
    dts: true,
    clean: true,
    sourcemap: true,
  },
  {
    // A classic script for bare JavaScript contexts (the kernel-plugin runtime, the node:vm test):
    // defines one global, `SisyphusCoreHash`, and needs no module loader, Node API or TextEncoder.
    entry: { "core-hash": "src/index.ts" },
    format: ["iife"],
    globalName: "SisyphusCoreHash",
    target: "es2020",
    platform: "neutral",
    sourcemap: true,
  },
]);

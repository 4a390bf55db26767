#!/usr/bin/env node
// The installed `sisyphus` command. A committed file, so `pnpm install` can link it on a fresh clone
// before the build exists; the program is the bundle `dist/cli.js` (see tsup.config.ts). On Node
// ≥ 22.1 it compiles from Node's compile cache in `dist/compile-cache/`, beside the program (never a
// shared directory another user could write), filled by the first start that may write there.
import module from "node:module";
import { fileURLToPath } from "node:url";

module.enableCompileCache?.(fileURLToPath(new URL("../dist/compile-cache/", import.meta.url)));
await import("../dist/cli.js");

#!/usr/bin/env node
// The installed `sisyphus` command. A committed file, so `pnpm install` can link it on a fresh clone
// before the build exists; the program is the CommonJS bundle `dist/cli.cjs` (see tsup.config.ts),
// loaded without Node's ES module loader. On Node ≥ 22.1 it compiles from Node's compile cache in
// `dist/compile-cache/`, beside the program (never a shared directory another user could write),
// filled by the first start that may write there.
"use strict";
const path = require("node:path");

require("node:module").enableCompileCache?.(path.join(__dirname, "..", "dist", "compile-cache"));
require("../dist/cli.cjs").main();

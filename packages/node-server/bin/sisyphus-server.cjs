#!/usr/bin/env node
// The installed `sisyphus-server` command. A committed file, so `pnpm install` can link it on a fresh
// clone before the build exists; the launcher it loads is `dist/bin.cjs` (see src/bin.ts).
require("../dist/bin.cjs");

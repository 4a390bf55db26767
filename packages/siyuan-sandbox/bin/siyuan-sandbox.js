#!/usr/bin/env node
// The installed `siyuan-sandbox` command. A committed file, so `pnpm install` can link it on a fresh
// clone before the build exists; the program is `dist/bin.js` (see src/bin.ts).
import "../dist/bin.js";

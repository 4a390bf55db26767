#!/usr/bin/env bash
# The test suite on another Node, with the builds `pnpm test` made. Used by packages/node22 and
# packages/node24. By default it runs the packages whose behaviour depends on the Node runtime (the
# whole suite runs once, on the toolchain's Node, in `pnpm test`; docs/decisions.md D-289): HTTP
# servers and clients, processes, files and the vm plugin engine. `--all` runs every package;
# `--project NAME` runs that package alone; `--root DIR` that suite (the reliability suite).
# Other arguments go to `vitest run` (CI adds a JSON report).
# Usage: bash test-support/vitest-on-node.sh NODE [--all] [vitest args]
set -euo pipefail
node_bin="$1"
shift
[ -x "$node_bin" ] || { echo "vitest-on-node.sh: $node_bin is missing; run pnpm install" >&2; exit 1; }
cd "$(dirname "$0")/.."
# The packages that meet the runtime: node:http/undici/fs/child_process (node-server, cli,
# siyuan-api's transports, the sandbox's server) and node:vm (the sandbox's plugin host). The pure
# packages, the tools over them and the kernel plugin (goja, not Node) run once, in `pnpm test`.
RUNTIME_PROJECTS=(node-server cli siyuan-api siyuan-sandbox)
projects=()
args=()
all=0
for arg in "$@"; do
  case "$arg" in
    --all) all=1 ;;
    # another root (the reliability suite) or a named package: not the runtime-dependent set
    --project | --project=* | --root | --root=*) projects=("x") ; args+=("$arg") ;;
    *) args+=("$arg") ;;
  esac
done
if [ "$all" -eq 0 ] && [ "${#projects[@]}" -eq 0 ]; then
  for p in "${RUNTIME_PROJECTS[@]}"; do args+=(--project "$p"); done
fi
# Everything the tests start by name (`node`, and `pnpm` through its `#!/usr/bin/env node`) runs on
# this Node too; the servers the tests spawn use process.execPath, which is this Node.
export PATH="$(dirname "$node_bin"):$PATH"
# The kernel plugin's suites run in goja on the toolchain's Node (`pnpm test`); here they run in the
# vm engine, which does depend on the Node version (the sandbox's own plugin-host tests run both).
export SIYUAN_SANDBOX_PLUGIN_ENGINE="${SIYUAN_SANDBOX_PLUGIN_ENGINE:-vm}"
echo "== vitest on $("$node_bin" --version) (kernel plugins in the $SIYUAN_SANDBOX_PLUGIN_ENGINE engine): ${args[*]}"
exec "$node_bin" node_modules/vitest/vitest.mjs run "${args[@]}"

// Builds goja-host (the `goja` plugin engine, goja-host/main.go) into dist/goja-host with the Go
// toolchain. Without Go the build goes on with a notice: the `vm` engine needs nothing more, and
// the goja engine, when asked for, fails with the command that installs Go.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "goja-host");
const go = spawnSync("go", ["version"], { encoding: "utf8" });
if (go.error || go.status !== 0) {
  console.warn(
    "siyuan-sandbox: Go not found, so dist/goja-host (the goja plugin engine) is not built; " +
      "install Go 1.26 or later (https://go.dev/dl/) and run `pnpm --filter @sisyphus/siyuan-sandbox build`.",
  );
  process.exit(0);
}
const build = spawnSync("go", ["build", "-trimpath", "-o", out, "."], {
  cwd: join(root, "goja-host"),
  stdio: "inherit",
  // GOTOOLCHAIN=local: the machine's Go builds it; a download of another toolchain is not wanted
  env: { GOTOOLCHAIN: "local", CGO_ENABLED: "0", ...process.env },
});
if (build.status !== 0) process.exit(build.status ?? 1);

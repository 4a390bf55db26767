// What `pnpm test` needs from the machine beyond Node and pnpm, checked before anything is built:
// Debian's `chromium` (the settings panel's and the MCP App's browser tests drive it through
// playwright-core; no browser download), util-linux `script` (package bsdutils: the CLI's
// pseudo-terminal tests) and Go 1.26+ (the build compiles the goja plugin engine, which the kernel
// plugin's tests run in). A missing Debian package is installed where this user may (root, or
// sudo without a password), saying so; otherwise, and for Go, the command stops before running
// anything and prints the one command that installs what is missing.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const ok = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: "ignore" });
  return r.error === undefined && r.status === 0;
};
const has = (cmd) => ok("sh", ["-c", `command -v ${cmd}`]);

// SISYPHUS_TEST_DEPS_ROOT (tests of this script only) looks for the files under another root
const at = (p) => `${process.env.SISYPHUS_TEST_DEPS_ROOT ?? ""}${p}`;
const missing = [];
if (!existsSync(at("/usr/bin/chromium"))) missing.push("chromium");
if (!has("script")) missing.push("bsdutils");

if (missing.length > 0) {
  const list = missing.join(" ");
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  const sudo = !root && has("sudo") && ok("sudo", ["-n", "true"]);
  if (has("apt-get") && (root || sudo)) {
    console.log(`pnpm test: installing Debian's ${list} (the tests need it) …`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const run = (args) =>
      spawnSync(root ? args[0] : "sudo", root ? args.slice(1) : args, { stdio: "inherit", env })
        .status === 0;
    if (
      !run(["apt-get", "update", "-qq"]) ||
      !run(["apt-get", "install", "-y", "-qq", ...missing])
    ) {
      console.error(
        `pnpm test: could not install ${list}; install it with: sudo apt-get install -y ${list}`,
      );
      process.exit(1);
    }
  } else {
    console.error(
      `pnpm test: the tests need Debian's ${list}, which is missing. Install it, then run pnpm test again:\n  sudo apt-get install -y ${list}`,
    );
    process.exit(1);
  }
}

if (!has("go")) {
  console.error(
    "pnpm test: the tests need Go 1.26 or later (the build compiles the goja plugin engine the kernel plugin's tests run in), which is missing. Install it from https://go.dev/dl/, then run pnpm test again.",
  );
  process.exit(1);
}

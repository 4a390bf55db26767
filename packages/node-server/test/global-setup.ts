/** Builds the executable (and its code cache) when it is missing or older than the sources it bundles. */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const pkg = resolve(import.meta.dirname, "..");
const bundled = ["node-server", "mcp-tools", "write-safety", "siyuan-api", "core-hash"];

function newest(dir: string): number {
  let max = 0;
  if (!existsSync(dir)) return max;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    max = Math.max(max, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return max;
}

export default function setup(): void {
  // The embedded demo loads the sandbox's build lazily (it stays outside the bundle).
  if (!existsSync(join(pkg, "..", "siyuan-sandbox", "dist", "index.js"))) {
    execFileSync("pnpm", ["--filter", "@sisyphus/siyuan-sandbox", "build"], {
      cwd: pkg,
      stdio: "inherit",
      timeout: 120_000,
    });
  }
  // The code cache is the build's last output.
  const built = join(pkg, "dist", "server.cjs.cache");
  const sources = Math.max(
    ...bundled.map((name) => newest(join(pkg, "..", name, "src"))),
    newest(join(pkg, "scripts")),
  );
  if (existsSync(built) && statSync(built).mtimeMs > sources) return;
  execFileSync("pnpm", ["run", "build"], { cwd: pkg, stdio: "inherit", timeout: 120_000 });
}

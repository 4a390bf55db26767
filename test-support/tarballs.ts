/**
 * The public packages as users get them: `pnpm pack` (which rewrites `workspace:` and `catalog:`
 * ranges and applies `publishConfig`), then `npm install` of the tarballs into a directory outside
 * the workspace, third-party dependencies from the registry. Shared by the tarball tests of
 * `@sisyphus/cli` (with the server) and `@sisyphus/write-safety` (with core-hash); imported by
 * relative path (test tooling, not a workspace package).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const REPO = resolve(import.meta.dirname, "..");

/** Long enough for a cold `npm install` from the registry; the tests' own timeouts are longer. */
export const INSTALL_TIMEOUT_MS = 240_000;

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The environment without what a `pnpm test` run exports (`npm_config_*`, `npm_package_*`, …) and
 * without the kernel and server settings of the developer's shell (`SIYUAN_*`, `SISYPHUS_*`), so
 * npm and the installed programs see only what a test passes.
 */
export function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !/^(npm_|pnpm_|siyuan_|sisyphus_)/i.test(k)) env[k] = v;
  return { ...env, ...extra };
}

/** Runs a program to completion without blocking the test worker; never rejects on exit codes. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? userEnv(),
      stdio: ["ignore", "pipe", "pipe"],
      timeout: options.timeoutMs ?? 100_000,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

/** A fresh directory outside the workspace; {@link removeTemp} deletes it. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeTemp(dir: string | undefined): void {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}

/** One packed package: the tarball, the manifest inside it, and its file list. */
export interface Packed {
  readonly name: string;
  readonly file: string;
  /** `package/package.json` of the tarball: what npm and Node read after installing. */
  readonly manifest: Record<string, unknown>;
  /** The workspace's `package.json` of the same package. */
  readonly workspaceManifest: Record<string, unknown>;
  /** Paths inside the tarball, without the `package/` prefix. */
  readonly files: readonly string[];
}

/** `pnpm pack` of `packages/<dir>` (already built) into `dest`. */
export async function pack(dir: string, dest: string): Promise<Packed> {
  const pkgDir = join(REPO, "packages", dir);
  const out = mkdtempSync(join(dest, `${dir}-`));
  const packed = await run("pnpm", ["pack", "--pack-destination", out], { cwd: pkgDir });
  if (packed.code !== 0) throw new Error(`pnpm pack ${dir} failed:\n${packed.stderr}`);
  const tgz = readdirSync(out).filter((f) => f.endsWith(".tgz"));
  if (tgz.length !== 1) throw new Error(`pnpm pack ${dir}: expected one tarball, found ${tgz}`);
  const file = join(out, tgz[0] as string);
  const list = await run("tar", ["-tzf", file]);
  const manifest = await run("tar", ["-xzOf", file, "package/package.json"]);
  const workspaceManifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  return {
    name: workspaceManifest.name,
    file,
    manifest: JSON.parse(manifest.stdout),
    workspaceManifest,
    files: list.stdout
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => l.replace(/^package\//, "")),
  };
}

const DEV_ONLY =
  /^(src|test|bench|examples|scripts|docs)\/|(^|\/)(tsconfig[^/]*|tsup\.config\.ts|vitest\.config\.ts)$|\.test\.|^dist\/compile-cache\//;
const DEPENDENCY_FIELDS = ["dependencies", "peerDependencies", "optionalDependencies"];

/** `exports` as a published manifest must have it: the workspace's, without the `source` condition. */
function withoutSource(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== "source")
      .map(([k, v]) => [k, withoutSource(v)]),
  );
}

function targets(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (typeof value !== "object" || value === null) return [];
  return Object.values(value).flatMap(targets);
}

/**
 * Everything wrong with a tarball as a published package, as readable lines (empty when none):
 * workspace-only ranges, a `source` export condition, dev-only files, export or bin targets the
 * tarball lacks, and dependencies on `@sisyphus/*` packages that are not among `published`.
 */
export function tarballProblems(p: Packed, published: readonly string[]): string[] {
  const problems: string[] = [];
  const text = JSON.stringify(p.manifest);
  for (const range of text.match(/"(workspace|catalog):[^"]*"/g) ?? [])
    problems.push(`${p.name}: range ${range} left in the manifest`);
  if (text.includes('"source"')) problems.push(`${p.name}: a "source" export condition`);
  const expected = withoutSource(p.workspaceManifest["exports"]);
  if (JSON.stringify(p.manifest["exports"]) !== JSON.stringify(expected))
    problems.push(`${p.name}: packed exports differ from the workspace's (publishConfig.exports)`);
  for (const f of p.files.filter((f) => DEV_ONLY.test(f)))
    problems.push(`${p.name}: dev-only file ${f}`);
  const bin = p.manifest["bin"];
  for (const t of [...targets(p.manifest["exports"]), ...targets(bin)]) {
    if (!p.files.includes(t.replace(/^\.\//, "")))
      problems.push(`${p.name}: ${t} not in the tarball`);
  }
  for (const field of DEPENDENCY_FIELDS) {
    const deps = (p.manifest[field] ?? {}) as Record<string, string>;
    const meta = (p.manifest["peerDependenciesMeta"] ?? {}) as Record<
      string,
      { optional?: boolean }
    >;
    for (const dep of Object.keys(deps)) {
      const optionalPeer = field === "peerDependencies" && meta[dep]?.optional === true;
      if (dep.startsWith("@sisyphus/") && !published.includes(dep) && !optionalPeer)
        problems.push(`${p.name}: ${field} names the unpublished ${dep}`);
    }
  }
  return problems;
}

/** The workspace's own version of a dependency: scratch projects check with the compiler CI uses. */
export function workspaceVersion(name: string): string {
  return JSON.parse(readFileSync(join(REPO, "node_modules", name, "package.json"), "utf8")).version;
}

/** A user's strict `tsconfig.json` options for Node (NodeNext), the installed declarations checked too. */
export const STRICT_NODENEXT = {
  target: "ES2022",
  lib: ["ES2023"],
  module: "NodeNext",
  moduleResolution: "NodeNext",
  types: ["node"],
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  verbatimModuleSyntax: true,
  skipLibCheck: false,
};

/** `npm install` of the given tarballs (and registry specs) into `prefix`, as a user would. */
export async function npmInstall(prefix: string, specs: readonly string[]): Promise<void> {
  mkdirSync(prefix, { recursive: true });
  const args = ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--prefer-offline"];
  const done = await run("npm", [...args, ...specs], {
    cwd: prefix,
    timeoutMs: INSTALL_TIMEOUT_MS,
  });
  if (done.code !== 0)
    throw new Error(`npm install failed (exit ${done.code}):\n${done.stdout}\n${done.stderr}`);
}

/**
 * `@sisyphus/cli` and `@sisyphus/node-server` installed the way users install them: packed with
 * `pnpm pack`, then `npm install`ed from the tarballs into a directory outside the workspace (their
 * third-party dependencies from the registry). The installed `sisyphus` answers `--version` and
 * `doctor` against a sandbox kernel and writes through a background authority it starts from the
 * installed server; the installed `sisyphus-server` answers `--help`, and without a kernel URL says
 * plainly that the demo kernel is an optional package. Builds come from `turbo run build`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_IDS, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  INSTALL_TIMEOUT_MS,
  npmInstall,
  type Packed,
  pack,
  removeTemp,
  run,
  STRICT_NODENEXT,
  tarballProblems,
  tempDir,
  userEnv,
  workspaceVersion,
} from "../../../test-support/tarballs.js";
import { words } from "./harness.js";

const PUBLISHED = ["@sisyphus/cli", "@sisyphus/node-server"];

let sb: Sandbox;
let work: string | undefined;
let prefix: string;
let packed: Packed[];
const home = () => join(prefix, "home");

beforeAll(async () => {
  sb = await startSandbox({ seed: "demo" });
  work = tempDir("sisyphus-tarballs-");
  prefix = join(work, "prefix");
  packed = [await pack("cli", work), await pack("node-server", work)];
  await npmInstall(prefix, [
    ...packed.map((p) => p.file),
    `typescript@${workspaceVersion("typescript")}`,
    `@types/node@${workspaceVersion("@types/node")}`,
  ]);
}, INSTALL_TIMEOUT_MS + 60_000);

afterAll(async () => {
  try {
    const record = join(home(), "data", "authority.json");
    if (existsSync(record)) process.kill(JSON.parse(readFileSync(record, "utf8")).pid, "SIGKILL");
  } catch {
    // gone already
  }
  await sb?.stop();
  removeTemp(work);
});

/** Runs an installed command through its `node_modules/.bin` link with this test's Node. */
function installed(bin: string, args: readonly string[], env: Record<string, string> = {}) {
  return run(process.execPath, [join(prefix, "node_modules", ".bin", bin), ...args], {
    cwd: prefix,
    env: userEnv({
      HOME: home(),
      SIYUAN_URL: sb.url,
      SIYUAN_TOKEN: sb.token,
      SISYPHUS_DATA_DIR: join(home(), "data"),
      SISYPHUS_CONFIG: join(home(), "config", "sisyphus.json"),
      ...env,
    }),
  });
}

describe("the packed cli and server", () => {
  it("carry no workspace ranges, source exports or dev-only files", () => {
    expect(packed.flatMap((p) => tarballProblems(p, PUBLISHED))).toEqual([]);
    const [cli, server] = packed as [Packed, Packed];
    expect(Object.keys(cli.manifest["dependencies"] as object)).toContain("@sisyphus/node-server");
    expect(server.files).toEqual(expect.arrayContaining(["dist/bin.cjs", "dist/server.cjs"]));
    expect(server.files).toContain("dist/index.d.ts");
  });

  it("the server's library declarations type-check in a strict NodeNext project", async () => {
    // A misuse the declarations must reject: an untyped `any` import would accept it, and the
    // unused directive would fail the check.
    const use = `import { parseConfig, startServer } from "@sisyphus/node-server";
import { AuthorityLink } from "@sisyphus/node-server/delegation";
const config = parseConfig(["--http", "--port", "0"], process.env);
// @ts-expect-error the log takes a line, not a number
void startServer(config, 42);
export { AuthorityLink };
`;
    writeFileSync(join(prefix, "use-server.mts"), use);
    const tsconfig = {
      compilerOptions: { ...STRICT_NODENEXT, noEmit: true },
      files: ["use-server.mts"],
    };
    writeFileSync(join(prefix, "tsconfig.json"), JSON.stringify(tsconfig));
    const tsc = join(prefix, "node_modules", "typescript", "bin", "tsc");
    const check = await run(process.execPath, [tsc, "-p", prefix], { cwd: prefix });
    expect(check.code, check.stdout + check.stderr).toBe(0);
  }, 120_000);

  it("installed, sisyphus answers --version and doctor", async () => {
    const version = await installed("sisyphus", ["--version"]);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(packed[0]?.manifest["version"]);
    const doctor = await installed("sisyphus", ["doctor", "--json"]);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    const checks = (
      JSON.parse(doctor.stdout).result.checks as Array<{ name: string; status: string }>
    ).map((c) => [c.name, c.status]);
    expect(checks).toEqual([
      ["cli", "ok"],
      ["kernel", "ok"],
      ["token", "ok"],
      ["settings", "ok"],
      ["plugin", "warn"],
      ["authority", "warn"],
    ]);
  });

  it("installed, sisyphus writes in two steps through the installed server as its authority", async () => {
    const id = DEMO_IDS.paragraphGoals;
    const pre = await installed("sisyphus", [
      ...["block", "update", "--id", id, "--data", "Installed from a tarball"],
      ...["--validate-only", "--json"],
    ]);
    expect(pre.code, pre.stderr).toBe(0);
    const next = JSON.parse(pre.stdout).next as string;
    const commit = await installed("sisyphus", [...words(next).slice(1), "--json"]);
    expect(commit.code, commit.stderr).toBe(0);
    expect(JSON.parse(commit.stdout).result.status).toBe("committed");
    expect(sb.control.kramdown(id)).toContain("Installed from a tarball");
    // The background authority is the installed server's launcher, not the workspace's.
    const record = JSON.parse(readFileSync(join(home(), "data", "authority.json"), "utf8"));
    const cmdline = readFileSync(`/proc/${record.pid}/cmdline`, "utf8").split("\0");
    expect(cmdline).toContain(
      join(prefix, "node_modules", "@sisyphus", "node-server", "dist", "bin.cjs"),
    );
  });

  it("installed, sisyphus-server answers --help, and names the optional demo kernel when it is missing", async () => {
    const help = await installed("sisyphus-server", ["--help"]);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^sisyphus-server: the MCP server for SiYuan/);
    const demo = await installed("sisyphus-server", ["--http", "--port", "0"], {
      SIYUAN_URL: "",
      SISYPHUS_DATA_DIR: join(home(), "demo-data"),
    });
    expect(demo.code).toBe(1);
    expect(demo.stderr).toMatch(/@sisyphus\/siyuan-sandbox, an optional peer dependency/);
    expect(demo.stderr).toMatch(/--siyuan-url/);
  });
});

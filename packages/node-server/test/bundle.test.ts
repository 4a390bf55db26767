/**
 * The MCP Bundle (issue 33): `scripts/bundle.mjs` packs a `.mcpb` that `@anthropic-ai/mcpb`
 * validates; unpacked into an empty directory outside the monorepo, it starts the way a desktop host
 * starts it — the manifest's `mcp_config` with `${__dirname}` and the user's configuration
 * substituted, over stdio — lists the tools and commits a strict write (preflight, then commit)
 * against the sandbox kernel through the background authority it starts from the bundle.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unpackExtension, validateManifest } from "@anthropic-ai/mcpb";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { DEMO_IDS, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBundle, hostVar } from "../scripts/bundle.mjs";
import { auditEnv, killAll, sc, strictUpdate, TOOL_NAMES, tempDataDir } from "./harness.js";

interface Manifest {
  name: string;
  version: string;
  server: {
    type: string;
    entry_point: string;
    mcp_config: { command: string; args: string[]; env: Record<string, string> };
  };
  tools: Array<{ name: string; description: string }>;
  user_config: Record<string, { type: string; required?: boolean; sensitive?: boolean }>;
}

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};

let sandbox: Sandbox;
let bundle: { file: string; bytes: number };
let unpacked: string;
let manifest: Manifest;

beforeAll(async () => {
  sandbox = await startSandbox({ seed: "demo" });
  bundle = await buildBundle({ outDir: mkdtempSync(join(tmpdir(), "sisyphus-mcpb-")) });
  unpacked = mkdtempSync(join(tmpdir(), "sisyphus-mcpb-unpacked-"));
  expect(readdirSync(unpacked)).toEqual([]);
  expect(await unpackExtension({ mcpbPath: bundle.file, outputDir: unpacked, silent: true })).toBe(
    true,
  );
  manifest = JSON.parse(readFileSync(join(unpacked, "manifest.json"), "utf8")) as Manifest;
});
afterAll(async () => {
  await killAll();
  await sandbox?.stop();
});

/** `value` with the host's substitutions: `${__dirname}` and `${user_config.<key>}`. */
function substitute(value: string, userConfig: Record<string, string>): string {
  return value
    .replaceAll(hostVar("__dirname"), unpacked)
    .replace(/\$\{user_config\.([a-z_]+)\}/g, (_, key: string) => {
      const v = userConfig[key];
      if (v === undefined) throw new Error(`no user_config value for ${key}`);
      return v;
    });
}

describe("the MCP Bundle", () => {
  it("is a valid .mcpb: the stdio server, the tools, the SiYuan URL and a sensitive token to configure", () => {
    expect(bundle.file).toMatch(
      new RegExp(`sisyphus-${pkg.version.replaceAll(".", "\\.")}\\.mcpb$`),
    );
    expect(validateManifest(join(unpacked, "manifest.json"))).toBe(true);
    expect(hostVar("__dirname")).toBe(["$", "{__dirname}"].join(""));
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.server).toMatchObject({ type: "node", entry_point: "server/bin.cjs" });
    expect(manifest.server.mcp_config.args).toEqual([
      `${hostVar("__dirname")}/server/bin.cjs`,
      "--stdio",
    ]);
    expect(manifest.tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    for (const t of manifest.tools) expect(t.description.length).toBeGreaterThan(10);
    expect(manifest.user_config["siyuan_url"]).toMatchObject({ type: "string", required: true });
    expect(manifest.user_config["siyuan_token"]).toMatchObject({ required: true, sensitive: true });
    expect(manifest.server.mcp_config.env).toEqual({
      SIYUAN_URL: hostVar("user_config.siyuan_url"),
      SIYUAN_TOKEN: hostVar("user_config.siyuan_token"),
      SISYPHUS_DATA_DIR: hostVar("user_config.data_dir"),
    });
    // The executable and its one run-time dependency, nothing of the monorepo.
    expect(readdirSync(unpacked).sort()).toEqual(["manifest.json", "server"]);
    expect(readdirSync(join(unpacked, "server")).sort()).toEqual([
      "bin.cjs",
      "import-esm.cjs",
      "node_modules",
      "server.cjs",
    ]);
    expect(readdirSync(join(unpacked, "server", "node_modules"))).toEqual(["undici"]);
  });

  it("started from the unpacked directory as a desktop host starts it, lists the tools and commits a strict write", async () => {
    const userConfig = {
      siyuan_url: sandbox.url,
      siyuan_token: sandbox.token,
      data_dir: tempDataDir(),
    };
    const { command, args, env } = manifest.server.mcp_config;
    expect(command).toBe("node");
    const client = new Client({ name: "desktop-host", version: "1.0.0" });
    const transport = new StdioClientTransport({
      // The host's own Node runs `node`; here, the Node running the tests.
      command: process.execPath,
      args: args.map((a) => substitute(a, userConfig)),
      env: {
        PATH: process.env["PATH"] ?? "",
        ...auditEnv(),
        ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, substitute(v, userConfig)])),
      },
      cwd: unpacked,
      stderr: "pipe",
    });
    await client.connect(transport);
    try {
      const listed = await client.listTools();
      expect(listed.tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);

      const writes = sandbox.control.count("/api/block/updateBlock");
      const text = "Status: written from the unpacked MCP Bundle";
      const { pre, commit } = await strictUpdate(client, DEMO_IDS.paragraphStatus, text);
      expect(pre["writeAttempted"]).toBe(false);
      expect(sc(commit)["status"], JSON.stringify(sc(commit))).toBe("committed");
      expect(sandbox.control.count("/api/block/updateBlock")).toBe(writes + 1);
      expect(sandbox.control.kramdown(DEMO_IDS.paragraphStatus)).toContain(text);
    } finally {
      await client.close();
    }
  });
});

/**
 * Builds the MCP Bundle (`.mcpb`, https://github.com/modelcontextprotocol/mcpb) of the stdio server:
 * `pnpm --filter @sisyphus/node-server bundle` after `pnpm build` writes
 * `packages/node-server/bundle/sisyphus-<version>.mcpb` (not committed); `--out DIR` writes it there.
 *
 * A desktop host unpacks the bundle and runs `node server/bin.cjs --stdio` from it with the user's
 * configuration in the environment (the manifest below). So the bundle holds everything the server
 * loads at run time outside the monorepo: the executable (`dist/bin.cjs`, `server.cjs`,
 * `import-esm.cjs`; the workspace packages, the SDK and zod are bundled into `server.cjs`, see
 * tsup.config.ts) and its one external a stdio process with a kernel URL uses, `undici` (the kernel
 * transport), copied as published. Left out: the embedded demo (`@sisyphus/siyuan-sandbox`: the
 * bundle always has a kernel URL), the source maps and the V8 code cache (made for the Node that ran
 * the build; any other Node ignores it, and on Node ≥ 22.1 the launcher keeps Node's own compile
 * cache beside `bin.cjs` instead). `@anthropic-ai/mcpb` validates the manifest and packs the zip.
 */
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { packExtension, validateManifest } from "@anthropic-ai/mcpb";
import { toolPurposes } from "@sisyphus/mcp-tools";

const pkgDir = resolve(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
const require = createRequire(join(pkgDir, "package.json"));

/** A placeholder the host replaces when it starts the server: `${name}` (MCPB manifest). */
export const hostVar = (/** @type {string} */ name) => `\${${name}}`;

/** The files of `dist/` the executable runs. */
const SERVER_FILES = ["bin.cjs", "server.cjs", "import-esm.cjs"];
/** What of the published `undici` package its `require("undici")` loads. */
const UNDICI_FILES = ["package.json", "index.js", "index-fetch.js", "lib", "LICENSE"];
/** The project's home: the kernel plugin's `plugin.json` names it. */
const HOME = JSON.parse(
  readFileSync(join(pkgDir, "..", "kernel-plugin", "plugin", "plugin.json"), "utf8"),
).url;

/** The bundle's `manifest.json` (MCPB manifest 0.3). */
export function bundleManifest() {
  return {
    manifest_version: "0.3",
    name: "sisyphus",
    display_name: "Sisyphus for SiYuan",
    version: pkg.version,
    description:
      "Edit your SiYuan notes with an AI agent without silently losing or duplicating a change (Strict Safe Writes).",
    long_description:
      "Sisyphus is an MCP server for the note app SiYuan. Every write is preflighted, checked against the block's current SHA-256 digest, written once, read back and recorded, so a retried or stale call never overwrites or repeats a change. Needs a running SiYuan (desktop or server) and its API token (SiYuan: Settings → About → API token).",
    author: { name: "Sisyphus", url: HOME },
    repository: { type: "git", url: HOME },
    homepage: HOME,
    license: pkg.license,
    keywords: ["siyuan", "notes", "mcp", "safe writes"],
    server: {
      type: "node",
      entry_point: "server/bin.cjs",
      mcp_config: {
        command: "node",
        args: [`${hostVar("__dirname")}/server/bin.cjs`, "--stdio"],
        env: {
          SIYUAN_URL: hostVar("user_config.siyuan_url"),
          SIYUAN_TOKEN: hostVar("user_config.siyuan_token"),
          SISYPHUS_DATA_DIR: hostVar("user_config.data_dir"),
        },
      },
    },
    tools: toolPurposes(),
    compatibility: {
      platforms: ["darwin", "linux"],
      runtimes: { node: pkg.engines.node },
    },
    user_config: {
      siyuan_url: {
        type: "string",
        title: "SiYuan URL",
        description: "Your SiYuan kernel's address (SiYuan desktop listens on port 6806).",
        required: true,
        default: "http://127.0.0.1:6806",
      },
      siyuan_token: {
        type: "string",
        title: "SiYuan API token",
        description: "SiYuan: Settings → About → API token.",
        required: true,
        sensitive: true,
      },
      data_dir: {
        type: "directory",
        title: "Data directory",
        description:
          "Where Sisyphus keeps its write ledger (never a note); shared with the sisyphus CLI and other hosts on this computer.",
        required: false,
        default: `${hostVar("HOME")}/.sisyphus`,
      },
    },
  };
}

/**
 * Stages and packs the bundle into `outDir`; returns the `.mcpb` path and its size in bytes.
 * @param {{ outDir?: string, silent?: boolean }} [options]
 * @returns {Promise<{ file: string, bytes: number }>}
 */
export async function buildBundle({ outDir = join(pkgDir, "bundle"), silent = true } = {}) {
  const dist = join(pkgDir, "dist");
  for (const f of SERVER_FILES) {
    try {
      statSync(join(dist, f));
    } catch {
      throw new Error(`bundle: ${join(dist, f)} is missing; run \`pnpm build\` first`);
    }
  }
  const stage = join(outDir, "stage");
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(join(stage, "server"), { recursive: true });
  for (const f of SERVER_FILES) copyFileSync(join(dist, f), join(stage, "server", f));
  const undici = dirname(require.resolve("undici/package.json"));
  for (const f of UNDICI_FILES) {
    cpSync(join(undici, f), join(stage, "server", "node_modules", "undici", f), {
      recursive: true,
    });
  }
  const manifest = join(stage, "manifest.json");
  writeFileSync(manifest, `${JSON.stringify(bundleManifest(), null, 2)}\n`);
  if (!validateManifest(manifest)) throw new Error("bundle: mcpb rejects manifest.json");
  const file = join(outDir, `sisyphus-${pkg.version}.mcpb`);
  rmSync(file, { force: true });
  if (!(await packExtension({ extensionPath: stage, outputPath: file, silent }))) {
    throw new Error("bundle: mcpb pack failed");
  }
  rmSync(stage, { recursive: true, force: true });
  return { file, bytes: statSync(file).size };
}

if (process.argv[1] === import.meta.filename) {
  const at = process.argv.indexOf("--out");
  const outDir = at > 0 ? resolve(process.argv[at + 1] ?? "") : undefined;
  const { file, bytes } = await buildBundle({ outDir, silent: false });
  console.log(`bundle: ${file} (${(bytes / 1024).toFixed(0)} KB)`);
}

/**
 * Builds the SiYuan plugin package: `dist/plugin/` (kernel.js, index.js, index.css, plugin.json,
 * icon.png, preview.png, README.md, i18n/) and `dist/package.zip` with those files at its root, as
 * SiYuan's marketplace and manual install expect.
 *
 * `index.js` (the settings panel) is bundled from `plugin/index.js` as CommonJS with `siyuan`
 * left to SiYuan's loader. It imports `@sisyphus/mcp-tools/settings` (the same parser both
 * runtimes use, so the panel validates exactly as they do) and `sisyphus:catalog`, the tool and
 * action names taken from the catalog at build time, so the list is never maintained by hand.
 *
 * `kernel.js` is one classic script at goja's language level (contract §6): esbuild `iife`,
 * es2022 with async iteration lowered and the regex features goja lacks turned into run-time
 * `RegExp` calls, then checked with the sandbox host's own language check; a bundle that fails it
 * fails the build.
 */
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, relative, resolve } from "node:path";
import { deflateSync } from "node:zlib";
import { checkLanguageLevel, writeZip } from "@sisyphus/siyuan-sandbox";
import { build } from "esbuild";
import { kernelBundleOptions } from "./kernel-bundle.mjs";

const pkg = resolve(import.meta.dirname, "..");
// Built in a staging folder and moved into `dist/` file by file (each a rename), so tests reading
// `dist/` while another build runs see every file whole, old or new, never missing.
const dist = join(pkg, "dist");
const staging = join(dist, `.staging-${process.pid}`);
const out = join(staging, "plugin");
rmSync(staging, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const result = await build({
  ...kernelBundleOptions(pkg, join(out, "kernel.js")),
  minifyWhitespace: true,
  metafile: true,
  logLevel: "warning",
});
const kernel = readFileSync(join(out, "kernel.js"), "utf8");
const violation = checkLanguageLevel(kernel);
if (violation !== null) {
  throw new Error(`kernel.js is not at goja's language level: ${JSON.stringify(violation)}`);
}

await build({
  entryPoints: [join(pkg, "plugin", "index.js")],
  outfile: join(out, "index.js"),
  bundle: true,
  format: "cjs",
  platform: "browser",
  target: "es2020",
  external: ["siyuan"],
  conditions: ["source", "import", "default"],
  plugins: [virtualModule("sisyphus:catalog", await catalogNames())],
  legalComments: "none",
  logLevel: "warning",
});

const assets = join(pkg, "plugin");
for (const name of readdirSync(assets, { recursive: true })) {
  const from = join(assets, String(name));
  if (statSync(from).isDirectory() || String(name) === "index.js") continue;
  mkdirSync(join(out, String(name), ".."), { recursive: true });
  copyFileSync(from, join(out, String(name)));
}

// The marketplace's images (icon 160×160, preview 1024×768), drawn here so no binary is committed.
writeFileSync(join(out, "icon.png"), png(160, 160));
writeFileSync(join(out, "preview.png"), png(1024, 768));

const files = new Map();
for (const name of readdirSync(out, { recursive: true })) {
  const path = join(out, String(name));
  if (!statSync(path).isDirectory())
    files.set(relative(out, path).replaceAll("\\", "/"), readFileSync(path));
}
writeFileSync(join(staging, "package.zip"), writeZip(files));
publish();
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.log(`kernel.js ${kib(kernel.length)}; package.zip ${files.size} files`);
void result;

/** Moves the staged files into `dist/` (replacing each by rename) and drops files no longer built. */
function publish() {
  const target = join(dist, "plugin");
  for (const name of files.keys()) {
    mkdirSync(join(target, name, ".."), { recursive: true });
    renameSync(join(out, name), join(target, name));
  }
  for (const name of readdirSync(target, { recursive: true })) {
    const path = join(target, String(name));
    const key = relative(target, path).replaceAll("\\", "/");
    if (!statSync(path).isDirectory() && !files.has(key)) rmSync(path);
  }
  renameSync(join(staging, "package.zip"), join(dist, "package.zip"));
  rmSync(staging, { recursive: true, force: true });
}

/**
 * The catalog's tools and actions, in catalog order: the catalog module bundled for Node (it
 * imports zod and write-safety) and evaluated here, so the panel lists what the runtimes serve.
 */
async function catalogNames() {
  const bundled = await build({
    entryPoints: [join(pkg, "..", "mcp-tools", "src", "catalog.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    conditions: ["source", "import", "default"],
    logLevel: "warning",
  });
  const code = Buffer.from(bundled.outputFiles[0].contents).toString("base64");
  const { ACTIONS, TOOL_NAMES } = await import(`data:text/javascript;base64,${code}`);
  return TOOL_NAMES.map((tool) => ({
    tool,
    actions: ACTIONS.filter((a) => a.tool === tool).map((a) => ({
      name: a.action,
      signature: a.signature,
      dangerous: a.dangerous !== false,
    })),
  }));
}

/** An esbuild plugin that serves `value` as the JSON module `name`. */
function virtualModule(name, value) {
  return {
    name,
    setup(b) {
      b.onResolve({ filter: new RegExp(`^${name}$`) }, () => ({ path: name, namespace: name }));
      b.onLoad({ filter: /.*/, namespace: name }, () => ({
        contents: JSON.stringify(value),
        loader: "json",
      }));
    },
  };
}

/** A PNG of the Sisyphus mark: a slope and a stone on a dark ground (RGB, no alpha). */
function png(width, height) {
  const rows = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      const u = x / width;
      const v = y / height;
      const slope = v > 0.85 - 0.6 * u;
      const dx = u - 0.62;
      const dy = v - (0.85 - 0.6 * 0.62) + 0.11;
      const stone = dx * dx * (width / height) ** 2 + dy * dy < 0.011;
      const [r, g, b] = stone ? [232, 184, 74] : slope ? [74, 98, 140] : [24, 28, 38];
      row.writeUInt8(r, 1 + x * 3);
      row.writeUInt8(g, 2 + x * 3);
      row.writeUInt8(b, 3 + x * 3);
    }
    rows.push(row);
  }
  const chunk = (type, data) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, "latin1");
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.writeUInt8(8, 8); // bit depth
  ihdr.writeUInt8(2, 9); // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.concat(rows))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

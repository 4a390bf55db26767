/**
 * `pnpm --filter @sisyphus/kernel-probes record -- --url <kernel> --token <t> --out <file>`:
 * runs every probe against a kernel and writes the normalised recording. Options: `--only <id,…>`
 * (a subset, for a look; never commit such a recording), `--kernel "SiYuan 3.7.3"`,
 * `--commit <sha>` (header fields).
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { PROBES } from "./probes/index.js";
import { makeRecording, runProbes } from "./runner.js";

// `pnpm … record -- --url …` may hand the `--` over: it is not a positional separator here
const argv = process.argv.slice(2).filter((a, i) => !(i === 0 && a === "--"));
const { values } = parseArgs({
  args: argv,
  options: {
    url: { type: "string" },
    token: { type: "string" },
    out: { type: "string" },
    only: { type: "string" },
    kernel: { type: "string", default: "SiYuan 3.7.3" },
    commit: { type: "string" },
  },
  allowPositionals: true,
});

if (!values.url || !values.token || !values.out) {
  process.stderr.write(
    "usage: record --url <kernel URL> --token <API token> --out <file.json> [--only id,…] [--kernel name] [--commit sha]\n",
  );
  process.exit(2);
}
const only = values.only?.split(",").map((s) => s.trim());
const probes = only
  ? PROBES.filter((p) => only.some((o) => p.id === o || p.id.startsWith(`${o}.`)))
  : PROBES;
const started = Date.now();
const records = await runProbes(
  { url: values.url.replace(/\/$/, ""), token: values.token },
  {
    probes,
    onProbe: (id, r, ms) =>
      process.stderr.write(
        `${r.error ? "!" : " "} ${id} (${ms} ms)${r.error ? `: ${r.error}` : ""}\n`,
      ),
  },
);
const command = [
  "pnpm --filter @sisyphus/kernel-probes record --",
  `--url ${values.url}`,
  "--token <token>",
  `--out ${values.out}`,
  ...(values.commit ? [`--commit ${values.commit}`] : []),
  ...(values.only ? [`--only ${values.only}`] : []),
].join(" ");
const recording = makeRecording(
  {
    kernel: values.kernel ?? "SiYuan 3.7.3",
    ...(values.commit ? { commit: values.commit } : {}),
    recordedAt: new Date().toISOString().slice(0, 10),
    command,
  },
  records,
);
// pnpm --filter runs the script in the package folder: `--out recordings/…` lands there
const out = resolve(values.out);
writeFileSync(out, `${JSON.stringify(recording, null, 2)}\n`);
process.stderr.write(`${probes.length} probes in ${Date.now() - started} ms -> ${out}\n`);

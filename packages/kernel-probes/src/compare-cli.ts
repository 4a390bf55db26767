/**
 * `pnpm --filter @sisyphus/kernel-probes compare [-- --only id,… --all]`: runs the probes against a
 * fresh sandbox and prints every field that differs from the committed recording and is not
 * accepted in `docs/fidelity.md` (`--all`: accepted ones too). Exit code 1 when any is left.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { compareRecords, covers, parseAccepted } from "./compare.js";
import { FIDELITY_DOC, RECORDING_FILE } from "./files.js";
import { PROBES } from "./probes/index.js";
import type { Recording } from "./runner.js";
import { runAgainstSandbox } from "./sandbox-run.js";

const argv = process.argv.slice(2).filter((a, i) => !(i === 0 && a === "--"));
const { values } = parseArgs({
  args: argv,
  options: { only: { type: "string" }, all: { type: "boolean" }, recording: { type: "string" } },
});
const only = values.only?.split(",").map((s) => s.trim());
const probes = only
  ? PROBES.filter((p) => only.some((o) => p.id === o || p.id.startsWith(`${o}.`)))
  : PROBES;
const recording = JSON.parse(readFileSync(values.recording ?? RECORDING_FILE, "utf8")) as Recording;
const accepted = parseAccepted(readFileSync(FIDELITY_DOC, "utf8"));
const actual = await runAgainstSandbox({ probes });
const expected = Object.fromEntries(
  probes.filter((p) => p.id in recording.probes).map((p) => [p.id, recording.probes[p.id]!]),
);
let left = 0;
for (const m of compareRecords(expected, actual)) {
  const row = accepted.find((r) => covers(r, m));
  if (row && !values.all) continue;
  if (!row) left += 1;
  process.stdout.write(
    `${row ? "accepted" : "MISMATCH"} ${m.probe} ${m.path}\n  real:    ${JSON.stringify(m.expected)}\n  sandbox: ${JSON.stringify(m.actual)}\n`,
  );
}
process.stdout.write(`${left} unaccepted mismatch(es) over ${probes.length} probes\n`);
process.exit(left > 0 ? 1 : 0);

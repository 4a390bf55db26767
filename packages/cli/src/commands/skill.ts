/**
 * `sisyphus skill list|read|install`: the agent skill this version ships (generated from the
 * catalog, the same files the MCP server serves as resources). `install --target DIR` writes
 * `DIR/<skill name>/…` and records what it wrote (`.sisyphus-skill.json`: each file's SHA-256), so a
 * later install replaces files it wrote itself but refuses a file someone changed since — or one it
 * did not write — unless `--force`. Nothing is written when any file is refused.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { SKILL_NAME, skillFiles, skillManifest } from "@sisyphus/mcp-tools";
import { CliError } from "../errors.js";
import { EXIT } from "../exit-codes.js";
import { type Io, out, table } from "../io.js";

const RECORD = ".sisyphus-skill.json";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(EXIT.error, "io_error", `cannot read ${path}: ${(e as Error).message}`);
  }
}

/** What an earlier install wrote: path → SHA-256. */
function installedDigests(dir: string): Record<string, string> {
  const text = readText(join(dir, RECORD));
  if (text === undefined) return {};
  try {
    return (JSON.parse(text) as { files?: Record<string, string> }).files ?? {};
  } catch {
    return {};
  }
}

function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export function runSkill(io: Io, words: readonly string[]): number {
  const [sub, ...rest] = words;
  const emit = (result: unknown, lines: string[]) => {
    if (io.json) out(io, JSON.stringify({ exitCode: 0, result }));
    else for (const l of lines) out(io, l);
    return EXIT.ok;
  };
  if (sub === "list") {
    const m = skillManifest();
    return emit(m, [
      `${m.name}: ${m.description}`,
      ...table(m.files.map((f) => [f.path, `${f.size} bytes`, f.sha256])).map((l) => `  ${l}`),
    ]);
  }
  if (sub === "read") {
    const path = rest[0] ?? "SKILL.md";
    const file = skillFiles().find((f) => f.path === path);
    if (file === undefined)
      throw new CliError(
        EXIT.usage,
        "usage",
        `the skill has no file ${path} (sisyphus skill list)`,
      );
    if (io.json) return emit({ path, text: file.text }, []);
    io.stdout.write(file.text.endsWith("\n") ? file.text : `${file.text}\n`);
    return EXIT.ok;
  }
  if (sub !== "install")
    throw new CliError(
      EXIT.usage,
      "usage",
      "sisyphus skill list|read [FILE]|install --target DIR [--force]",
    );
  let values: { target?: string | undefined; force?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { target: { type: "string" }, force: { type: "boolean" } },
      strict: true,
    }));
  } catch (e) {
    throw new CliError(EXIT.usage, "usage", `skill install: ${(e as Error).message}`);
  }
  if (values.target === undefined)
    throw new CliError(
      EXIT.usage,
      "usage",
      "skill install needs --target DIR (an agent host's skills folder)",
    );
  const dir = join(resolve(values.target), SKILL_NAME);
  const before = installedDigests(dir);
  const plan = skillFiles().map((f) => {
    const path = join(dir, f.path);
    const current = readText(path);
    const state =
      current === undefined
        ? "new"
        : current === f.text
          ? "same"
          : before[f.path] === sha256(current)
            ? "ours"
            : "changed";
    return { file: f, path, state };
  });
  const refused = plan.filter((p) => p.state === "changed");
  if (refused.length > 0 && values.force !== true) {
    throw new CliError(
      EXIT.safety,
      "file_changed",
      `${refused.map((p) => p.path).join(", ")} changed since Sisyphus wrote it (or was not written by it); nothing was written. Pass --force to replace it.`,
    );
  }
  mkdirSync(dir, { recursive: true });
  for (const p of plan) if (p.state !== "same") writeAtomic(p.path, p.file.text);
  writeAtomic(
    join(dir, RECORD),
    `${JSON.stringify({ name: SKILL_NAME, files: Object.fromEntries(plan.map((p) => [p.file.path, sha256(p.file.text)])) }, null, 2)}\n`,
  );
  return emit(
    {
      dir,
      files: plan.map((p) => ({
        path: p.file.path,
        action: p.state === "same" ? "unchanged" : p.state === "new" ? "written" : "replaced",
      })),
    },
    plan.map(
      (p) =>
        `${p.state === "same" ? "unchanged" : p.state === "new" ? "written  " : "replaced "} ${p.path}`,
    ),
  );
}

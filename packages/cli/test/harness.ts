/**
 * The real `sisyphus` executable (`bin/sisyphus.cjs` running `dist/cli.cjs`, built by
 * `pnpm --filter @sisyphus/cli build`)
 * spawned against a sandbox kernel over loopback, each run with its own data directory, config
 * file and home; background authorities it starts are killed after the file's tests.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Sandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { shellQuote } from "../src/flag-parse.js";

/** What users run: the installed command's launcher, which loads the built `dist/cli.cjs`. */
export const CLI = resolve(import.meta.dirname, "..", "bin", "sisyphus.cjs");
const PROGRAM = resolve(import.meta.dirname, "..", "dist", "cli.cjs");

const dirs = new Set<string>();

/** A private temporary directory, removed with its background authority by {@link killAuthorities}. */
export function tempDir(prefix = "sisyphus-cli-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

/** Everything one run needs: the kernel, a data directory, a config file and a home of its own. */
export interface Scene {
  readonly env: Record<string, string>;
  readonly dataDir: string;
  readonly configFile: string;
}

export function scene(
  sb: Sandbox | { url: string; token: string },
  extra: Record<string, string> = {},
): Scene {
  const home = tempDir("sisyphus-home-");
  const dataDir = join(home, "data");
  const configFile = join(home, "config", "sisyphus.json");
  return {
    dataDir,
    configFile,
    env: {
      PATH: process.env["PATH"] ?? "",
      HOME: home,
      SIYUAN_URL: sb.url,
      SIYUAN_TOKEN: sb.token,
      SISYPHUS_DATA_DIR: dataDir,
      SISYPHUS_CONFIG: configFile,
      ...extra,
    },
  };
}

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI to completion. */
export function cli(
  s: Scene,
  args: readonly string[],
  options: { input?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  return new Promise((done, fail) => {
    if (!existsSync(PROGRAM))
      fail(new Error(`${PROGRAM} is missing: pnpm --filter @sisyphus/cli build`));
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...s.env, ...options.env },
      stdio: "pipe",
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

/** Starts the CLI and hands the running child back (for signals). */
export function start(
  s: Scene,
  args: readonly string[],
): { child: ChildProcess; done: Promise<Run>; stderr: () => string } {
  const child = spawn(process.execPath, [CLI, ...args], { env: s.env, stdio: "pipe" });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Run>((r) => child.on("close", (code) => r({ code, stdout, stderr })));
  return { child, done, stderr: () => stderr };
}

/** The JSON document a `--json` run printed. */
export function doc(run: Run): {
  exitCode: number;
  result: Record<string, unknown>;
  next?: string;
  taskId?: string;
  error?: { code: string };
} {
  try {
    return JSON.parse(run.stdout) as ReturnType<typeof doc>;
  } catch {
    throw new Error(
      `not one JSON document on stdout (exit ${run.code}):\n${run.stdout}\nstderr:\n${run.stderr}`,
    );
  }
}

/** The error code of a `--json` run's tool answer. */
export function errorCode(run: Run): string | undefined {
  const d = doc(run);
  return d.error?.code ?? (d.result?.["error"] as { code?: string } | undefined)?.code;
}

/** Splits the `next` command line the CLI printed (POSIX single-quote rules, as `shellQuote` writes). */
export function words(line: string): string[] {
  const out: string[] = [];
  const re = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (const m of line.matchAll(re))
    out.push(m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : (m[2] as string));
  return out;
}

/** Kills every background authority the runs started. */
export function killAuthorities(): void {
  for (const dir of dirs) {
    try {
      const { pid } = JSON.parse(readFileSync(join(dir, "data", "authority.json"), "utf8")) as {
        pid: number;
      };
      process.kill(pid, "SIGKILL");
    } catch {
      // none started, or gone already
    }
  }
}

/** Runs the CLI inside a pseudo-terminal; `answer` is typed once `prompt` shows. */
export function inTerminal(
  s: Scene,
  args: readonly string[],
  dialogue?: { prompt: RegExp; answer: string },
  env: Record<string, string> = {},
) {
  // A terminal window of 100 columns (the pseudo-terminal starts with none).
  const command = `stty cols 100 rows 40; ${[process.execPath, CLI, ...args].map(shellQuote).join(" ")}`;
  const child = spawn("script", ["-qec", command, "/dev/null"], {
    env: { ...s.env, TERM: "xterm-256color", ...env },
    stdio: "pipe",
  });
  let screen = "";
  child.stdout.on("data", (d: Buffer) => (screen += d.toString()));
  const done = new Promise<{ code: number | null; screen: string }>((r) =>
    child.on("close", (code) => r({ code, screen })),
  );
  if (dialogue) {
    void waitFor(() => dialogue.prompt.test(screen), {
      what: "the prompt",
      timeoutMs: 30_000,
    }).then(
      () => child.stdin.write(dialogue.answer),
      () => child.kill("SIGKILL"), // the test then fails on the exit code, with the screen
    );
  }
  return done;
}

/**
 * `sisyphus block update --id ID --data DATA --validate-only --json` run to completion: the
 * preflight's document and the commit command it printed (as arguments, with `--json`).
 */
export async function preflightUpdate(
  s: Scene,
  id: string,
  data: string,
): Promise<{ preflight: ReturnType<typeof doc>; commit: string[] }> {
  const run = await cli(s, [
    "block",
    "update",
    "--id",
    id,
    "--data",
    data,
    "--validate-only",
    "--json",
  ]);
  const preflight = doc(run);
  if (typeof preflight.next !== "string") {
    throw new Error(
      `the preflight printed no commit command (exit ${run.code}): ${run.stdout}${run.stderr}`,
    );
  }
  return { preflight, commit: [...words(preflight.next).slice(1), "--json"] };
}

/**
 * `sisyphus`: parses the global flags, resolves the configuration (flags > profile > environment >
 * defaults) and runs one command. Every outcome ends in one exit code (`exit-codes.ts`); with
 * `--json` stdout carries exactly one JSON document and diagnostics go to stderr.
 *
 * A tool call is the command a start must make fast: only its modules load with the program.
 * Every other command is imported when it runs (the catalog's views, the skill and the
 * completions load zod and the whole catalog).
 */
import { SISYPHUS_VERSION } from "@sisyphus/mcp-tools/shell/gate";
import { actionOf, runCall } from "./commands/call.js";
import { resolveConfig } from "./config.js";
import { CliError } from "./errors.js";
import { EXIT } from "./exit-codes.js";
import type { Io } from "./io.js";
import { renderFailure } from "./render.js";

const VALUE_FLAGS = new Set([
  "siyuan-url",
  "token-env",
  "data-dir",
  "authority-url",
  "auth-token-env",
  "profile",
  "output",
]);
const BOOLEAN_FLAGS: Record<string, string> = {
  "--yes": "yes",
  "-y": "yes",
  "--no-autostart": "no-autostart",
  "--no-color": "no-color",
  "--help": "help",
  "-h": "help",
  "--version": "version",
  "-v": "version",
};

interface Parsed {
  readonly values: Record<string, string | undefined>;
  readonly switches: Set<string>;
  readonly json: boolean;
  readonly jsonArgs: Record<string, unknown> | undefined;
  /** The command words and the action's own flags, in order. */
  readonly rest: string[];
}

function usage(message: string): CliError {
  return new CliError(EXIT.usage, "usage", message);
}

/** Takes the global flags out of `argv`, wherever they stand. */
export function parseGlobal(argv: readonly string[]): Parsed {
  const values: Record<string, string | undefined> = {};
  const switches = new Set<string>();
  const rest: string[] = [];
  let json = false;
  let jsonArgs: Record<string, unknown> | undefined;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    const eq = token.indexOf("=");
    const name = token.startsWith("--") ? token.slice(2, eq > 0 ? eq : undefined) : undefined;
    if (name !== undefined && VALUE_FLAGS.has(name)) {
      const value = eq > 0 ? token.slice(eq + 1) : argv[++i];
      if (value === undefined) throw usage(`--${name} needs a value`);
      values[name] = value;
    } else if (token === "--json") {
      json = true;
      const next = argv[i + 1];
      if (next?.trimStart().startsWith("{") === true) {
        i++;
        try {
          const parsed: unknown = JSON.parse(next);
          if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
            throw new Error();
          jsonArgs = parsed as Record<string, unknown>;
        } catch {
          throw usage("--json: the arguments must be one JSON object");
        }
      }
    } else if (BOOLEAN_FLAGS[token] !== undefined) {
      switches.add(BOOLEAN_FLAGS[token] as string);
    } else {
      rest.push(token);
    }
  }
  return { values, switches, json, jsonArgs, rest };
}

type Env = Readonly<Record<string, string | undefined>>;

/** The commands other than a tool call, loaded when one runs. */
const lazy = () => import("./commands/lazy.js");

/** Runs one invocation; returns its exit code. */
export async function run(
  argv: readonly string[],
  env: Env,
  streams: Pick<Io, "stdout" | "stderr" | "stdin">,
): Promise<number> {
  const stdoutTty = (streams.stdout as { isTTY?: boolean }).isTTY === true;
  let io: Io = {
    ...streams,
    interactive:
      streams.stdin.isTTY === true && (streams.stderr as { isTTY?: boolean }).isTTY === true,
    json: argv.includes("--json") || argv.includes("--output=json"),
    color: false,
  };
  try {
    if (argv[0] === "__complete") {
      const { runComplete } = await lazy();
      return runComplete(io, argv.slice(1));
    }
    const p = parseGlobal(argv);
    const config =
      p.rest[0] === "config" ||
      p.rest[0] === "completion" ||
      p.rest[0] === "skill" ||
      p.rest[0] === "list" ||
      p.rest[0] === "help" ||
      p.switches.has("help") ||
      p.switches.has("version")
        ? undefined
        : resolveConfig(p.values, env);
    const output = p.values["output"] ?? config?.output;
    if (output !== undefined && output !== "human" && output !== "json")
      throw usage(`--output: "${output}" must be human or json`);
    io = {
      ...io,
      json: p.json || output === "json",
      color:
        stdoutTty &&
        !p.switches.has("no-color") &&
        (env["NO_COLOR"] ?? "") === "" &&
        env["TERM"] !== "dumb",
    };
    const [command, second, third] = p.rest;
    if (p.switches.has("version")) {
      io.stdout.write(`${SISYPHUS_VERSION}\n`);
      return EXIT.ok;
    }
    if (p.switches.has("help") || command === undefined) {
      const { runHelp, USAGE } = await lazy();
      if (command !== undefined && command !== "help") return runHelp(io, command, second);
      if (command === undefined && !p.switches.has("help")) {
        io.stderr.write(`${USAGE}\n`);
        return EXIT.usage;
      }
      return runHelp(io, second, third);
    }
    switch (command) {
      case "list":
        return (await lazy()).runList(io);
      case "help":
        return (await lazy()).runHelp(io, second, third);
      case "completion":
        return (await lazy()).runCompletion(io, second);
      case "skill":
        return (await lazy()).runSkill(io, p.rest.slice(1));
      case "config":
        return (await lazy()).runConfig(io, env, p.values, p.rest.slice(1));
      case "doctor":
        return await (await lazy()).runDoctor(io, resolveConfig(p.values, env));
      case "task":
        return await (await lazy()).runTask(io, resolveConfig(p.values, env), second, third);
      case "snapshot":
        return await (await lazy()).runSnapshot(
          io,
          resolveConfig(p.values, env),
          p.rest.slice(1),
          !p.switches.has("no-autostart"),
        );
      default: {
        const surface = actionOf(command, second);
        return await runCall(io, resolveConfig(p.values, env), surface, p.rest.slice(2), {
          yes: p.switches.has("yes"),
          autostart: !p.switches.has("no-autostart"),
          json: p.jsonArgs,
        });
      }
    }
  } catch (e) {
    if (e instanceof CliError) {
      renderFailure(io, e.code, e.message, e.exit);
      return e.exit;
    }
    renderFailure(io, "internal_error", e instanceof Error ? e.message : String(e), EXIT.error);
    return EXIT.error;
  }
}

/** Resolves once everything written to `stream` so far has been handed to the system. */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) resolve();
    else stream.write("", () => resolve());
  });
}

/**
 * The executable (the launcher `bin/sisyphus.cjs` calls it): run, then exit with the code as soon
 * as stdout and stderr are flushed. Waiting for the event loop to empty instead cost every call
 * about 40 ms (the kernel connection of the settings read idles until its keep-alive ends); a flush
 * that never completes (a reader that stopped reading) ends after 2 s, as before.
 */
export function main(): void {
  // A reader that stops early (`sisyphus list | head`) is not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
  run(process.argv.slice(2), process.env, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
  }).then(async (code) => {
    process.exitCode = code;
    setTimeout(() => process.exit(code), 2_000).unref();
    await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
    process.exit(code);
  });
}

/**
 * The command line of `sisyphus <tool> <action>` turned into a tool call's arguments and back,
 * from the action's flag specs alone (no zod, no catalog: `action-index.ts` holds every action's
 * specs, so a read loads neither). `flags.ts` derives the specs from the catalog's schemas and
 * checks the arguments against them.
 */
import { parseArgs } from "node:util";
import { CliError } from "./errors.js";
import { EXIT } from "./exit-codes.js";

/** The JSON type of one argument, as the CLI converts its text. */
export type FlagKind = "string" | "number" | "integer" | "boolean" | "array" | "object" | "enum";

/** One flag of an action: a business argument of its schema, or a safety field of its policy. */
export interface FlagSpec {
  /** The flag without dashes, kebab-case. */
  readonly flag: string;
  /** The argument name in the tool call. */
  readonly key: string;
  readonly kind: FlagKind;
  /** Allowed values of an enum. */
  readonly values?: readonly string[];
  /** Item type of an array. */
  readonly items?: FlagKind;
  readonly required: boolean;
  /** A safety field rather than a business argument. */
  readonly safety: boolean;
}

/** An action as the command line names it: its tool, canonical name and flags. */
export interface FlagTarget {
  readonly tool: string;
  readonly action: string;
  readonly flags: readonly FlagSpec[];
}

/** `parentID` → `parent-id`, `expectedStateHash` → `expected-state-hash`, `orderedIDs` → `ordered-ids`. */
export function kebab(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .toLowerCase();
}

/** A usage error (exit 2): nothing was sent. */
export function usageError(message: string): never {
  throw new CliError(EXIT.usage, "usage", message);
}

function jsonValue(flag: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return usageError(`--${flag}: not valid JSON: ${text.slice(0, 80)}`);
  }
}

function scalar(spec: FlagSpec, kind: FlagKind | undefined, text: string): unknown {
  switch (kind) {
    case "number":
    case "integer": {
      const n = Number(text);
      if (text.trim() === "" || !Number.isFinite(n))
        usageError(`--${spec.flag}: "${text}" is not a number`);
      return n;
    }
    case "boolean":
      if (text === "true") return true;
      if (text === "false") return false;
      return usageError(`--${spec.flag}: "${text}" is not true or false`);
    case "object":
      return jsonValue(spec.flag, text);
    default:
      return text;
  }
}

/**
 * The tool call's arguments from the action's part of the command line (`argv` after
 * `<tool> <action>`) and an optional `--json` object, converted by the flags' kinds (not yet
 * checked against the schema). A flag and the JSON naming the same argument is a usage error.
 */
export function parseFlags(
  target: FlagTarget,
  argv: readonly string[],
  json: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = {};
  for (const s of target.flags) {
    if (s.kind === "boolean") {
      options[s.flag] = { type: "boolean" };
      options[`no-${s.flag}`] = { type: "boolean" };
    } else {
      options[s.flag] = { type: "string", ...(s.kind === "array" ? { multiple: true } : {}) };
    }
  }
  let values: Record<string, unknown>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: true,
    }));
  } catch (e) {
    return usageError(`${target.tool} ${target.action}: ${(e as Error).message}`);
  }
  if (positionals.length > 0) {
    usageError(`${target.tool} ${target.action}: unexpected argument "${positionals[0]}"`);
  }
  const args: Record<string, unknown> = { ...(json ?? {}) };
  for (const s of target.flags) {
    const given = values[s.flag];
    const negated = values[`no-${s.flag}`];
    if (given === undefined && negated === undefined) continue;
    if (s.key in args) usageError(`--${s.flag} and --json both give ${s.key}`);
    if (s.kind === "boolean") {
      if (given !== undefined && negated !== undefined)
        usageError(`--${s.flag} and --no-${s.flag} both given`);
      args[s.key] = given !== undefined;
    } else if (s.kind === "array") {
      const texts = given as string[];
      const only = texts.length === 1 ? texts[0] : undefined;
      args[s.key] =
        only?.trimStart().startsWith("[") === true
          ? jsonValue(s.flag, only)
          : texts.map((t) => scalar(s, s.items, t));
    } else {
      args[s.key] = scalar(s, s.kind, given as string);
    }
  }
  return args;
}

/** The command line that gives `args` to this action again (for the preflight's "next" line). */
export function commandLine(target: FlagTarget, args: Record<string, unknown>): string {
  const specs = new Map(target.flags.map((s) => [s.key, s]));
  const parts = ["sisyphus", target.tool, target.action];
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    const spec = specs.get(key);
    if (spec === undefined) {
      rest[key] = value;
    } else if (spec.kind === "boolean") {
      parts.push(value === true ? `--${spec.flag}` : `--no-${spec.flag}`);
    } else if (spec.kind === "array" || spec.kind === "object") {
      parts.push(`--${spec.flag}`, shellQuote(JSON.stringify(value)));
    } else {
      parts.push(`--${spec.flag}`, shellQuote(String(value)));
    }
  }
  if (Object.keys(rest).length > 0) parts.push("--json", shellQuote(JSON.stringify(rest)));
  return parts.join(" ");
}

/** POSIX shell quoting: bare when safe, else single quotes. */
export function shellQuote(text: string): string {
  if (/^[A-Za-z0-9_./:@%+=,-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The flags of `sisyphus <tool> <action>`, derived from the action's zod schema in the
 * `@sisyphus/mcp-tools` catalog (the same schema the MCP surface advertises and the server
 * enforces): `parentID` → `--parent-id`, strings and enums take a value, numbers are checked as
 * numbers, booleans are `--flag` / `--no-flag`, arrays repeat the flag (or take one JSON array),
 * objects take JSON. The safety flags (`--validate-only`, `--request-id`, the credential of the
 * action's precondition kind) come from the action's policy. Everything is checked against the
 * schema before any request (exit 2).
 */
import { parseArgs } from "node:util";
import { type ActionSurface, preconditionFieldName, safetyFields } from "@sisyphus/mcp-tools";
import { z } from "zod";
import { CliError } from "./errors.js";
import { EXIT } from "./exit-codes.js";

/** The JSON type of one argument, as the CLI converts its text. */
export type FlagKind = "string" | "number" | "integer" | "boolean" | "array" | "object" | "enum";

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

/** `parentID` → `parent-id`, `expectedStateHash` → `expected-state-hash`, `orderedIDs` → `ordered-ids`. */
export function kebab(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .toLowerCase();
}

type Json = Record<string, unknown>;

function kindOf(schema: Json): { kind: FlagKind; values?: string[] } {
  if (Array.isArray(schema["enum"])) return { kind: "enum", values: schema["enum"].map(String) };
  const type = schema["type"];
  if (type === "string" || type === "number" || type === "integer" || type === "boolean") {
    return { kind: type };
  }
  if (type === "array") return { kind: "array" };
  return { kind: "object" };
}

/** The flags of one action, business arguments first, then its safety flags. */
export function flagsOf(surface: ActionSurface): FlagSpec[] {
  const schema = z.toJSONSchema(surface.args, { io: "input", unrepresentable: "any" }) as Json;
  const properties = (schema["properties"] ?? {}) as Record<string, Json>;
  const required = new Set((schema["required"] ?? []) as string[]);
  const flags: FlagSpec[] = Object.entries(properties).map(([key, prop]) => {
    const { kind, values } = kindOf(prop);
    const items = kind === "array" ? kindOf((prop["items"] ?? {}) as Json).kind : undefined;
    return {
      flag: kebab(key),
      key,
      kind,
      ...(values ? { values } : {}),
      ...(items ? { items } : {}),
      required: required.has(key),
      safety: false,
    };
  });
  const policy = surface.policy;
  if (policy.kind === "mutation") {
    const safety: Array<[string, FlagKind]> = [
      ["validateOnly", "boolean"],
      ["requestId", "string"],
    ];
    if (policy.precondition !== "none") {
      safety.push([preconditionFieldName(policy.precondition), "string"]);
    }
    for (const [key, kind] of safety) {
      flags.push({ flag: kebab(key), key, kind, required: false, safety: true });
    }
  }
  return flags;
}

function fail(message: string): never {
  throw new CliError(EXIT.usage, "usage", message);
}

function jsonValue(flag: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fail(`--${flag}: not valid JSON: ${text.slice(0, 80)}`);
  }
}

function scalar(spec: FlagSpec, kind: FlagKind | undefined, text: string): unknown {
  switch (kind) {
    case "number":
    case "integer": {
      const n = Number(text);
      if (text.trim() === "" || !Number.isFinite(n))
        fail(`--${spec.flag}: "${text}" is not a number`);
      return n;
    }
    case "boolean":
      if (text === "true") return true;
      if (text === "false") return false;
      return fail(`--${spec.flag}: "${text}" is not true or false`);
    case "object":
      return jsonValue(spec.flag, text);
    default:
      return text;
  }
}

/**
 * The tool call's arguments from the action's part of the command line (`argv` after
 * `<tool> <action>`) and an optional `--json` object, checked against the action's schema and the
 * safety fields. A flag and the JSON naming the same argument is a usage error.
 */
export function parseActionArgs(
  surface: ActionSurface,
  argv: readonly string[],
  json: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const specs = flagsOf(surface);
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = {};
  for (const s of specs) {
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
    return fail(`${surface.tool} ${surface.action}: ${(e as Error).message}`);
  }
  if (positionals.length > 0) {
    fail(`${surface.tool} ${surface.action}: unexpected argument "${positionals[0]}"`);
  }
  const args: Record<string, unknown> = { ...(json ?? {}) };
  for (const s of specs) {
    const given = values[s.flag];
    const negated = values[`no-${s.flag}`];
    if (given === undefined && negated === undefined) continue;
    if (s.key in args) fail(`--${s.flag} and --json both give ${s.key}`);
    if (s.kind === "boolean") {
      if (given !== undefined && negated !== undefined)
        fail(`--${s.flag} and --no-${s.flag} both given`);
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
  check(surface, args);
  return args;
}

function issuesText(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const where =
        i.path.length > 0
          ? `--${kebab(String(i.path[0]))}${i.path.length > 1 ? `.${i.path.slice(1).join(".")}` : ""}`
          : "arguments";
      return `${where}: ${i.message}`;
    })
    .join("; ");
}

/** zod's parse options for a schema parsed once: the same result, without compiling a fast path. */
const ONE_SHOT = { jitless: true } as const;

/** Checks business arguments and safety fields against the schemas; usage error otherwise. */
function check(surface: ActionSurface, args: Record<string, unknown>): void {
  const specs = flagsOf(surface);
  const safetyKeys = new Set(specs.filter((s) => s.safety).map((s) => s.key));
  const business: Record<string, unknown> = {};
  const safety: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (safetyKeys.has(k) || k === "confirm") safety[k] = v;
    else business[k] = v;
  }
  // One parse per schema and process: zod's eval-compiled fast path costs more to build than it saves.
  const b = surface.args.safeParse(business, ONE_SHOT);
  if (!b.success) fail(`${surface.tool} ${surface.action}: ${issuesText(b.error)}`);
  const s = safetyFields.safeParse(safety, ONE_SHOT);
  if (!s.success) fail(`${surface.tool} ${surface.action}: ${issuesText(s.error)}`);
}

/** The command line that gives `args` to this action again (for the preflight's "next" line). */
export function commandLine(surface: ActionSurface, args: Record<string, unknown>): string {
  const specs = new Map(flagsOf(surface).map((s) => [s.key, s]));
  const parts = ["sisyphus", surface.tool, surface.action];
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

/**
 * The flags of `sisyphus <tool> <action>`, derived from the action's zod schema in the
 * `@sisyphus/mcp-tools` catalog (the same schema the MCP surface advertises and the server
 * enforces): `parentID` → `--parent-id`, strings and enums take a value, numbers are checked as
 * numbers, booleans are `--flag` / `--no-flag`, arrays repeat the flag (or take one JSON array),
 * objects take JSON. The safety flags (`--validate-only`, `--request-id`, the credential of the
 * action's precondition kind) come from the action's policy. A call's arguments are checked
 * against the schema (exit 2); writes are checked before any request. This module loads zod and
 * the catalog: a read's command line is parsed without it (`flag-parse.ts`, `action-index.ts`).
 */
import {
  type ActionSurface,
  findAction,
  policyOf,
  preconditionFieldName,
  safetyFields,
} from "@sisyphus/mcp-tools";
import { z } from "zod";
import { type FlagKind, type FlagSpec, kebab, usageError } from "./flag-parse.js";

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

/**
 * Checks a parsed call of `tool`'s `action` (a canonical name) against its schemas and returns
 * the policy kind of these arguments. @throws CliError (exit 2) when they do not pass.
 */
export function checkCall(
  tool: string,
  action: string,
  args: Record<string, unknown>,
): "read" | "mutation" | "external" {
  const surface = findAction(tool, action);
  if (surface === undefined) return usageError(`${tool} has no action "${action}"`);
  check(surface, args);
  return policyOf(surface, args).kind;
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
  if (!b.success) usageError(`${surface.tool} ${surface.action}: ${issuesText(b.error)}`);
  const s = safetyFields.safeParse(safety, ONE_SHOT);
  if (!s.success) usageError(`${surface.tool} ${surface.action}: ${issuesText(s.error)}`);
}

/**
 * What agents see in `tools/list`: one tool per area with an `action` argument, a compact input
 * schema (the union of the area's fields; per-action rules are enforced on the server with clear
 * errors), and a description that lists each action's signature and which ones need preflight.
 *
 * The tool surface is an agent's context budget, so nothing here repeats what `system.bootstrap`
 * explains once.
 */
import type { z } from "zod";
import {
  ACTIONS,
  type ActionSurface,
  type PreconditionKind,
  preconditionFieldName,
  TOOL_NAMES,
  type ToolName,
} from "./catalog.js";
import type { TurnedOff } from "./tool-access.js";

/** One advertised tool. */
export interface ToolDescriptor {
  readonly name: ToolName;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly annotations: { readonly readOnlyHint: boolean; readonly destructiveHint: boolean };
}

const PURPOSE: Record<ToolName, string> = {
  block: "SiYuan blocks by ID; data is Markdown unless dataType:dom",
  document:
    "SiYuan documents by ID; notebook = a notebook ID (notebook.list, or the notebook field of document answers)",
  fs: "SiYuan documents by path /<notebook name>/<title>/…",
  file: "Files in the SiYuan workspace; assets go to data/assets/, templates to data/templates/",
  notebook: "SiYuan notebooks; notebook = ID from list",
  search: "Search SiYuan (read-only)",
  tag: "SiYuan tags",
  av: "SiYuan databases (attribute views); id = avID (not the block's ID)",
  history: "SiYuan document history: restore points by document ID",
  flashcard: "SiYuan flashcards (riff): decks, a block's card, reviews",
  system: "this MCP server's write protocol, versions and health; call bootstrap first",
  extension:
    "SiYuan's built-in MCP tools (native, plugin, configured servers), outside Sisyphus's guarantee",
  feedback: "Feedback from the user to the destination they configured",
};

type JsonSchema = Record<string, unknown>;

/**
 * What an agent is told about one argument: its JSON type (`string`, `integer`, …), or its `enum`,
 * and for arrays the item type (objects as plain `{type: "object"}`). Nothing else: lengths,
 * patterns and defaults are enforced on the server with clear errors.
 *
 * Read straight from the zod definition. This is what `z.toJSONSchema(args, {io: "input"})` would
 * say for each property once reduced to those keys (a test holds the two equal for every action),
 * without generating full JSON Schemas on the way to the first `tools/list`.
 */
function compactProperty(schema: z.core.$ZodType): JsonSchema {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  switch (def.type) {
    case "string":
    case "boolean":
      return { type: def.type };
    case "number": {
      // `z.int()` is itself an integer-format check; `.int()` adds one to `checks`.
      const checks = [def, ...((def.checks ?? []) as z.core.$ZodCheck[]).map((c) => c._zod.def)];
      const isInt = checks.some(
        (c) =>
          c.check === "number_format" && String((c as { format?: unknown }).format).includes("int"),
      );
      return { type: isInt ? "integer" : "number" };
    }
    case "enum":
      return { enum: Object.values(def["entries"] as Record<string, string>) };
    case "object":
    case "record":
      return { type: "object" };
    case "array": {
      const items = compactProperty(def["element"] as z.core.$ZodType);
      if (items["type"] === "object") return { type: "array", items: { type: "object" } };
      return Object.keys(items).length > 0 ? { type: "array", items } : { type: "array" };
    }
    case "optional":
    case "nullable":
    case "default":
      return compactProperty(def["innerType"] as z.core.$ZodType);
    case "pipe":
      return compactProperty(def["in"] as z.core.$ZodType);
    default:
      return {};
  }
}

function propertiesOf(surface: ActionSurface): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [key, value] of Object.entries(surface.args.shape)) {
    out[key] = compactProperty(value as z.core.$ZodType);
  }
  return out;
}

function strictKinds(actions: readonly ActionSurface[]): Map<PreconditionKind, string[]> {
  const kinds = new Map<PreconditionKind, string[]>();
  for (const a of actions) {
    if (a.policy.kind !== "mutation") continue;
    const list = kinds.get(a.policy.precondition) ?? [];
    list.push(a.action);
    kinds.set(a.policy.precondition, list);
  }
  // fs.write is additive unless overwrite: name it under "none" too.
  for (const a of actions) {
    if (a.policyFor && a.policy.kind === "mutation") {
      const list = kinds.get("none") ?? [];
      list.push(`${a.action}(new)`);
      kinds.set("none", list);
    }
  }
  return kinds;
}

/**
 * The descriptor of one tool, offering `actions` (default: all of the tool's; the settings may turn
 * some off). With `strict` false the legacy surface is returned: no preflight fields, and a
 * description that says writes carry no safety guarantee.
 */
export function describeTool(
  tool: ToolName,
  strict: boolean,
  actions: readonly ActionSurface[] = ACTIONS.filter((a) => a.tool === tool),
): ToolDescriptor {
  const properties: Record<string, JsonSchema> = {
    action: { enum: actions.map((a) => a.action) },
  };
  for (const a of actions) {
    for (const [key, value] of Object.entries(propertiesOf(a))) {
      if (!(key in properties)) properties[key] = value;
    }
  }
  const parts = [`${PURPOSE[tool]}. Actions: ${actions.map((a) => a.signature).join("; ")}.`];
  const kinds = strictKinds(actions);
  if (strict && kinds.size > 0) {
    properties["validateOnly"] = { type: "boolean" };
    properties["requestId"] = { type: "string" };
    const rules: string[] = [];
    for (const [kind, names] of kinds) {
      if (kind === "none") {
        rules.push(`${names.join(",")}: requestId only`);
      } else {
        const field = preconditionFieldName(kind);
        properties[field] = { type: "string" };
        rules.push(`${names.join(",")}: ${field}`);
      }
    }
    parts.push(
      `Writes: call with validateOnly:true; once it answers (never batched with it), resend the same arguments plus its requestId and the hash field its preconditionField names (copied, never guessed), by action: ${rules.join("; ")}. A resent commit never writes twice.`,
    );
  } else if (kinds.size > 0) {
    parts.push("Strict Safe Writes off: writes are unguarded.");
  }
  const dangerous = actions
    .filter((a) => a.dangerous !== false)
    .map((a) => (a.dangerous === true ? a.action : `${a.action}(to another doc)`));
  if (dangerous.length > 0) {
    // Advertised so that clients validating calls against the schema keep it.
    properties["confirm"] = { type: "boolean" };
    // How the user is asked is said where it is known: in the preflight answer (`nextCall`), or
    // for external actions in the refusal of an unconfirmed call.
    parts.push(`User confirms: ${dangerous.join(",")}.`);
  }
  const externals = actions.filter((a) => a.policy.kind === "external").map((a) => a.action);
  if (externals.length > 0) {
    parts.push(
      `${externals.join(",")} ${externals.length > 1 ? "are" : "is"} external: no validateOnly.`,
    );
  }
  return {
    name: tool,
    description: parts.join(" "),
    inputSchema: { type: "object", properties, required: ["action"] },
    annotations: {
      readOnlyHint: actions.every((a) => a.policy.kind === "read"),
      destructiveHint: dangerous.length > 0,
    },
  };
}

/**
 * Every listed tool's descriptor, in catalog order: with `off`, a tool whose actions are all turned
 * off is left out and the others offer only their enabled actions.
 */
export function describeTools(strict: boolean, off?: TurnedOff): ToolDescriptor[] {
  if (off === undefined) return TOOL_NAMES.map((t) => describeTool(t, strict));
  const out: ToolDescriptor[] = [];
  for (const tool of TOOL_NAMES) {
    const actions = off.enabledActions(tool);
    if (actions.length > 0) out.push(describeTool(tool, strict, actions));
  }
  return out;
}

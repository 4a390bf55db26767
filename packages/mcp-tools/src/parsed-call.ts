/**
 * A tool call parsed once, at the edge: the tool, the action (an alias resolved to its canonical
 * name, so everything after, the lease scope included, sees one name), the business arguments
 * through the action's zod schema with its handler applied to them, and the safety fields.
 * Classification, the commit's prechecks, confirmation and execution all take the one
 * {@link ParsedCall}; nothing after {@link parseCall} parses the call's arguments again, so no two
 * steps can disagree about what the call is.
 *
 * Business arguments are what the lease scope hashes; the safety fields (`validateOnly`,
 * `requestId`, the `expected*Hash` credential, confirmation) are split off before hashing and
 * parsed separately, so a call can never smuggle a safety field into its business digest. Which
 * names are safety fields is write-safety's decision (`isSafetyArgumentField`), the same one its
 * lease scope uses.
 */
import { isSafetyArgumentField } from "@sisyphus/write-safety";
import { z } from "zod";
import {
  ACTIONS,
  type ActionPolicy,
  type ActionSurface,
  findAction,
  policyOf,
  TOOL_NAMES,
  type ToolName,
} from "./catalog.js";
import { type BoundCall, bindCall } from "./dispatch.js";
import { ToolError } from "./errors.js";

/**
 * The safety fields this package understands, parsed apart from business arguments. Strict: a name
 * write-safety treats as a safety field but that a tool call cannot carry (e.g. `requestState`,
 * which travels in the MCP request, or an unknown `expected*Hash`) is refused, not dropped.
 */
export const safetyFields = z.strictObject({
  validateOnly: z.boolean().optional(),
  requestId: z.string().min(1).max(64).optional(),
  expectedStateHash: z.string().max(80).optional(),
  expectedStructureHash: z.string().max(80).optional(),
  expectedManifestHash: z.string().max(80).optional(),
  expectedSourceHash: z.string().max(80).optional(),
  confirm: z.boolean().optional(),
});

/** Splits raw tool arguments into `action`, business arguments and safety fields. */
export function splitArguments(raw: Record<string, unknown>): {
  action: unknown;
  business: Record<string, unknown>;
  safety: Record<string, unknown>;
} {
  const business: Record<string, unknown> = {};
  const safety: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === "action") continue;
    if (isSafetyArgumentField(key)) safety[key] = value;
    else business[key] = value;
  }
  return { action: raw["action"], business, safety };
}

/** How a call is classified before it runs: the part of a {@link ParsedCall} every step reads. */
export interface CallClass {
  readonly kind: "read" | "mutation" | "external" | "invalid";
  /**
   * Always needs the user's confirmation. An action whose danger depends on the state (block.move
   * across documents) is `false` here: its commit answers `confirmation_required` from the probe,
   * before any write, and the shell then asks and calls again with `confirmed`.
   */
  readonly dangerous: boolean;
  readonly validateOnly: boolean;
  /** The canonical action, when the call names a known one (its arguments may still be invalid). */
  readonly action?: string;
}

/** A call whose tool, action, business arguments and safety fields all parsed. */
export interface ValidCall extends CallClass {
  readonly kind: ActionPolicy["kind"];
  readonly tool: ToolName;
  readonly action: string;
  /**
   * The arguments as the caller gave them (without the shell's `confirm`): what a delegating
   * process forwards to its authority and what a confirmation is bound to.
   */
  readonly args: Readonly<Record<string, unknown>>;
  readonly surface: ActionSurface;
  /** The policy of these parsed arguments (`fs.write` with `overwrite` is another than without). */
  readonly policy: ActionPolicy;
  readonly safety: z.output<typeof safetyFields>;
  /**
   * A paged read that gave no `pageSize`: it takes the settings' (`options.pageSize`), which is
   * known only once the call's settings are, after this parse ({@link ValidCall.boundUnder}).
   */
  readonly pageSizeDefaulted: boolean;
  /**
   * The parsed business arguments with the action's handler applied, under a call's settings'
   * page size (applied only when {@link pageSizeDefaulted}; `undefined`: the schema's default).
   */
  boundUnder(pageSize: number | undefined): BoundCall;
}

/** A call refused at the parse: an unknown tool or action, or invalid arguments. Nothing ran. */
export interface InvalidCall extends CallClass {
  readonly kind: "invalid";
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** `unknown_tool`, `unknown_action` or `invalid_arguments`: the call's answer wherever it goes. */
  readonly error: ToolError;
}

/** One call, parsed once: valid, or refused with the typed error every step answers. */
export type ParsedCall = ValidCall | InvalidCall;

function issuesText(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length > 0 ? i.path.join(".") : "(arguments)"}: ${i.message}`)
    .join("; ");
}

function isToolName(tool: string): tool is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(tool);
}

function invalid(tool: string, args: Readonly<Record<string, unknown>>, error: ToolError) {
  const action = findAction(tool, args["action"])?.action;
  const refused: InvalidCall = {
    kind: "invalid",
    dangerous: false,
    validateOnly: false,
    ...(action === undefined ? {} : { action }),
    tool,
    args,
    error,
  };
  return refused;
}

/**
 * Parses one call: the tool, the action, the business arguments against the action's schema
 * (unknown keys, missing or malformed arguments fail here, before any kernel call) and the safety
 * fields. Never throws for the caller's input: a refusal is an {@link InvalidCall}.
 */
export function parseCall(tool: string, args: Readonly<Record<string, unknown>>): ParsedCall {
  if (!isToolName(tool)) {
    return invalid(
      tool,
      args,
      new ToolError(
        "unknown_tool",
        `no tool named ${tool}; the tools are ${TOOL_NAMES.join(", ")}`,
      ),
    );
  }
  const { action, business, safety } = splitArguments(args);
  const surface = findAction(tool, action);
  if (!surface) {
    return invalid(
      tool,
      args,
      new ToolError("unknown_action", `${tool} has no action ${JSON.stringify(action)}`, {
        actions: ACTIONS.filter((a) => a.tool === tool).map((a) => a.action),
      }),
    );
  }
  const bound = bindCall(surface, business);
  if (!bound.ok) {
    return invalid(
      tool,
      args,
      new ToolError(
        "invalid_arguments",
        `${tool}.${surface.action}: ${issuesText(bound.error)} (signature: ${surface.signature})`,
      ),
    );
  }
  const s = safetyFields.safeParse(safety);
  if (!s.success) {
    return invalid(
      tool,
      args,
      new ToolError(
        "invalid_arguments",
        `${tool}.${surface.action}: ${issuesText(s.error)}; copy requestId and the credential exactly as preflight returned them`,
      ),
    );
  }
  const policy = policyOf(surface, bound.call.args);
  const { call, pagedBy } = bound;
  return {
    kind: policy.kind,
    dangerous: surface.dangerous === true,
    validateOnly: s.data.validateOnly === true,
    action: surface.action,
    tool,
    args,
    surface,
    policy,
    safety: s.data,
    pageSizeDefaulted: pagedBy !== undefined,
    boundUnder: (pageSize) =>
      pagedBy === undefined || pageSize === undefined ? call : pagedBy(pageSize),
  };
}

/**
 * The commit a preflight leads to, without parsing anything again: the same business arguments
 * (and so the same bound call), its safety fields without `validateOnly` and with `credentials`,
 * the preflight answer's own `requestId` and credential field (issued by this server, so not
 * checked again here; the commit's checks resolve them against the leases).
 */
export function commitOf(
  preflight: ValidCall,
  credentials: Readonly<{ requestId: string } & Record<string, string>>,
): ValidCall {
  const { validateOnly: _v, ...args } = preflight.args;
  const { validateOnly: _s, ...safety } = preflight.safety;
  return {
    ...preflight,
    validateOnly: false,
    args: { ...args, ...credentials },
    safety: { ...safety, ...credentials },
  };
}

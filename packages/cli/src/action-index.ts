/**
 * The actions a command line can name, without zod or the catalog: each action's tool, canonical
 * name and other spellings, policy kind, danger and flags, generated from the catalog
 * (`action-index.generated.ts`, kept in step by its test). A read is parsed, checked against its
 * JSON Schema and sent with this alone; a write loads the catalog to check its arguments first
 * (`flags.ts`).
 */
import { ACTION_ENTRIES } from "./action-index.generated.js";
import type { FlagSpec, FlagTarget } from "./flag-parse.js";

/** One action of the catalog, as the CLI needs it to parse and send a call. */
export interface ActionEntry extends FlagTarget {
  readonly tool: string;
  /** The canonical action name. */
  readonly action: string;
  /** Other accepted spellings. */
  readonly aliases: readonly string[];
  /** The widest policy's kind. */
  readonly kind: "read" | "mutation" | "external";
  /** Whether the policy depends on the arguments (then the catalog decides per call). */
  readonly policyFor: boolean;
  /** Whether runtimes ask the user to confirm: always, never, or when it crosses documents. */
  readonly dangerous: boolean | "cross_document";
  readonly flags: readonly FlagSpec[];
  /**
   * A read whose policy does not depend on its arguments: its arguments' JSON Schema (the
   * catalog's, as advertised), checked before it is sent without loading zod (`schema-gate.ts`).
   */
  readonly schema?: Readonly<Record<string, unknown>>;
}

/** The tools, in catalog order. */
export const TOOLS: readonly string[] = [...new Set(ACTION_ENTRIES.map((e) => e.tool))];

const BY_SPELLING = new Map<string, ActionEntry>();
for (const e of ACTION_ENTRIES) {
  for (const name of [e.action, ...e.aliases]) BY_SPELLING.set(`${e.tool}.${name}`, e);
}

/** The action of `tool` spelled `action` (canonical or alias), or `undefined`. */
export function findEntry(tool: string, action: string): ActionEntry | undefined {
  return BY_SPELLING.get(`${tool}.${action}`);
}

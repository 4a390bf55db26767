/**
 * The scope of a lease and of a request ID: tool + action + digest of the business arguments +
 * sorted, de-duplicated target IDs. Safety fields never enter the argument digest, so the preflight
 * (`validateOnly: true`) and the commit (`requestId`, `expected*Hash`) of one call share a scope.
 */
import { type StateDigest, stateHash } from "@sisyphus/core-hash";
import { PRECONDITION_FIELDS } from "./policy.js";

/**
 * Top-level argument names that are protocol, not business, stripped before hashing: the one list
 * every layer uses. `validateOnly`, `requestId`, the credential fields (`expectedStateHash`,
 * `expectedStructureHash`, `expectedManifestHash`, `expectedSourceHash`) and the confirmation
 * fields (`confirm`, `confirmation`, `requestState`).
 */
export const SAFETY_ARGUMENT_FIELDS: readonly string[] = Object.freeze([
  "validateOnly",
  "requestId",
  ...PRECONDITION_FIELDS,
  "confirm",
  "confirmation",
  "requestState",
]);

const EXPECTED_HASH = /^expected[A-Za-z]*Hash$/;

/**
 * True for top-level argument names that are stripped from the business-argument digest: the
 * {@link SAFETY_ARGUMENT_FIELDS}, and any other `expected*Hash` (a credential under a field this
 * version does not know is still not business).
 */
export function isSafetyArgumentField(name: string): boolean {
  return SAFETY_ARGUMENT_FIELDS.includes(name) || EXPECTED_HASH.test(name);
}

/** Input of {@link leaseScope}. `args` are the arguments exactly as received. */
export interface LeaseScopeInput {
  tool: string;
  action: string;
  args: Readonly<Record<string, unknown>>;
  targetIds: readonly string[];
}

/** A computed scope. `key` identifies it; two calls share a lease or request ID only if their keys are equal. */
export interface LeaseScope {
  readonly tool: string;
  readonly action: string;
  /** `stateHash` of the business arguments (safety fields removed). */
  readonly argsDigest: StateDigest;
  /** Sorted (UTF-16 code-unit order), de-duplicated. */
  readonly targetIds: readonly string[];
  /** `stateHash({v: 1, tool, action, argsDigest, targetIds})`. */
  readonly key: StateDigest;
}

/** The business arguments: `args` without the fields {@link isSafetyArgumentField} names. */
export function businessArguments(
  args: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(args)) {
    if (!isSafetyArgumentField(name)) out[name] = args[name];
  }
  return out;
}

/** Compute the scope of a call. Pure; throws only what core-hash's `stateHash` throws for unhashable values. */
export function leaseScope(input: LeaseScopeInput): LeaseScope {
  const argsDigest = stateHash(businessArguments(input.args));
  const targetIds = [...new Set(input.targetIds)].sort();
  const key = stateHash({ v: 1, tool: input.tool, action: input.action, argsDigest, targetIds });
  return Object.freeze({
    tool: input.tool,
    action: input.action,
    argsDigest,
    targetIds: Object.freeze(targetIds),
    key,
  });
}

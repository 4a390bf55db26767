/**
 * Action policy: every action is a `read`, an `external` side effect, or a `mutation` with a
 * precondition kind. An action without a policy is refused by the coordinator, never treated as a read.
 */

/** What protects a mutation: the kind of state digest its preflight leases, or `none` for additive actions. */
export type PreconditionKind = "state" | "structure" | "manifest" | "source" | "none";

/** The credential field a mutation's commit carries, named after its precondition kind. */
export type PreconditionField =
  | "expectedStateHash"
  | "expectedStructureHash"
  | "expectedManifestHash"
  | "expectedSourceHash";

/**
 * The safety class of one action.
 * - `read`: does not go through the coordinator.
 * - `external`: a side effect that cannot be read back (export, notification, sync, feedback, extension
 *   forwards); runs once in the write lane, answers `writeSafetyGuaranteed: false`.
 * - `mutation`: strict; `precondition` names the digest its preflight leases (`none` = additive:
 *   no hash, but still a preflight-issued request ID).
 */
export type ActionPolicy =
  | { readonly kind: "read" }
  | { readonly kind: "external" }
  | { readonly kind: "mutation"; readonly precondition: PreconditionKind };

/** Tool name → action name → policy. Plain objects; only own properties count. */
export type PolicyRegistry = Readonly<Record<string, Readonly<Record<string, ActionPolicy>>>>;

/** The read policy. */
export const READ_POLICY: ActionPolicy = Object.freeze({ kind: "read" });
/** The external-side-effect policy. */
export const EXTERNAL_POLICY: ActionPolicy = Object.freeze({ kind: "external" });
/** A mutation policy with the given precondition kind. */
export function mutationPolicy(precondition: PreconditionKind): ActionPolicy {
  return Object.freeze({ kind: "mutation", precondition });
}

/** `Object.hasOwn` without needing an ES2022 runtime (the kernel plugin host may be older). */
const hasOwn = (o: object, key: string): boolean => Object.hasOwn(o, key);

const FIELDS: Readonly<Record<Exclude<PreconditionKind, "none">, PreconditionField>> = {
  state: "expectedStateHash",
  structure: "expectedStructureHash",
  manifest: "expectedManifestHash",
  source: "expectedSourceHash",
};

/** The credential field of a precondition kind; `null` for `none` (additive actions carry no hash). */
export function preconditionField(kind: Exclude<PreconditionKind, "none">): PreconditionField;
export function preconditionField(kind: PreconditionKind): PreconditionField | null;
export function preconditionField(kind: PreconditionKind): PreconditionField | null {
  return kind === "none" ? null : FIELDS[kind];
}

/** The policy of `tool.action`, or `undefined` when the registry has none (callers must then refuse). */
export function policyFor(
  registry: PolicyRegistry,
  tool: string,
  action: string,
): ActionPolicy | undefined {
  if (!hasOwn(registry, tool)) return undefined;
  const actions = registry[tool]!;
  if (!hasOwn(actions, action)) return undefined;
  const policy = actions[action];
  return isActionPolicy(policy) ? policy : undefined;
}

/** True when `value` is a well-formed {@link ActionPolicy}. */
export function isActionPolicy(value: unknown): value is ActionPolicy {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { kind?: unknown; precondition?: unknown };
  if (v.kind === "read" || v.kind === "external") return true;
  return (
    v.kind === "mutation" &&
    (v.precondition === "none" ||
      (typeof v.precondition === "string" && hasOwn(FIELDS, v.precondition)))
  );
}

/**
 * Completeness check: the `tool.action` pairs that exist but have no well-formed policy in
 * `registry`, in input order. Tools keep a test asserting this is empty for every action they expose.
 */
export function missingPolicies(
  registry: PolicyRegistry,
  actions: Iterable<{ tool: string; action: string }>,
): Array<{ tool: string; action: string }> {
  const missing: Array<{ tool: string; action: string }> = [];
  for (const { tool, action } of actions) {
    if (policyFor(registry, tool, action) === undefined) missing.push({ tool, action });
  }
  return missing;
}

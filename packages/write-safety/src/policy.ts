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

/** The read policy. */
export const READ_POLICY: ActionPolicy = Object.freeze({ kind: "read" });
/** The external-side-effect policy. */
export const EXTERNAL_POLICY: ActionPolicy = Object.freeze({ kind: "external" });
/** A mutation policy with the given precondition kind. */
export function mutationPolicy(precondition: PreconditionKind): ActionPolicy {
  return Object.freeze({ kind: "mutation", precondition });
}

/**
 * `Object.hasOwn` without needing it: it is ES2022, and the kernel plugin host may be older. The
 * bare-context test runs the bundle without it, so a lint "fix" back to `Object.hasOwn` fails there.
 */
const hasOwn = (o: object, key: string): boolean =>
  // biome-ignore lint/suspicious/noPrototypeBuiltins: Object.hasOwn is ES2022 (see above)
  Object.prototype.hasOwnProperty.call(o, key);

const FIELDS: Readonly<Record<Exclude<PreconditionKind, "none">, PreconditionField>> = {
  state: "expectedStateHash",
  structure: "expectedStructureHash",
  manifest: "expectedManifestHash",
  source: "expectedSourceHash",
};

/** Every credential field, in the order of the precondition kinds. */
export const PRECONDITION_FIELDS: readonly PreconditionField[] = Object.freeze(
  Object.values(FIELDS),
);

/** The credential field of a precondition kind; `null` for `none` (additive actions carry no hash). */
export function preconditionField(kind: Exclude<PreconditionKind, "none">): PreconditionField;
export function preconditionField(kind: PreconditionKind): PreconditionField | null;
export function preconditionField(kind: PreconditionKind): PreconditionField | null {
  return kind === "none" ? null : FIELDS[kind];
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

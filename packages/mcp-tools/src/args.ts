/**
 * Zod schemas of every action's business arguments, and the safety fields a strict call may add.
 *
 * Business arguments are what the lease scope hashes; the safety fields (`validateOnly`,
 * `requestId`, the `expected*Hash` credential, confirmation) are stripped before hashing and are
 * parsed separately, so a call can never smuggle a safety field into its business digest.
 */
import { z } from "zod";

/** A SiYuan node ID: 14 timestamp digits, a dash, 7 lowercase letters or digits. */
export const NODE_ID_PATTERN = /^\d{14}-[a-z0-9]{7}$/;

/** A node ID (block, document, or notebook). */
export const nodeId = z
  .string()
  .regex(NODE_ID_PATTERN, "must be a SiYuan ID like 20260101120000-abc1234");

/** Markdown by default; `dom` sends block DOM HTML as the kernel accepts it. */
export const dataType = z.enum(["markdown", "dom"]).default("markdown");

/** An attribute map; `null` or "" deletes an attribute (as the kernel does). */
export const attrMap = z
  .record(z.string().min(1), z.string().nullable())
  .refine((m) => Object.keys(m).length > 0, "must name at least one attribute");

/** A path of the fs tool: `/<notebook name>/<title>/<title>…`. */
export const fsPath = z
  .string()
  .regex(/^\/[^/]+(\/[^/]+)*\/?$/, "must look like /<notebook name>/<doc title>/…");

/** A sort-mode number as the kernel uses them (0–15). */
export const sortMode = z.number().int().min(0).max(15);

/** The fields a strict call may carry besides its business arguments. */
export const SAFETY_FIELDS = [
  "validateOnly",
  "requestId",
  "expectedStateHash",
  "expectedStructureHash",
  "expectedManifestHash",
  "expectedSourceHash",
  "confirm",
] as const;

/** Safety fields, parsed apart from business arguments. */
export const safetyFields = z.object({
  validateOnly: z.boolean().optional(),
  requestId: z.string().min(1).max(64).optional(),
  expectedStateHash: z.string().max(80).optional(),
  expectedStructureHash: z.string().max(80).optional(),
  expectedManifestHash: z.string().max(80).optional(),
  expectedSourceHash: z.string().max(80).optional(),
  confirm: z.boolean().optional(),
});

/** Parsed safety fields of one call. */
export type SafetyFields = z.infer<typeof safetyFields>;

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
    if ((SAFETY_FIELDS as readonly string[]).includes(key)) safety[key] = value;
    else business[key] = value;
  }
  return { action: raw["action"], business, safety };
}

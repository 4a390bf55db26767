/**
 * Zod schemas of the business arguments actions share, and the split of a call's raw arguments
 * into `action`, business arguments and safety fields.
 *
 * Business arguments are what the lease scope hashes; the safety fields (`validateOnly`,
 * `requestId`, the `expected*Hash` credential, confirmation) are stripped before hashing and are
 * parsed separately, so a call can never smuggle a safety field into its business digest. Which
 * names are safety fields is write-safety's decision (`isSafetyArgumentField`), the same one its
 * lease scope uses.
 */
import { NODE_ID_PATTERN } from "@sisyphus/siyuan-api/kernel";
import { isSafetyArgumentField } from "@sisyphus/write-safety";
import { z } from "zod";
import { attrNameProblem } from "./attr-names.js";

/** A node ID (block, document, or notebook). */
export const nodeId = z
  .string()
  .regex(NODE_ID_PATTERN, "must be a SiYuan ID like 20260101120000-abc1234");

/**
 * A notebook argument: always the notebook's ID, never its name (names are not unique). The
 * message names where IDs come from, since an agent often has only the name.
 */
export const notebookId = z
  .string()
  .regex(
    NODE_ID_PATTERN,
    "must be a notebook ID like 20260101120000-abc1234, not a name: notebook.list gives each notebook's ID",
  );

/** Markdown by default; `dom` sends block DOM HTML as the kernel accepts it. */
export const dataType = z.enum(["markdown", "dom"]).default("markdown");

/**
 * An attribute map; `null` or "" deletes an attribute (as the kernel does). Every name must pass
 * {@link attrNameProblem} (the kernel's name rule, minus the names the kernel manages itself), so a
 * name the kernel would refuse or that would overwrite kernel-managed state never reaches a lease.
 */
export const attrMap = z
  .record(z.string().min(1), z.string().nullable())
  .refine((m) => Object.keys(m).length > 0, "must name at least one attribute")
  .superRefine((m, ctx) => {
    for (const name of Object.keys(m)) {
      const problem = attrNameProblem(name);
      if (problem !== undefined) ctx.addIssue({ code: "custom", path: [name], message: problem });
    }
  });

/** A path of the fs tool: `/<notebook name>/<title>/<title>…`. */
export const fsPath = z
  .string()
  .regex(/^\/[^/]+(\/[^/]+)*\/?$/, "must look like /<notebook name>/<doc title>/…");

/** A sort-mode number as the kernel uses them (0–15). */
export const sortMode = z.number().int().min(0).max(15);

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

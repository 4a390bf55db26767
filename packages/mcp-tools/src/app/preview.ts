/**
 * The write preview behind the App: given the arguments of a strict write's preflight, what a person
 * checks before confirming — a one-sentence summary, each thing changed before → after in their
 * words (a block's first line and its document, a document's title and path, attribute values, a
 * new place's neighbours, what a removal loses), texts as word diffs, an order before and after,
 * and which precondition guards it. Every strict mutation has one: its entry in the preview table
 * (`preview-table.ts`). Reads only, under the caller's read permission; it issues no lease and
 * never hashes (the aliased hash is the preflight's, which the App already holds).
 */

import {
  ACTIONS,
  type ActionSurface,
  findAction,
  policyOf,
  preconditionFieldName,
} from "../catalog.js";
import { ToolError } from "../errors.js";
import type { KernelReads } from "../kernel.js";
import { splitArguments } from "../parsed-call.js";
import type { PermissionMap } from "../permissions.js";
import { type DiffOp, diffText } from "./diff.js";
import { PreviewReads } from "./preview-reads.js";
import { previewEntryOf } from "./preview-table.js";

/** What a preview shows, by group. */
export type PreviewKind =
  | "content"
  | "attributes"
  | "removal"
  | "placement"
  | "creation"
  | "rename"
  | "order";

/**
 * One thing the write changes, before → after, in a person's words: `before` `null` where it does
 * not exist yet (a creation), `after` `null` where it will be gone (a removal).
 */
export interface PreviewChange {
  /** What it is: `block`, `document`, `title`, an attribute's name, `place`, `row`, `column`, … */
  readonly what: string;
  readonly id?: string;
  /** Where it lives: `/<notebook>/<document path>`, a database's name, a folder. */
  readonly where?: string;
  readonly before: string | null;
  readonly after: string | null;
}

/** One text of a content preview (a block, a document, a template) as a word diff. */
export interface ContentChange {
  readonly id: string;
  /** Where the text lives: `/<notebook>/<document path>` or a template's path. */
  readonly document: string;
  readonly before: string;
  readonly after: string;
  readonly diff: readonly DiffOp[];
}

/** One document of an order preview. */
export interface OrderItem {
  readonly id: string;
  readonly title: string;
  readonly moved: boolean;
}

/** What the App shows before a strict write (and `write_preview` answers as text). */
export interface WritePreview {
  readonly tool: string;
  readonly action: string;
  /** Every strict mutation has a before/after view: the preview table has an entry for each. */
  readonly supported: true;
  /** The group of what is shown. */
  readonly shows: PreviewKind;
  /** One sentence: what the write will do. */
  readonly summary: string;
  readonly target: Record<string, unknown>;
  /** The precondition kind and the argument carrying its (aliased) hash; `null` for additive writes. */
  readonly precondition: { readonly kind: string; readonly field: string } | null;
  /** Each thing changed, before → after. */
  readonly changes: readonly PreviewChange[];
  /** Texts before → after as word diffs (changed, removed or added content). */
  readonly content?: readonly ContentChange[];
  readonly order?: { readonly before: readonly OrderItem[]; readonly after: readonly OrderItem[] };
  /** Blocks beyond the most a content preview shows that it leaves out. */
  readonly omitted?: number;
}

/**
 * The action of a preflight's arguments. The App may not know the tool's name (a host need not
 * pass it), so without `tool` the action decides among the tools whose catalog parses the
 * business arguments (`reorder(parentID,…)` is the document tool's, `reorder(path,…)` the fs tool's).
 */
export function resolveAction(
  tool: string | undefined,
  args: Record<string, unknown>,
): { surface: ActionSurface; business: Record<string, unknown> } {
  const { action, business } = splitArguments(args);
  const candidates =
    tool !== undefined
      ? [findAction(tool, action)].filter((s): s is ActionSurface => s !== undefined)
      : ACTIONS.filter((s) => s.action === action || s.aliases.includes(String(action)));
  for (const surface of candidates) {
    const parsed = surface.args.safeParse(business);
    if (parsed.success) return { surface, business: parsed.data as Record<string, unknown> };
  }
  throw new ToolError(
    "invalid_arguments",
    `no strict write ${tool === undefined ? "" : `${tool}.`}${String(action)} accepts these arguments`,
  );
}

/** The preview of one strict write's preflight arguments (`tool` optional, see {@link resolveAction}). */
export async function previewWrite(
  kernel: KernelReads,
  permissions: PermissionMap,
  tool: string | undefined,
  args: Record<string, unknown>,
): Promise<WritePreview> {
  const { surface, business } = resolveAction(tool, args);
  const policy = policyOf(surface, business);
  if (policy.kind !== "mutation")
    throw new ToolError(
      "invalid_arguments",
      `${surface.tool}.${surface.action} is not a strict write: it has no preview`,
    );
  const base = {
    tool: surface.tool,
    action: surface.action,
    precondition:
      policy.precondition === "none"
        ? null
        : { kind: policy.precondition, field: preconditionFieldName(policy.precondition) },
  };
  const entry = previewEntryOf(surface.tool, surface.action);
  if (entry === undefined)
    throw new ToolError(
      "invalid_arguments",
      `${surface.tool}.${surface.action} has no preview: add its entry to the preview table`,
    );
  const { shows, ...body } = await entry.read(new PreviewReads(kernel, permissions), business);
  return { ...base, supported: true, shows: shows ?? entry.shows, ...body };
}

const shownValue = (v: string | null) => (v === null ? "(none)" : v === "" ? '""' : v);

/** The preview as text, for hosts that show tool results without the App. */
export function previewText(p: WritePreview): string {
  const lines = [`${p.tool}.${p.action}: ${p.summary}`, `target: ${JSON.stringify(p.target)}`];
  for (const c of p.changes) {
    const who = [c.what, c.id, c.where === undefined ? undefined : `in ${c.where}`]
      .filter((x) => x !== undefined)
      .join(" ");
    lines.push(`${who}: ${shownValue(c.before)} → ${shownValue(c.after)}`);
  }
  for (const c of p.content ?? []) lines.push(`${c.id} (${c.document}): ${diffText(c.diff)}`);
  if (p.order !== undefined) {
    const show = (items: readonly OrderItem[]) =>
      items.map((i) => (i.moved ? `*${i.title}*` : i.title)).join(" | ");
    lines.push(`order before: ${show(p.order.before)}`, `order after:  ${show(p.order.after)}`);
  }
  if (p.omitted !== undefined) lines.push(`${p.omitted} more blocks not shown`);
  lines.push(
    p.precondition === null
      ? "precondition: none (additive)"
      : `precondition: ${p.precondition.kind}, the preflight's ${p.precondition.field}`,
  );
  return lines.join("\n");
}

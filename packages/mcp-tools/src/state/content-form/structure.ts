/** Where a block sits in a form: its placement and children. */
import type { FormBlock } from "./types.js";

/** Where a block sits in a parsed tree: its siblings and its index among them. */
export interface Placement {
  readonly siblings: readonly FormBlock[];
  readonly index: number;
}

/** Finds a block by ID in a form (depth first); `undefined` when no IAL names it. */
export function placementOf(form: readonly FormBlock[], id: string): Placement | undefined {
  for (const [index, b] of form.entries()) {
    if (b.id === id) return { siblings: form, index };
    const inner = b.children ? placementOf(b.children, id) : undefined;
    if (inner) return inner;
  }
  return undefined;
}

/** The children of the block with this ID (or of the root when `id` is the document's). */
export function childrenOf(
  form: readonly FormBlock[],
  id: string,
  rootId?: string,
): readonly FormBlock[] | undefined {
  if (id === rootId) return form;
  const at = placementOf(form, id);
  return at ? (at.siblings[at.index]?.children ?? []) : undefined;
}

/**
 * The one rule for attribute names a tool may write (`block.set_attrs`, `document.set_attrs`).
 *
 * It is the kernel's own check of `setBlockAttrs` (contract §4.5: the name is lowercased, then must
 * start with `a-z` and go on with `[a-z0-9-]`, and `custom-` must be followed by a letter;
 * `data-task` is refused), so a name the kernel would refuse with -1 is refused before any lease.
 * On top of it, the names the kernel manages itself (contract §4.5, "System vs user attributes")
 * are refused on every block: `id` and `updated` everywhere, and a document's `title` and `type`.
 * Documents are blocks (`block.set_attrs` accepts a document ID), so one rule covers both tools.
 */

/** The kernel's attribute-name pattern, checked after lowercasing. */
export const ATTR_NAME_PATTERN = /^[a-z][a-z0-9-]*$/;

/** Names the kernel manages itself, with why a tool may not write them. */
export const KERNEL_MANAGED_ATTRS: Readonly<Record<string, string>> = Object.freeze({
  id: "the kernel sets a block's ID",
  updated: "the kernel sets the update time",
  "data-task": "the kernel refuses it",
  title: "a document's title changes only through document.rename",
  type: "the kernel marks documents with type=doc",
});

/**
 * Why `name` may not be written, or `undefined` when it may. Names are compared lowercased, as
 * the kernel stores them.
 */
export function attrNameProblem(name: string): string | undefined {
  const n = name.toLowerCase();
  const managed = Object.hasOwn(KERNEL_MANAGED_ATTRS, n) ? KERNEL_MANAGED_ATTRS[n] : undefined;
  if (managed !== undefined) return `attribute ${name} is kernel-managed: ${managed}`;
  if (!ATTR_NAME_PATTERN.test(n) || /^custom-(?![a-z])/.test(n)) {
    return `attribute name ${name} is not allowed: use lowercase letters, digits and hyphens, starting with a letter (user attributes: custom-<letter>…)`;
  }
  return undefined;
}

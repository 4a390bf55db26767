/** Comparing forms: a canonical string of a form, and content equality. */
import type { FormBlock } from "./types.js";

/** How two forms are compared. */
export interface CompareOptions {
  /**
   * The first top-level block is an updated block whose own attributes are checked separately
   * (the kernel adds `id`/`updated` and the update carries the block's kept attributes).
   */
  readonly ownAttrs?: "ignore" | "compare";
  /**
   * The target is a list item: the kernel keeps it in its list, so a one-item list in the
   * request is that item, and the list's kind is not the request's to choose.
   */
  readonly listItem?: boolean;
}

type Plain = Record<string, unknown>;

function plain(b: FormBlock, dropAttrs: boolean): Plain {
  const out: Plain = { type: b.type };
  if (!dropAttrs && Object.keys(b.attrs).length > 0) out["attrs"] = b.attrs;
  if (b.level !== undefined) out["level"] = b.level;
  if (b.list !== undefined) out["list"] = b.list;
  if (b.checked !== undefined) out["checked"] = b.checked;
  if (b.lang !== undefined && b.lang !== "") out["lang"] = b.lang;
  if (b.text !== undefined && b.text !== "") out["text"] = b.text;
  if (b.inline !== undefined && b.inline.length > 0) out["inline"] = b.inline;
  if (b.spans !== undefined) out["spans"] = b.spans;
  if (b.children !== undefined) {
    const children = b.children.map((c) => plain(c, false));
    out["children"] = isOnlyEmptyParagraph(children) ? [] : children;
  }
  return out;
}

/** The text of an empty paragraph's plain form. */
const EMPTY_PARAGRAPH = JSON.stringify({ type: "p" });

/** The kernel fills an empty container with one empty paragraph; that counts as empty. */
function isOnlyEmptyParagraph(blocks: readonly Plain[]): boolean {
  // Only a paragraph's text can be the empty paragraph's: other blocks need no stringify.
  const only = blocks.length === 1 ? blocks[0] : undefined;
  return only?.["type"] === "p" && JSON.stringify(only) === EMPTY_PARAGRAPH;
}

/** The blocks a request stands for when it replaces a list item. */
export function unwrapListItem(form: readonly FormBlock[]): readonly FormBlock[] {
  const only = form[0];
  if (form.length === 1 && only?.type === "list") return only.children ?? [];
  return form;
}

/**
 * A canonical string of a form: equal strings mean equal content. IDs, `updated` and `created`,
 * IAL order, bullet characters, ordered numbers, `__`/`_` spellings, escapes and entities never
 * count; block types, heading levels, list kinds, task states, marks and text always do.
 */
export function canonicalForm(form: readonly FormBlock[], options: CompareOptions = {}): string {
  let blocks = form;
  if (options.listItem) {
    blocks = unwrapListItem(form).map((b) =>
      b.type === "li" ? b : { type: "li", attrs: {}, children: [b] },
    );
  }
  const out = blocks.map((b, i) => plain(b, i === 0 && options.ownAttrs === "ignore"));
  const normalized = isOnlyEmptyParagraph(out) ? [] : out;
  return JSON.stringify(normalized);
}

/** True when two forms hold the same content under {@link canonicalForm}. */
export function sameContent(
  a: readonly FormBlock[],
  b: readonly FormBlock[],
  options: CompareOptions = {},
): boolean {
  return canonicalForm(a, options) === canonicalForm(b, options);
}

/**
 * The content form: what a readback compares when it proves a content write.
 *
 * The kernel re-renders what it is given (Kramdown as SiYuan emits it: `__x__` becomes `**x**`,
 * bullets become `*`, ordered items are renumbered, task boxes become `[X]`, block-like paragraph
 * lines get a `\`, IALs are rewritten in another order with `id` and `updated` added), so a byte
 * comparison would report failures that are not. A lossy text key (marks and punctuation dropped)
 * hides real failures instead. The form sits between: both sides are parsed into blocks — type,
 * heading level, list kind, task state, attributes other than `id`/`updated`/`created` — whose
 * inline content is runs of text (escapes and entities resolved) each with its set of marks
 * (strong, em, s, mark, code, tag, u, kbd, sup, sub, link, block reference, inline math), and the
 * two forms must be equal. Every mark and block type survives; only spellings the kernel is free
 * to choose do not. Markdown and protyle DOM parse into the same form.
 *
 * One module per stage: `types.ts` (the form), `text.ts`, `inline-markdown.ts`, `block-markdown.ts`,
 * `dom.ts` (parsers), `compare.ts` and `structure.ts` (what readbacks ask of a form).
 */
import { formOfMarkdown } from "./content-form/block-markdown.js";
import { formOfDom } from "./content-form/dom.js";
import type { FormBlock } from "./content-form/types.js";

export { formOfMarkdown } from "./content-form/block-markdown.js";
export {
  type CompareOptions,
  canonicalForm,
  sameContent,
  unwrapListItem,
} from "./content-form/compare.js";
export { formOfDom } from "./content-form/dom.js";
export { childrenOf, type Placement, placementOf } from "./content-form/structure.js";
export { markdownOfForm } from "./content-form/to-markdown.js";
export type { FormBlock, InlineRun } from "./content-form/types.js";

/** The content form of data as the caller sent it. */
export function formOf(data: string, dataType: "markdown" | "dom"): FormBlock[] {
  return dataType === "dom" ? formOfDom(data) : formOfMarkdown(data);
}

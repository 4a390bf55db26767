/**
 * Readback of content writes: does the live state show what was asked, and did the request ask
 * for anything the state did not already show?
 *
 * Both answers come from the content form ({@link canonicalForm}): the request parsed as the
 * caller sent it (Markdown or protyle DOM), the live block parsed from its Kramdown. `no_change`
 * is decided from the request and the before-state only — never from "nothing moved after the
 * write", which is also what a silently dropped write looks like.
 */
import type { KernelReads } from "../kernel.js";
import { splitOwnIal } from "./attributes.js";
import type { BlockSnapshot } from "./block-state.js";
import {
  type CompareOptions,
  canonicalForm,
  childrenOf,
  type FormBlock,
  formOf,
  formOfMarkdown,
  placementOf,
  unwrapListItem,
} from "./content-form.js";

/** One content write: the block and the data the caller sent for it. */
export interface ContentRequest {
  readonly id: string;
  readonly data: string;
  readonly dataType: "markdown" | "dom";
}

/** The first start tag of a block's (normalised) DOM says what the block is. */
function outerType(snapshot: BlockSnapshot): string | undefined {
  const dom = "dom" in snapshot.state ? snapshot.state.dom : "";
  return /^\s*<div\b[^>]*\sdata-type="([^"]*)"/.exec(dom)?.[1];
}

/** A document's own IAL says `type="doc"`; its update replaces all of its children. */
function isDocument(snapshot: BlockSnapshot): boolean {
  return snapshot.attrs["type"] === "doc";
}

/** How the request compares against this target (decided from the before-state's block type). */
function optionsFor(prior: BlockSnapshot): CompareOptions {
  if (isDocument(prior)) return { ownAttrs: "compare" };
  return { ownAttrs: "ignore", listItem: outerType(prior) === "NodeListItem" };
}

/** The top-level blocks the request stands for at this target. */
function requestedBlocks(
  form: readonly FormBlock[],
  options: CompareOptions,
): readonly FormBlock[] {
  return options.listItem ? unwrapListItem(form) : form;
}

/** The attributes a DOM request sets on the target through its own outer element. */
function domOwnAttrs(request: ContentRequest, form: readonly FormBlock[]): Record<string, string> {
  return request.dataType === "dom" ? { ...(form[0]?.attrs ?? {}) } : {};
}

/**
 * True when the live block already is what the request asks: the same content form, every
 * attribute the update would leave already in place, and no extra block to add. Decided before
 * any write, from the request and the before-state.
 */
export function requestIsNoOp(
  request: ContentRequest,
  prior: BlockSnapshot,
  expectAttrs: Readonly<Record<string, string>>,
): boolean {
  if (!prior.exists) return false;
  const options = optionsFor(prior);
  const form = formOf(request.data, request.dataType);
  if (!isDocument(prior) && requestedBlocks(form, options).length > 1) return false;
  const wantedAttrs = { ...expectAttrs, ...domOwnAttrs(request, form) };
  if (Object.entries(wantedAttrs).some(([k, v]) => prior.attrs[k] !== v)) return false;
  return canonicalForm(form, options) === canonicalForm(formOfMarkdown(prior.body), options);
}

/**
 * True when the request replaces a (non-document) target with several blocks: the first keeps the
 * target's ID and the others go after it, so a readback must read them from the document.
 */
export function spreadsToSiblings(request: ContentRequest, prior: BlockSnapshot): boolean {
  if (isDocument(prior)) return false;
  return requestedBlocks(formOf(request.data, request.dataType), optionsFor(prior)).length > 1;
}

/**
 * Checks that the live state shows a content request: `undefined` when it does, else the reason
 * it does not. `prior` is the block before the write (its type decides how the kernel treats the
 * data), `after` the block read back. A request of several blocks replaces the target with the
 * first and adds the others after it, so those are read from the document: from `document` (its
 * Kramdown, read live by the caller; `null` when it could not be read), else with 2 more kernel
 * calls.
 */
export async function contentMismatch(
  kernel: KernelReads,
  request: ContentRequest,
  prior: BlockSnapshot,
  after: BlockSnapshot,
  document?: string | null,
): Promise<string | undefined> {
  if (!after.exists) return `block ${request.id} no longer exists`;
  const options = optionsFor(prior);
  const form = formOf(request.data, request.dataType);
  const wanted = requestedBlocks(form, options);
  for (const [k, v] of Object.entries(domOwnAttrs(request, form))) {
    if (after.attrs[k] !== v) return `block ${request.id} does not show attribute ${k}`;
  }
  const shown =
    isDocument(prior) || wanted.length <= 1
      ? formOfMarkdown(after.body)
      : await blocksFrom(kernel, request.id, wanted.length, document);
  if (shown === undefined)
    return `the blocks written after block ${request.id} cannot be located in its document`;
  if (canonicalForm(wanted, options) !== canonicalForm(shown, options))
    return `block ${request.id} does not show the requested content`;
  return undefined;
}

/** The block `id` and the `count - 1` siblings after it, from its document's live Kramdown. */
async function blocksFrom(
  kernel: KernelReads,
  id: string,
  count: number,
  document?: string | null,
): Promise<FormBlock[] | undefined> {
  const kramdown = document === undefined ? await documentKramdown(kernel, id) : document;
  if (kramdown === null) return undefined;
  const at = placementOf(formOfMarkdown(splitOwnIal(kramdown).body), id);
  if (!at) return undefined;
  return at.siblings.slice(at.index, at.index + count);
}

/** The Kramdown of the document holding block `id` (2 kernel calls); `null` when unknown. */
async function documentKramdown(kernel: KernelReads, id: string): Promise<string | null> {
  const info = await kernel.getBlockInfo(id);
  return info ? kernel.getBlockKramdown(info.rootID) : null;
}

/**
 * Compares a document's live body with Markdown written as its whole content (fs.write with
 * overwrite): the same content form, block attributes other than `id`/`updated` included.
 */
export function documentShows(body: string, markdown: string): boolean {
  return (
    canonicalForm(formOfMarkdown(body), { ownAttrs: "compare" }) ===
    canonicalForm(formOfMarkdown(markdown), { ownAttrs: "compare" })
  );
}

/** A block move as requested: after `previousID`, else first under `parentID`. */
export interface MoveRequest {
  readonly id: string;
  readonly previousID?: string | undefined;
  readonly parentID?: string | undefined;
}

/**
 * True when one of these documents' Kramdown shows the block where a move puts it: right after
 * `previousID` (its next sibling), or first under `parentID` (directly, or as the content of the
 * list item the kernel wraps it in when the parent is a list). False when no document shows it
 * there, including when the anchor cannot be found.
 */
export function placedAsRequested(
  docs: ReadonlyArray<{ readonly id: string; readonly kramdown: string }>,
  move: MoveRequest,
): boolean {
  for (const doc of docs) {
    const tree = formOfMarkdown(splitOwnIal(doc.kramdown).body);
    if (move.previousID !== undefined) {
      const at = placementOf(tree, move.previousID);
      if (at) return at.siblings[at.index + 1]?.id === move.id;
      continue;
    }
    const parent = move.parentID as string;
    const children = parent === doc.id ? tree : childrenOf(tree, parent);
    if (children === undefined) continue;
    const first = children[0];
    return first?.id === move.id || (first?.type === "li" && first.children?.[0]?.id === move.id);
  }
  return false;
}

/**
 * A block's attributes in the three forms SiYuan shows them, and their canonical forms for hashing.
 *
 * Kramdown inline attribute lists (IALs, `{: name="value" …}`): the kernel stores attribute values
 * HTML-escaped and writes newlines as `_esc_newline_`; these helpers parse a block's own IAL (the
 * last IAL line of its kramdown) back into the values `getBlockAttrs` would return, and render
 * attribute maps back into an IAL line.
 *
 * Canonical forms: the spec fixes what counts as a content change for a block: Kramdown, block
 * attributes and DOM, where DOM attribute order and creation/update timestamps do not count, and
 * inline changes (a block reference's `data-subtype`, strong, em) do. The kernel also rebuilds IAL
 * attribute order from a Go map, so the same block can read back with its IAL pairs in another
 * order; `normalizeKramdown`, `normalizeDom` and `normalizeAttrs` sort the pairs and drop the
 * volatile ones.
 */

const IAL_LINE = /^\{:((?:\s+[A-Za-z_][\w-]*="(?:[^"\\]|\\.)*")*)\s*\}$/;
const PAIR = /([A-Za-z_][\w-]*)="((?:[^"\\]|\\.)*)"/g;

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  "#39": "'",
};

function unescapeValue(v: string): string {
  // Most values hold neither an entity nor an escaped newline: nothing to replace.
  if (v.indexOf("&") < 0 && v.indexOf("_esc_newline_") < 0) return v;
  return v
    .replace(/&(amp|lt|gt|quot|apos|#39);/g, (_m, e: string) => ENTITIES[e] ?? _m)
    .replaceAll("_esc_newline_", "\n");
}

/** A character `escapeValue` rewrites. */
const NEEDS_ESCAPE = /[&<>"\n]/;

function escapeValue(v: string): string {
  if (!NEEDS_ESCAPE.test(v)) return v;
  return v
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("\n", "_esc_newline_");
}

/** Parses one IAL line into its attribute map, or `undefined` when the line is not an IAL. */
export function parseIalLine(line: string): Record<string, string> | undefined {
  const m = IAL_LINE.exec(line.trim());
  if (!m) return undefined;
  const attrs: Record<string, string> = {};
  for (const pair of (m[1] ?? "").matchAll(PAIR))
    attrs[pair[1] as string] = unescapeValue(pair[2] as string);
  return attrs;
}

/** Renders an attribute map as an IAL line (`{: a="1" b="2"}`), names sorted. */
export function renderIalLine(attrs: Readonly<Record<string, string>>): string {
  const names = Object.keys(attrs).sort();
  return `{: ${names.map((n) => `${n}="${escapeValue(attrs[n] as string)}"`).join(" ")}}`;
}

/**
 * Splits a block's kramdown into its body and its own attributes: the kernel ends a block's
 * kramdown with the block's IAL line (for a document, the document's IAL).
 */
export function splitOwnIal(kramdown: string): { body: string; attrs: Record<string, string> } {
  const trimmed = kramdown.trimEnd(); // the same characters as /\s+$/
  const cut = trimmed.lastIndexOf("\n");
  const last = cut < 0 ? trimmed : trimmed.slice(cut + 1);
  const attrs = parseIalLine(last);
  if (!attrs) return { body: trimmed, attrs: {} };
  return { body: cut < 0 ? "" : trimmed.slice(0, cut), attrs };
}

/** The value the kernel stores for a requested attribute value (`null` or "" delete it; values are trimmed). */
function storedValue(v: string | null): string | undefined {
  if (v === null) return undefined;
  const t = v.trim();
  return t === "" ? undefined : t;
}

/** True when `attrs` shows every requested attribute as the kernel would have stored it. */
export function attrsMatch(
  attrs: Readonly<Record<string, string>>,
  requested: Readonly<Record<string, string | null>>,
): boolean {
  return Object.entries(requested).every(([k, v]) => attrs[k.toLowerCase()] === storedValue(v));
}

const ANY_IAL = /\{:((?:\s+[A-Za-z_][\w-]*="(?:[^"\\]|\\.)*")*)\s*\}/g;

/**
 * The attributes of the IAL that names `id` anywhere in a block's kramdown: a list item carries its
 * own IAL right after the marker (`* {: id="…"}text`), and the last IAL line is its paragraph's.
 * `undefined` when no IAL names `id`.
 */
export function ialOf(kramdown: string, id: string): Record<string, string> | undefined {
  for (const m of kramdown.matchAll(ANY_IAL)) {
    const attrs = parseIalLine(m[0]);
    if (attrs?.["id"] === id) return attrs;
  }
  return undefined;
}

/** Attribute names that carry timestamps or render positions, never content. */
export const VOLATILE_ATTRIBUTES: ReadonlySet<string> = new Set([
  "updated",
  "created",
  "data-node-index",
]);

/**
 * Rewrites every kramdown IAL (`{: k="v" …}`) with its pairs sorted by name and the volatile ones
 * (`updated`, `created`) dropped. Everything outside IALs is kept byte for byte.
 */
export function normalizeKramdown(kramdown: string): string {
  return kramdown.replace(ANY_IAL, (_match, body: string) => {
    const pairs: Array<[string, string]> = [];
    for (const m of body.matchAll(PAIR)) {
      const name = m[1] as string;
      if (!VOLATILE_ATTRIBUTES.has(name)) pairs.push([name, m[2] as string]);
    }
    pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return pairs.length === 0 ? "{:}" : `{: ${pairs.map(([k, v]) => `${k}="${v}"`).join(" ")}}`;
  });
}

const TAG_PATTERN =
  /<([A-Za-z][\w-]*)((?:\s+[^\s=>/"']+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>"']+))?)*)\s*(\/?)>/g;
const ATTR_PATTERN = /([^\s=>/"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;

/**
 * Rewrites every start tag of a block DOM with its attributes sorted by name and the volatile ones
 * (`updated`, `created`, `data-node-index`) dropped; values are re-quoted with double quotes.
 * Text, end tags and inline marks (`data-type="strong"`, `data-subtype="s"`) are kept as they are.
 */
export function normalizeDom(dom: string): string {
  return dom.replace(TAG_PATTERN, (_match, name: string, attrs: string, selfClose: string) => {
    const pairs: Array<[string, string]> = [];
    for (const m of attrs.matchAll(ATTR_PATTERN)) {
      const attr = (m[1] as string).toLowerCase();
      if (VOLATILE_ATTRIBUTES.has(attr)) continue;
      pairs.push([attr, m[2] ?? m[3] ?? m[4] ?? ""]);
    }
    pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const rendered = pairs.map(([k, v]) => ` ${k}="${v}"`).join("");
    return `<${name.toLowerCase()}${rendered}${selfClose ? " /" : ""}>`;
  });
}

/** A copy of a block's attribute map without the volatile attributes. */
export function normalizeAttrs(attrs: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(attrs)) {
    if (!VOLATILE_ATTRIBUTES.has(k)) out[k] = v;
  }
  return out;
}

/**
 * Normalisation of live SiYuan representations before hashing.
 *
 * The spec fixes what counts as a content change for a block: Kramdown, block attributes and DOM,
 * where DOM attribute order and creation/update timestamps do not count, and inline changes (a
 * block reference's `data-subtype`, strong, em) do. The kernel also rebuilds IAL attribute order
 * from a Go map, so the same block can read back with its IAL pairs in another order.
 */

/** Attribute names that carry timestamps or render positions, never content. */
export const VOLATILE_ATTRIBUTES: ReadonlySet<string> = new Set([
  "updated",
  "created",
  "data-node-index",
]);

const IAL_PATTERN = /\{:((?:\s+[A-Za-z_][\w-]*="(?:[^"\\]|\\.)*")*)\s*\}/g;
const IAL_PAIR_PATTERN = /([A-Za-z_][\w-]*)="((?:[^"\\]|\\.)*)"/g;

/**
 * Rewrites every kramdown IAL (`{: k="v" …}`) with its pairs sorted by name and the volatile ones
 * (`updated`, `created`) dropped. Everything outside IALs is kept byte for byte.
 */
export function normalizeKramdown(kramdown: string): string {
  return kramdown.replace(IAL_PATTERN, (_match, body: string) => {
    const pairs: Array<[string, string]> = [];
    for (const m of body.matchAll(IAL_PAIR_PATTERN)) {
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

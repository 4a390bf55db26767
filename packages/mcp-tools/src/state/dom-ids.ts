/**
 * The IDs of the top-level blocks in a kernel block DOM (the `data` of an insert or update
 * operation): the `data-node-id` of every `<div>` that opens at nesting depth 0, in order.
 */
const DIV_TAG = /<(\/?)div\b([^>]*)>/gi;
const NODE_ID = /\sdata-node-id="([^"]*)"/;

/** Top-level block IDs of a block DOM, in document order. */
export function topLevelNodeIds(dom: string): string[] {
  const ids: string[] = [];
  let depth = 0;
  for (const m of dom.matchAll(DIV_TAG)) {
    if (m[1] === "/") {
      depth = Math.max(0, depth - 1);
      continue;
    }
    if (depth === 0) {
      const id = NODE_ID.exec(m[2] ?? "")?.[1];
      if (id) ids.push(id);
    }
    if (!/\/\s*$/.test(m[2] ?? "")) depth++;
  }
  return ids;
}

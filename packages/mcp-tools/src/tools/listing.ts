/**
 * What the navigation reads share: one page of a list (as `search.fulltext` pages, `page` from 1,
 * with the total so an agent knows whether to ask for the next), and the kernel's HTML-escaped
 * names as plain text.
 */

import type { PermissionMap } from "../permissions.js";
import { readableRows } from "../permissions.js";

/** One page of `items` and where it sits in the whole list. */
export function pageOf<T>(items: readonly T[], page: number, pageSize: number) {
  return {
    items: items.slice((page - 1) * pageSize, page * pageSize),
    page,
    pageSize,
    pageCount: Math.ceil(items.length / pageSize),
    total: items.length,
  };
}

/**
 * The items of notebooks the caller may read (`notebookOf` names each item's notebook, `""` when
 * unknown: such an item is withheld whenever permissions restrict), and how many were withheld,
 * as the fields an answer spreads in.
 */
export function readableItems<T>(
  permissions: PermissionMap,
  items: readonly T[],
  notebookOf: (item: T) => string,
): { kept: T[]; withheld: Record<string, unknown> } {
  const { rows, withheld } = readableRows(
    permissions,
    items.map((item) => {
      const box = notebookOf(item);
      return box === "" ? { item } : { box, item };
    }),
  );
  return {
    kept: rows.map((r) => r.item),
    withheld:
      withheld > 0 ? { withheld, withheldReason: "items of notebooks you may not read" } : {},
  };
}

const ENTITIES: Record<string, string> = {
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
  "&#34;": '"',
  "&apos;": "'",
  "&nbsp;": " ",
  "&amp;": "&",
};

/** The HTML entities the kernel writes into text it escapes, decoded (one pass, `&amp;` last-safe). */
export function decodeEntities(text: string): string {
  return text.replace(/&(?:lt|gt|quot|apos|nbsp|amp|#39|#34);/g, (e) => ENTITIES[e] ?? e);
}

/** The kernel's HTML name of a heading or crumb as plain text: tags dropped, entities decoded. */
export function plainText(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, ""));
}

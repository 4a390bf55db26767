/** The compact snippet of a search hit (search.fulltext, search.refs, search.asset_content…). */
import { decodeEntities } from "./listing.js";

/** The longest snippet of a compact search row, in characters. */
export const SNIPPET_MAX_CHARS = 240;

/**
 * The kernel's block content as plain text: `<mark>` tags dropped, HTML entities decoded (the
 * kernel HTML-escapes the content before marking the hits), cut to {@link SNIPPET_MAX_CHARS}.
 */
export function snippetOf(content: unknown): string {
  const text = decodeEntities(String(content ?? "").replace(/<\/?mark>/g, ""));
  const chars = [...text];
  return chars.length > SNIPPET_MAX_CHARS ? `${chars.slice(0, SNIPPET_MAX_CHARS).join("")}…` : text;
}

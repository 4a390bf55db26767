/**
 * Database blocks (`NodeAttributeView`, contract §3.2/§4.7) in the block tree: a leaf of type
 * `av` whose `text` holds the AttributeViewID and `lang` the AttributeViewType
 * (`table|gallery|kanban`). Markdown form: `<div data-type="NodeAttributeView" data-av-id="…"
 * data-av-type="table"></div>` on one line.
 */
import { type Block, newBlock } from "./block.js";

const AV_HTML = /^\s{0,3}<div\s+data-type="NodeAttributeView"([^>]*)>\s*<\/div>\s*$/;
const LAYOUTS = new Set(["table", "gallery", "kanban"]);

/** Parses the one-line AV HTML block; the AV ID stays "" when absent (assigned with the block ID). */
export function parseAvBlockLine(line: string): Block | null {
  const m = AV_HTML.exec(line);
  if (!m) return null;
  const attr = (n: string): string => new RegExp(`\\s${n}="([^"]*)"`).exec(m[1] ?? "")?.[1] ?? "";
  const type = attr("data-av-type");
  return newBlock("av", { text: attr("data-av-id"), lang: LAYOUTS.has(type) ? type : "table" });
}

/** True when the line is an AV HTML block. */
export const isAvBlockLine = (line: string): boolean => AV_HTML.test(line);

/** The kramdown (without IAL) of an AV block, as Lute's format renderer writes it. */
export function avBlockMarkdown(avId: string, avType: string): string {
  return `<div data-type="NodeAttributeView" data-av-id="${avId}" data-av-type="${avType || "table"}"></div>`;
}

/** Text of the form: entities decoded, whitespace normalised, uncompared attributes dropped. */
import { VOLATILE_ATTRIBUTES } from "../attributes.js";

/** Attributes never compared: kernel-assigned identity and timestamps. */
const UNCOMPARED_ATTRIBUTES: ReadonlySet<string> = new Set(["id", ...VOLATILE_ATTRIBUTES]);

const ENTITY: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
};

/** Resolves HTML entities (named ones the kernel emits, decimal and hex). */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-z]+);/g, (m, e: string) => {
    if (e.startsWith("#x")) return String.fromCodePoint(Number.parseInt(e.slice(2), 16));
    if (e.startsWith("#")) return String.fromCodePoint(Number.parseInt(e.slice(1), 10));
    return ENTITY[e] ?? m;
  });
}

/** Text as compared: no zero-width spaces, each line trimmed, no blank edges. */
export function normalizeText(s: string): string {
  // One line without zero-width spaces or carriage returns: the steps below come to a trim.
  if (s.indexOf("\n") < 0 && s.indexOf("\r") < 0 && s.indexOf("\u200b") < 0) return s.trim();
  return s
    .replace(/\u200b/g, "")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((l) => l.trim())
    .join("\n")
    .trim();
}

/** Attributes as compared: without {@link UNCOMPARED_ATTRIBUTES}. */
export function cleanAttrs(attrs: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(attrs).sort()) {
    if (!UNCOMPARED_ATTRIBUTES.has(k)) out[k] = attrs[k] as string;
  }
  return out;
}

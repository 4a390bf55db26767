/**
 * A linear, non-recursive guard against deeply nested JSON: counts `[` and `{` outside string
 * literals, so a body nested thousands of levels deep is refused before `JSON.parse`, schema
 * validation or any recursive walk (canonical hashing, stable JSON) can exhaust the stack.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * Whether `bytes` (UTF-8 JSON text) nests arrays/objects deeper than `limit` levels. Works on the
 * raw bytes: every byte of a multi-byte UTF-8 character is ≥ 0x80, so it never looks like a quote,
 * backslash or bracket. Malformed text is not judged here (`JSON.parse` refuses it afterwards);
 * the scan only needs to be right for text that would parse.
 */
export function exceedsJsonDepth(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
    } else if (b === OPEN_BRACKET || b === OPEN_BRACE) {
      depth++;
      if (depth > limit) return true;
    } else if (b === CLOSE_BRACKET || b === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

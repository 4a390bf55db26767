/**
 * Request bodies as the kernel's `util.JsonArg` reads them: a JSON object, or a failure whose
 * detail is worded as Go's `encoding/json` words it (kernel-probes envelope.bad-body).
 */

/** The JSON kind Go's decoder names when it cannot unmarshal a value into a map. */
function goJsonKind(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (v === null) return "null";
  return typeof v === "number" ? "number" : typeof v === "boolean" ? "bool" : "string";
}

/**
 * Go's message for the commonest syntax errors (the first character wrong, or a misspelt
 * `null`/`true`/`false`); null for others, which keep JavaScript's message.
 */
function goJsonSyntaxError(text: string): string | null {
  const t = text.trimStart();
  const c = t[0] ?? "";
  for (const lit of ["null", "true", "false"]) {
    if (c !== lit[0]) continue;
    for (let i = 1; i < lit.length; i++) {
      const got = t[i];
      if (got === undefined) return "unexpected end of JSON input";
      if (got !== lit[i]) {
        return `invalid character '${got}' in literal ${lit} (expecting '${lit[i]}')`;
      }
    }
    return null;
  }
  if (!/^[{["\-0-9]/.test(c)) return `invalid character '${c}' looking for beginning of value`;
  return null;
}

/**
 * Parses a body that must be a JSON object: `parsed` when it is one, else `detail`, the text the
 * kernel puts after "Parses request [<path>] failed: ".
 */
export function parseJsonObjectBody(text: string): { parsed: unknown; detail: string | null } {
  if (text.trim() === "") {
    return { parsed: undefined, detail: "the request body is empty or truncated (EOF)" };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return {
      parsed: undefined,
      detail: goJsonSyntaxError(text) ?? (e instanceof Error ? e.message : String(e)),
    };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return {
      parsed,
      detail: `json: cannot unmarshal ${goJsonKind(parsed)} into Go value of type map[string]interface {}`,
    };
  }
  return { parsed, detail: null };
}

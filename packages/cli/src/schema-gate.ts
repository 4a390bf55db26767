/**
 * Whether a read's arguments pass its JSON Schema (the catalog's own, as `tools/list` advertises
 * it, kept in the action index), decided without zod: `true` only when every keyword of the schema
 * is one this gate knows and the arguments meet them all. `false` sends the call to the real check
 * (`flags.ts`, zod), which gives the usage error; a keyword it does not know counts as `false`, so
 * the gate never lets through what the schema states. A rule JSON Schema cannot state (a zod
 * refinement) is the authority's to check (`commands/call.ts`).
 */

type Schema = Readonly<Record<string, unknown>>;

/** The keywords that say nothing about validity. */
const ANNOTATIONS = new Set(["$schema", "description", "default", "title", "examples"]);

function isType(value: unknown, type: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    default:
      return false;
  }
}

/** Code points, as JSON Schema counts a string's length. */
const length = (text: string) => [...text].length;

/** Whether `value` meets `schema` (see the module's comment for what `false` means). */
export function schemaAccepts(schema: Schema, value: unknown): boolean {
  for (const [keyword, rule] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword)) continue;
    switch (keyword) {
      case "type":
        if (!isType(value, rule)) return false;
        break;
      case "enum":
        if (!Array.isArray(rule) || !rule.includes(value)) return false;
        break;
      case "pattern":
        if (typeof value === "string" && !new RegExp(String(rule), "u").test(value)) return false;
        break;
      case "minLength":
        if (typeof value === "string" && length(value) < Number(rule)) return false;
        break;
      case "maxLength":
        if (typeof value === "string" && length(value) > Number(rule)) return false;
        break;
      case "minimum":
        if (typeof value === "number" && value < Number(rule)) return false;
        break;
      case "maximum":
        if (typeof value === "number" && value > Number(rule)) return false;
        break;
      case "items":
        if (Array.isArray(value) && !value.every((v) => schemaAccepts(rule as Schema, v)))
          return false;
        break;
      case "required":
        if (isType(value, "object") && !(rule as string[]).every((k) => k in (value as object)))
          return false;
        break;
      case "properties": {
        if (!isType(value, "object")) break;
        const properties = rule as Record<string, Schema>;
        for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
          const property = properties[key];
          if (property !== undefined && !schemaAccepts(property, v)) return false;
        }
        break;
      }
      case "additionalProperties":
        if (rule !== false) return false;
        if (isType(value, "object")) {
          const known = (schema["properties"] ?? {}) as Record<string, unknown>;
          if (Object.keys(value as object).some((k) => !(k in known))) return false;
        }
        break;
      default:
        return false;
    }
  }
  return true;
}

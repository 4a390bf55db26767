/**
 * The MCP tool result and its error form, apart from the runtime: a shell, the delegation link
 * and the CLI answer errors without loading the tools, their schemas or zod.
 */
import { WIRE_ERRORS, type WireErrorCode } from "@sisyphus/write-safety";

/** The MCP tool result shape. */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/**
 * An error result: `structuredContent.error` carries `code`, `message` and `hint` (the caller's next
 * step): the code's `WIRE_ERRORS` hint unless a refinement of it is given (a write-safety error's
 * per-reason hint), then the other fields.
 */
export function errorResult({
  code,
  message,
  hint,
  ...fields
}: {
  code: WireErrorCode;
  message: string;
  hint?: string;
  [k: string]: unknown;
}): ToolResult {
  const structuredContent = {
    error: { code, message, hint: hint ?? WIRE_ERRORS[code].hint, ...fields },
  };
  return {
    content: [{ type: "text", text: JSON.stringify(structuredContent) }],
    structuredContent,
    isError: true,
  };
}

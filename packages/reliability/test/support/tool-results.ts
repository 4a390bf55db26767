/**
 * Tool results as the runtime returns them, from what an official MCP client got: the answer of a
 * `tools/call`, or, when the call itself failed, what its caller knows.
 */
import type { ToolResult } from "../../../mcp-tools/src/index.js";

/** A tool result as the runtime returns it, from an MCP `tools/call` result. */
export function toolResult(r: unknown): ToolResult {
  const x = r as {
    content?: unknown;
    structuredContent?: Record<string, unknown>;
    isError?: boolean;
  };
  return {
    content: (x.content ?? []) as ToolResult["content"],
    structuredContent: x.structuredContent ?? {},
    isError: x.isError === true,
  } as ToolResult;
}

/**
 * What a caller knows when the call itself failed (the answer was lost with the connection): not
 * whether it ran. Counted as `outcome_unknown`, never as a refusal; the failure is in the message
 * and in `details.reason`.
 */
export function lostAnswer(e: unknown): ToolResult {
  const reason = `no answer: ${e instanceof Error ? e.message : String(e)}`;
  return {
    content: [],
    isError: true,
    structuredContent: {
      error: {
        code: "outcome_unknown",
        writeAttempted: true,
        message: reason,
        details: { reason },
      },
    },
  } as unknown as ToolResult;
}

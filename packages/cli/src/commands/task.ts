/**
 * `sisyphus task status|result|cancel <taskId>`: the kernel authority's task-control record of a
 * call this CLI (or another delegate) made — e.g. the taskId an `outcome_unknown` answer named.
 * Only the kernel authority keeps task records; under the Node authority reconcile by requestId.
 */
import { openAuthority } from "../authority.js";
import type { Resolved } from "../config.js";
import { CliError } from "../errors.js";
import { classify, EXIT } from "../exit-codes.js";
import { type Io, out } from "../io.js";
import { humanLines } from "../render.js";

const OPERATIONS = ["status", "result", "cancel"];

export async function runTask(
  io: Io,
  config: Resolved,
  operation: string | undefined,
  taskId: string | undefined,
): Promise<number> {
  if (operation === undefined || !OPERATIONS.includes(operation) || taskId === undefined) {
    throw new CliError(EXIT.usage, "usage", "sisyphus task status|result|cancel <taskId>");
  }
  const authority = await openAuthority(config, false);
  try {
    if (authority.kind !== "kernel") {
      throw new CliError(
        EXIT.usage,
        "no_task_control",
        "The Node authority keeps no task records: reconcile a write with its requestId (inspect the target, then repeat the commit with the same requestId).",
      );
    }
    const answer = await authority.link.task(taskId, operation);
    if (answer === undefined) {
      throw new CliError(
        EXIT.unavailable,
        "tasks_unreachable",
        "The kernel plugin's /tasks did not answer.",
      );
    }
    const result = answer["result"] as
      | { isError?: boolean; structuredContent?: { error?: { code?: string } } }
      | undefined;
    const exitCode =
      answer["found"] !== true
        ? EXIT.error
        : result?.isError === true
          ? classify(result.structuredContent?.error?.code)
          : EXIT.ok;
    if (io.json) out(io, JSON.stringify({ exitCode, result: answer }));
    else
      for (const line of humanLines(
        operation === "result" && result !== undefined
          ? { ...answer, result: result.structuredContent }
          : answer,
      ))
        out(io, line);
    return exitCode;
  } finally {
    await authority.link.close();
  }
}

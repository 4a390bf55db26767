/**
 * The fault kinds only a delegating runtime has, as fault-kinds cells run through a stdio front
 * ({@link startStdioFront}): the front killed mid-commit, the authority killed while the front
 * waits, and the answer lost between authority and front. Each cell: the sandbox log proves 0 or 1
 * applications, and every answer is one the state allows.
 */
import { isSandboxError } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import type { ToolResult } from "../../../mcp-tools/src/index.js";
import { describeAnswer, judge } from "../../../mcp-tools/test/support/fault-matrix.js";
import type { StdioFront } from "./delegation-front.js";
import {
  applications,
  begin,
  codeOf,
  commitAndReplay,
  end,
  errorOf,
  isSuccess,
  type KindRun,
  type Prepared,
} from "./matrix-kinds.js";

/** The delegation kinds, by name. */
export const DELEGATION_KINDS = ["frontKilled", "authorityKilled", "answerLost"] as const;

const frontOf = (p: Prepared) => p.env.front as StdioFront;

/**
 * Holds the commit's first kernel write in the kernel proxy: `reached` settles when the authority
 * sent it, `release()` lets it through to the kernel.
 */
function holdFirstWrite(p: Prepared) {
  let arrived = () => {};
  let release = () => {};
  const reached = new Promise<void>((r) => {
    arrived = r;
  });
  const gate = new Promise<void>((r) => {
    release = r;
  });
  p.env.hooks.hook = {
    write: 0,
    when: "before",
    run: async () => {
      arrived();
      await gate;
    },
  };
  return { reached, release: () => release() };
}

/**
 * Replays `args` until the answer is settled (not the in-flight outcome_unknown), every 150 ms for
 * 6 s at most; every answer (the caller judges them, an unsettled last one included).
 */
async function replayUntilSettled(p: Prepared, args: Record<string, unknown>) {
  const answers: ToolResult[] = [];
  await waitFor(
    async () => {
      const r = await p.env.call(p.tool, args, p.confirmed);
      answers.push(r);
      return codeOf(r) !== "outcome_unknown";
    },
    { intervalMs: 150, timeoutMs: 6_000, what: "a settled answer to the replay" },
  ).catch((e: unknown) => {
    if (!isSandboxError(e) || e.code !== "wait_timeout") throw e;
  });
  return answers;
}

const asText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * The front's own outcome_unknown (the link's, not the tools'): writeAttempted=true, the requestId
 * named.
 */
function checkFrontUnknown(out: string[], label: string, r: ToolResult, requestId: unknown): void {
  const e = errorOf(r);
  if (!r.isError || e["code"] !== "outcome_unknown" || e["writeAttempted"] !== true)
    out.push(
      `${label} answered ${describeAnswer(r)}; expected outcome_unknown writeAttempted=true`,
    );
  if (e["requestId"] !== requestId)
    out.push(`${label}'s outcome_unknown names requestId ${String(e["requestId"])}`);
}

/** SIGKILL the stdio front while its commit is at the kernel; a new front replays. */
const frontKilled: KindRun = async (p, clean, args) => {
  const f = frontOf(p);
  begin(p.env);
  const held = holdFirstWrite(p);
  const pending = p.env.call(p.tool, args, p.confirmed).then(
    (r) => `answered ${describeAnswer(r)}`,
    (e: unknown) => `failed: ${asText(e)}`,
  );
  await held.reached;
  f.killFront();
  const lost = await pending;
  held.release();
  await f.newFront();
  const replays = await replayUntilSettled(p, args);
  const last = replays.at(-1) as ToolResult;
  const after = await end(p, last);
  const violations: string[] = [];
  if (!lost.startsWith("failed")) violations.push(`the killed front's call ${lost}`);
  for (const r of replays)
    if (!isSuccess(r) && codeOf(r) !== "outcome_unknown")
      violations.push(`a replay answered ${describeAnswer(r)}`);
  if (!isSuccess(last)) violations.push(`the last replay answered ${describeAnswer(last)}`);
  else if (last.structuredContent["executedNow"] === true)
    violations.push("the replay executed the request again");
  if (isSuccess(last) && after.shows !== undefined)
    violations.push(`replayed committed, but the live state does not show it (${after.shows})`);
  const apps = applications(after.log, clean);
  if (apps !== 1) violations.push(`${apps} applications, expected the authority's 1`);
  return {
    applicable: true,
    expected:
      "the authority keeps its one execution: the new front's replay is committed (executedNow false) or outcome_unknown while in flight; 1 application",
    answers: [lost, ...replays.map(describeAnswer)],
    applications: apps,
    violations,
  };
};

/** SIGKILL the authority while the front waits (its write held at the kernel, then let through). */
const authorityKilled: KindRun = async (p, clean, args) => {
  const f = frontOf(p);
  begin(p.env);
  const held = holdFirstWrite(p);
  const pending = p.env.call(p.tool, args, p.confirmed);
  await held.reached;
  await f.killAuthority();
  // The write already left the dead authority: the kernel applies it.
  held.release();
  const commit = await pending;
  await f.restartAuthority();
  const replay = await p.env.call(p.tool, args, p.confirmed);
  const after = await end(p, replay);
  const violations: string[] = [];
  checkFrontUnknown(violations, "the waiting front", commit, args["requestId"]);
  if (isSuccess(replay) && after.shows !== undefined)
    violations.push(`the replay answered committed against the state (${after.shows})`);
  if (!isSuccess(replay) && codeOf(replay) !== "outcome_unknown")
    violations.push(`the replay after the restart answered ${describeAnswer(replay)}`);
  const apps = applications(after.log, clean);
  if (apps > 1) violations.push(`${apps} applications`);
  return {
    applicable: true,
    expected:
      "outcome_unknown (writeAttempted, the requestId); after the restart the replay is outcome_unknown (the ledger's executing record) or committed as the state shows; ≤1 application",
    answers: [describeAnswer(commit), describeAnswer(replay)],
    applications: apps,
    violations,
  };
};

/** The authority executes the commit; its answer is lost on the way to the front. */
const answerLost: KindRun = async (p, clean, args) => {
  const f = frontOf(p);
  const lostBefore = f.proxy.lost.length;
  f.proxy.loseAnswerOf(String(args["requestId"]));
  const { commit, replay, run } = await commitAndReplay(p, args);
  const violations = judge(run);
  if (f.proxy.lost.length !== lostBefore + 1) violations.push("the answer was not lost");
  checkFrontUnknown(violations, "the front", commit.answer, args["requestId"]);
  if (!isSuccess(replay.answer) || replay.answer.structuredContent["executedNow"] !== false)
    violations.push(`the replay answered ${describeAnswer(replay.answer)}, not a replayed success`);
  const apps = applications([...commit.log, ...replay.log], clean);
  if (apps !== 1) violations.push(`${apps} applications, expected 1`);
  return {
    applicable: true,
    expected:
      "outcome_unknown with the requestId; the replay answers the recorded success (executedNow false); exactly 1 application",
    answers: [describeAnswer(commit.answer), describeAnswer(replay.answer)],
    applications: apps,
    violations,
  };
};

/** The delegation kinds' runs, for `runCell`'s `runs`. */
export const DELEGATION_RUNS: Readonly<Record<string, KindRun>> = {
  frontKilled,
  authorityKilled,
  answerLost,
};

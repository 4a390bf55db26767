/**
 * Faults through the `sisyphus` CLI (the built executable, spawned), which delegates every strict
 * call to the Node authority it starts in the background, or to the kernel plugin in the sandbox's
 * plugin host when the settings select it (issue 18: "every runtime that delegates"). Per
 * authority and fault: the preflight's printed command commits under the fault; the exit code is
 * the class of the answer (exit-codes.ts); the answer never claims more than the kernel shows; the
 * printed command (same requestId) run again never applies the write a second time. The sandbox's
 * request log counts applications: 0 or 1, never 2. `RELIABILITY_LONG=1` adds insert cells.
 *
 * Run: `pnpm exec vitest run test/delegation-cli.test.ts` in packages/reliability (cli, node-server
 * and kernel-plugin built).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  DEMO_IDS,
  type RequestLogEntry,
  type Sandbox,
  startSandbox,
} from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, describe, expect, it } from "vitest";
import { classify } from "../../cli/src/exit-codes.js";
import {
  cli,
  doc,
  errorCode,
  killAuthorities,
  type Run,
  type Scene,
  scene,
  start,
  words,
} from "../../cli/test/harness.js";
import { sandboxWithPlugin } from "../../kernel-plugin/test/harness.js";
import { applications } from "./support/matrix-kinds.js";

const LONG = process.env["RELIABILITY_LONG"] === "1";
const UPDATE = "/api/block/updateBlock";
const INSERT = "/api/block/insertBlock";
const CLEAN_UPDATE = { writes: [], writesPerPath: new Map([[UPDATE, 1]]) };
const CLEAN_INSERT = { writes: [], writesPerPath: new Map([[INSERT, 1]]) };

type Fault = "http5xx" | "resetAfterApply" | "silentDrop" | "editBeforeCommit" | "authorityKilled";

/** A strict mutation as CLI words, and how to read whether the kernel shows it. */
interface Mutation {
  readonly name: string;
  readonly endpoint: string;
  readonly args: (marker: string) => string[];
  readonly shows: (sb: Sandbox, marker: string) => boolean;
}
const UPDATE_GOALS: Mutation = {
  name: "block update (state)",
  endpoint: UPDATE,
  args: (m) => ["block", "update", "--id", DEMO_IDS.paragraphGoals, "--data", m],
  shows: (sb, m) => (sb.control.kramdown(DEMO_IDS.paragraphGoals) ?? "").includes(m),
};
const INSERT_AFTER: Mutation = {
  name: "block insert (none)",
  endpoint: INSERT,
  args: (m) => [
    "block",
    "insert",
    "--previous-id",
    DEMO_IDS.paragraphDecision,
    "--data",
    m,
    "--data-type",
    "markdown",
  ],
  shows: (sb, m) => sb.control.sql(`SELECT id FROM blocks WHERE content LIKE '%${m}%'`).length > 0,
};

/** One cell's record, printed after the file. */
interface Cell {
  readonly authority: string;
  readonly mutation: string;
  readonly fault: Fault;
  readonly commit: string;
  readonly retry: string;
  readonly applications: number;
}
const CELLS: Cell[] = [];

const describeRun = (r: Run) => `exit ${r.code} ${errorCode(r) ?? String(doc(r).result["status"])}`;

/** Applied writes in the log after `mark` (a sequence number). */
const since = (sb: Sandbox, mark: number): RequestLogEntry[] =>
  sb.control.log().filter((e) => e.seq > mark);
const lastSeq = (sb: Sandbox) => sb.control.log().at(-1)?.seq ?? 0;

/** Honest exit: the answer's class, and no success the kernel contradicts. */
function expectHonest(run: Run, shows: boolean): void {
  const code = errorCode(run);
  expect(run.code, run.stdout + run.stderr).toBe(classify(code));
  if (run.code === 0) expect(shows, "a success the kernel does not show").toBe(true);
}

/** The pid of the Node authority the CLI started for `s`. */
function authorityPid(s: Scene): number {
  return (JSON.parse(readFileSync(join(s.dataDir, "authority.json"), "utf8")) as { pid: number })
    .pid;
}

async function runCell(
  sb: Sandbox,
  authority: "node" | "kernel",
  s: Scene,
  m: Mutation,
  fault: Fault,
): Promise<void> {
  const marker = `cli${authority}${fault}${m.endpoint.split("/").at(-1)}`;
  const pre = await cli(s, [...m.args(marker), "--validate-only", "--json"]);
  expect(pre.code, pre.stdout + pre.stderr).toBe(0);
  const p = doc(pre);
  const requestId = String(p.result["requestId"]);
  const commitWords = [...words(p.next as string).slice(1), "--json"];
  expect(commitWords).toContain(requestId);
  const mark = lastSeq(sb);
  let commit: Run;
  if (fault === "editBeforeCommit") {
    const target = m.endpoint === UPDATE ? DEMO_IDS.paragraphGoals : DEMO_IDS.paragraphDecision;
    sb.control.external.updateBlock(target, `edited outside ${marker}`);
    commit = await cli(s, commitWords);
  } else if (fault === "authorityKilled") {
    // The commit's write is held at the kernel while the authority is SIGKILLed.
    sb.control.armFault({ endpoint: m.endpoint, kind: "delay", delayMs: 1_500 });
    const before = sb.control.count(m.endpoint);
    const running = start(s, commitWords);
    await waitFor(() => sb.control.count(m.endpoint) > before, { what: "the commit's write" });
    process.kill(authorityPid(s), "SIGKILL");
    commit = await running.done;
  } else {
    sb.control.armFault({ endpoint: m.endpoint, kind: fault });
    commit = await cli(s, commitWords);
  }
  sb.control.clearFaults();
  await sb.control.flush();
  const commitApps = applications(
    since(sb, mark),
    m.endpoint === UPDATE ? CLEAN_UPDATE : CLEAN_INSERT,
  );
  expectHonest(commit, m.shows(sb, marker));
  if (fault === "editBeforeCommit") {
    expect(errorCode(commit)).toBe(m.endpoint === UPDATE ? "state_changed" : undefined);
  }
  if (fault === "resetAfterApply" || fault === "authorityKilled") {
    // A write that reached the kernel and whose answer was lost: exit 5 with the requestId.
    expect(commit.code, commit.stdout).toBe(5);
    expect(JSON.stringify(doc(commit).result)).toContain(requestId);
  }
  if (fault === "http5xx") expect(commitApps).toBe(0);
  if (fault === "silentDrop") expect(commit.code).not.toBe(0);

  // The printed command again (same requestId): never a second application.
  const retry = await cli(s, commitWords);
  await sb.control.flush();
  expectHonest(retry, m.shows(sb, marker));
  const apps = applications(since(sb, mark), m.endpoint === UPDATE ? CLEAN_UPDATE : CLEAN_INSERT);
  expect(apps, `${describeRun(commit)} ; ${describeRun(retry)}`).toBeLessThanOrEqual(1);
  if (commitApps === 1) expect(doc(retry).result["executedNow"]).not.toBe(true);
  CELLS.push({
    authority,
    mutation: m.name,
    fault,
    commit: describeRun(commit),
    retry: describeRun(retry),
    applications: apps,
  });
}

afterAll(() => {
  killAuthorities();
  console.log(
    [
      `delegation (sisyphus CLI): ${CELLS.length} cells`,
      ...CELLS.map(
        (c) =>
          `  ${c.authority.padEnd(6)} ${c.mutation.padEnd(22)} ${c.fault.padEnd(17)} apps=${c.applications}  ${c.commit} ; retry ${c.retry}`,
      ),
    ].join("\n"),
  );
});

const FAULTS: readonly Fault[] = ["http5xx", "resetAfterApply", "silentDrop", "editBeforeCommit"];
const cases = (list: readonly (readonly [Mutation, Fault])[]) =>
  list.map(([m, f]) => [m.name, f, m] as const);

describe("the CLI delegating to the Node authority", () => {
  let sb: Sandbox;
  let s: Scene;
  it.each(
    cases([
      ...FAULTS.map((f) => [UPDATE_GOALS, f] as const),
      [UPDATE_GOALS, "authorityKilled"],
      [INSERT_AFTER, "resetAfterApply"],
      ...(LONG ? ([[INSERT_AFTER, "http5xx"]] as const) : []),
    ]),
  )("%s under %s", async (_name, fault, m) => {
    sb ??= await startSandbox({ seed: "demo" });
    s ??= scene(sb);
    await runCell(sb, "node", s, m, fault);
  });
  afterAll(async () => {
    killAuthorities();
    await sb?.stop();
  });
});

describe("the CLI delegating to the kernel authority (plugin host)", () => {
  let sb: Sandbox;
  let s: Scene;
  it.each(
    cases([
      ...FAULTS.map((f) => [UPDATE_GOALS, f] as const),
      ...(LONG ? ([[INSERT_AFTER, "resetAfterApply"]] as const) : []),
    ]),
  )("%s under %s", async (_name, fault, m) => {
    sb ??= await sandboxWithPlugin({ serialisePaths: false });
    s ??= scene(sb);
    await runCell(sb, "kernel", s, m, fault);
  });
  afterAll(async () => {
    await sb?.stop();
  });
});

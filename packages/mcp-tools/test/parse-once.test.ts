/**
 * Parse once: a call through the shared gateway runs its action's zod schema (and the safety
 * fields' schema) exactly once, however many steps take it — classification, the commit's checks
 * before confirmation, a run again after a late confirmation, a read run again under the call's
 * own settings. Each scenario below used to parse the same call two to four times. The count is of
 * the schema's own runs (`_zod.run`, what every zod parse of that schema goes through), so a second
 * parse by any road — `parseCall`, `bindCall`, a direct `safeParse` — fails it.
 */
import type { ServerContext } from "@modelcontextprotocol/server";
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { afterEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { CATALOG } from "../src/catalog.js";
import { parseCall, safetyFields } from "../src/parsed-call.js";
import { DEFAULT_SETTINGS, type SisyphusSettings } from "../src/settings.js";
import { Admission, ConfirmationBook, createGateway } from "../src/shell/index.js";
import { useHarness } from "./harness.js";
import { sc } from "./support/gateway-driver.js";

const h = useHarness();

/** Counts every run of `schema` (each zod parse of it runs it once at its top level). */
function countRuns(schema: { _zod: { run: (...args: never[]) => unknown } }): MockInstance {
  return vi.spyOn(schema._zod, "run");
}

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * A gateway over the harness's runtime whose settings are `settings.current` (no kernel read),
 * read beside the call's first kernel reads once a first call has read them; a legacy client
 * without form elicitation, so `confirm: true` confirms.
 */
function gatewayWithSettings(settings: { current: SisyphusSettings }) {
  const gateway = createGateway({
    runtime: h.runtime,
    admission: new Admission(),
    confirmations: new ConfirmationBook({ random: { nextInt: () => 7 } }),
    role: { kind: "local", epoch: "test-epoch" },
    snapshot: async () => ({ settings: settings.current }),
    snapshotBesideReads: true,
  });
  const ctx = {
    mcpReq: { signal: new AbortController().signal, _meta: {}, requestState: () => undefined },
  } as unknown as ServerContext;
  const conn = { principal: "test", legacyCapabilities: () => undefined };
  return (tool: string, args: Record<string, unknown>) => gateway(tool, args, ctx, conn);
}

/** Preflight, then the commit with its request ID and credential, each through `call`. */
async function preflightThenCommit(
  call: (tool: string, args: Record<string, unknown>) => Promise<{ structuredContent?: unknown }>,
  tool: string,
  args: Record<string, unknown>,
  schemaRuns: MockInstance,
) {
  const safetyRuns = countRuns(safetyFields);
  const preflight = sc(await call(tool, { ...args, validateOnly: true }));
  expect(preflight["requestId"], JSON.stringify(preflight)).toBeTypeOf("string");
  expect(schemaRuns).toHaveBeenCalledTimes(1);
  expect(safetyRuns).toHaveBeenCalledTimes(1);
  const commit = await call(tool, { ...h.commitArgs(args, preflight), confirm: true });
  expect(schemaRuns).toHaveBeenCalledTimes(2);
  expect(safetyRuns).toHaveBeenCalledTimes(2);
  return { preflight, commit: sc(commit) };
}

describe("a call through the gateway is parsed once", () => {
  it("a dangerous commit: classified, prechecked before confirmation and run on one parse", async () => {
    const call = gatewayWithSettings({ current: DEFAULT_SETTINGS });
    const runs = countRuns(CATALOG.block.delete.args);
    const { commit } = await preflightThenCommit(
      call,
      "block",
      { action: "delete", id: DEMO_IDS.paragraphStatus },
      runs,
    );
    expect(commit["error"], JSON.stringify(commit)).toBeUndefined();
    expect(commit).toMatchObject({ status: "committed" });
  });

  it("a move across documents: its late confirmation, precheck and second run reuse the parse", async () => {
    const call = gatewayWithSettings({ current: DEFAULT_SETTINGS });
    // A refinement (`needs previousID or parentID`) runs with the schema: once per call.
    const runs = countRuns(CATALOG.block.move.args);
    const { preflight, commit } = await preflightThenCommit(
      call,
      "block",
      { action: "move", id: DEMO_IDS.paragraphJournal, previousID: DEMO_IDS.paragraphGoals },
      runs,
    );
    // The commit's probe found the move crosses documents: it asked, then ran again, confirmed.
    expect(preflight).toMatchObject({ confirmationRequired: true });
    expect(commit["error"], JSON.stringify(commit)).toBeUndefined();
    expect(commit).toMatchObject({ status: "committed" });
  });

  it("a paged read run again under its own settings takes their page size without a parse", async () => {
    const settings = { current: DEFAULT_SETTINGS };
    const call = gatewayWithSettings(settings);
    const args = { action: "outline", id: DEMO_IDS.docPlan };
    // The first call reads its settings first; the next starts under them, beside its own read.
    const first = sc(await call("document", args));
    expect(first).toMatchObject({ total: 2, pageCount: 1 });
    settings.current = {
      ...DEFAULT_SETTINGS,
      options: { ...DEFAULT_SETTINGS.options, pageSize: 1 },
    };
    const runs = countRuns(CATALOG.document.outline.args);
    const second = sc(await call("document", args));
    expect(second).toMatchObject({ total: 2, pageCount: 2 });
    expect(second["headings"]).toHaveLength(1);
    expect(runs).toHaveBeenCalledTimes(1);
  });

  it("an invalid call answers its one parse's error, classified invalid", async () => {
    const call = gatewayWithSettings({ current: DEFAULT_SETTINGS });
    const runs = countRuns(CATALOG.block.move.args);
    const refused = sc(await call("block", { action: "move", id: DEMO_IDS.paragraphJournal }));
    expect(refused["error"]).toMatchObject({ code: "invalid_arguments", writeAttempted: false });
    expect(runs).toHaveBeenCalledTimes(1);
    expect(parseCall("block", { action: "move", id: DEMO_IDS.paragraphJournal })).toMatchObject({
      kind: "invalid",
      action: "move",
      dangerous: false,
    });
  });
});

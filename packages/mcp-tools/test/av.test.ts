/**
 * av (databases) against the sandbox kernel: the reads (`get`, `render` paged and compact, `keys`)
 * never create a database, and `av.create` makes exactly one carrier block and one database file
 * however its stages are interrupted.
 *
 * A crash is a process that stops at one point — right after the ledger recorded a step, or right
 * after the kernel applied a write whose answer never came back — and makes no call after it; a
 * fresh coordinator and runtime over the same durable ledger then replay the same request.
 */
import { seededRandomSource } from "@sisyphus/core-hash";
import {
  createSiyuanClient,
  ENDPOINTS,
  type SiyuanClient,
  type Transport,
  type TransportRequest,
  type TransportResponse,
  undiciTransport,
} from "@sisyphus/siyuan-api";
import { type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { EXPECT_POLL_TIMEOUT_MS } from "@sisyphus/siyuan-sandbox/testing";
import {
  createWriteCoordinator,
  type LedgerEntry,
  type LedgerStore,
  MemoryLedgerStore,
  MemoryReservationStore,
} from "@sisyphus/write-safety";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolRuntime, type ToolResult, type ToolRuntime } from "../src/index.js";
import { errorCode, useHarness } from "./harness.js";

const RENDER = "/api/av/renderAttributeView";
const INSERT = "/api/block/insertBlock";
const WRITE_PATHS = new Set(
  Object.values(ENDPOINTS)
    .filter((e) => e.kind === "write")
    .map((e) => e.path),
);
const never = <T>() => new Promise<T>(() => {});

/** Records what a process sends; once `dead`, every call hangs (the process is gone). */
class ProcessTransport implements Transport {
  readonly name = "process";
  readonly sent: Array<{ endpoint: string; body: string }> = [];
  dead = false;
  /** Dies right after the kernel answered the first request this matches. */
  dieAfter: ((req: TransportRequest) => boolean) | undefined;

  constructor(private readonly inner: Transport) {}

  async send(req: TransportRequest): Promise<TransportResponse> {
    if (this.dead) return never();
    this.sent.push({
      endpoint: req.endpoint,
      body: req.body.kind === "json" ? req.body.text : "[bytes]",
    });
    const answer = await this.inner.send(req);
    if (this.dieAfter?.(req)) {
      this.dead = true;
      return never();
    }
    return answer;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A process's ledger store: durable puts, then death right after the put `dieAfter` matches. */
class ProcessLedger implements LedgerStore {
  dieAfter: ((entry: LedgerEntry) => boolean) | undefined;
  constructor(
    private readonly inner: MemoryLedgerStore,
    private readonly transport: ProcessTransport,
  ) {}
  loadAll() {
    return this.inner.loadAll();
  }
  async put(entry: LedgerEntry): Promise<void> {
    if (this.transport.dead) return never();
    await this.inner.put(entry);
    if (this.dieAfter?.(entry)) {
      this.transport.dead = true;
      return never();
    }
  }
  delete(ids: readonly string[]) {
    return this.inner.delete(ids);
  }
}

interface Process {
  readonly runtime: ToolRuntime;
  readonly transport: ProcessTransport;
  readonly ledger: ProcessLedger;
  readonly client: SiyuanClient;
}

/** Processes over one sandbox and one durable ledger: `start` starts one (after the last died). */
function processes() {
  let sandbox: Sandbox;
  const ledgerStore = new MemoryLedgerStore();
  const reservations = new MemoryReservationStore();
  const started: Process[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox({ seed: "demo", flushIntervalMs: 5 });
  });
  afterAll(async () => {
    for (const p of started) await p.client.close();
    await sandbox.stop();
  });
  const start = async (): Promise<Process> => {
    const transport = new ProcessTransport(
      undiciTransport({ baseUrl: sandbox.url, token: sandbox.token, timeoutMs: 5000 }),
    );
    const ledger = new ProcessLedger(ledgerStore.reopen(), transport);
    const client = createSiyuanClient({ transport });
    const coordinator = await createWriteCoordinator({
      clock: { now: () => 1_790_000_000_000 },
      random: seededRandomSource(started.length + 11),
      epoch: `process-${started.length}`,
      ledgerStore: ledger,
      reservationStore: reservations.reopen(),
    });
    const runtime = createToolRuntime({
      client,
      coordinator,
      config: { loadPermissions: () => ({ default: "delete" }) },
    });
    const p = { runtime, transport, ledger, client };
    started.push(p);
    return p;
  };
  return { start, sandbox: () => sandbox, ledgerStore };
}

const ok = (r: ToolResult) => {
  expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
  return r.structuredContent;
};

const COLUMNS = [
  { name: "Status", type: "select" },
  { name: "Due", type: "date" },
];

/** Database blocks in one document, and every database file the sandbox ever created. */
function census(sandbox: Sandbox, doc: string) {
  const blocks = sandbox.control.sql(
    `SELECT id FROM blocks WHERE type = 'av' AND root_id = '${doc}'`,
  ).length;
  const files = sandbox.control.avLog().filter((e) => e.kind === "created");
  return { blocks, files: files.length };
}

describe("av reads", () => {
  const h = useHarness();

  /** A database made with the client directly: two detached rows with a text value each. */
  async function seedDatabase(): Promise<{ avID: string; textKey: string }> {
    const doc = h.sandbox.control.external.createDoc(h.notebook, "/AV reads", "intro");
    await h.sandbox.control.flush();
    const made = ok(
      (await h.write("av", { action: "create", parentID: doc, name: "Books" })).commit,
    );
    const avID = String(made["avID"]);
    await h.client.av.addAttributeViewKey({
      avID,
      keyID: "20260101120000-txtkey1",
      keyName: "Note",
      keyType: "text",
      keyIcon: "",
      previousKeyID: "",
    });
    await h.client.av.addAttributeViewBlocks({
      avID,
      srcs: [
        { id: "", isDetached: true, content: "Dune", itemID: "20260101120000-row0001" },
        { id: "", isDetached: true, content: "Emma", itemID: "20260101120000-row0002" },
        { id: "", isDetached: true, content: "Ulysses", itemID: "20260101120000-row0003" },
      ],
    });
    await h.client.av.setAttributeViewBlockAttr({
      avID,
      keyID: "20260101120000-txtkey1",
      itemID: "20260101120000-row0001",
      value: { text: { content: "sand" } },
    });
    return { avID, textKey: "20260101120000-txtkey1" };
  }

  it("get, keys and render describe the database; render is paged with compact rows", async () => {
    const { avID, textKey } = await seedDatabase();
    const got = ok(await h.call("av", { action: "get", id: avID }));
    expect(got).toMatchObject({ id: avID, name: "Books", rowCount: 3 });
    expect((got["columns"] as Array<{ name: string }>).map((c) => c.name)).toEqual([
      "Primary Key",
      "Select",
      "Note",
    ]);
    const keys = ok(await h.call("av", { action: "keys", id: avID }));
    expect(keys["columns"]).toContainEqual({ id: textKey, name: "Note", type: "text" });

    const page1 = ok(await h.call("av", { action: "render", id: avID, page: 1, pageSize: 2 }));
    expect(page1).toMatchObject({ name: "Books", viewType: "table", total: 3, pageCount: 2 });
    const names = (page1["columns"] as Array<{ name: string }>).map((c) => c.name);
    expect(names).toEqual(["Note", "Primary Key", "Select"]);
    expect(page1["rows"]).toEqual([
      { id: "20260101120000-row0001", values: ["sand", "Dune", []] },
      { id: "20260101120000-row0002", values: [null, "Emma", []] },
    ]);
    const page2 = ok(await h.call("av", { action: "render", id: avID, page: 2, pageSize: 2 }));
    expect((page2["rows"] as Array<{ id: string }>).map((r) => r.id)).toEqual([
      "20260101120000-row0003",
    ]);
    const full = ok(await h.call("av", { action: "render", id: avID, pageSize: 1, full: true }));
    const cells = (full["rows"] as Array<{ cells: Array<{ value: { type: string } }> }>)[0]?.cells;
    expect(cells?.map((c) => c.value.type)).toEqual(["text", "block", "select"]);
  });

  it("an unknown database is not_found for every read, and no read creates it", async () => {
    const id = "20260101120000-nosuchv";
    const before = h.writes(RENDER);
    for (const action of ["get", "render", "keys"]) {
      const r = await h.call("av", { action, id });
      expect(errorCode(r), action).toBe("not_found");
    }
    expect(h.writes(RENDER)).toBe(before + 1);
    expect(h.sandbox.control.av(id)).toBeNull();
    expect(h.sandbox.control.avLog(id)).toEqual([]);
  });

  it("reading a database needs the default permission: a notebook grant is not enough", async () => {
    h.permissions = { default: "none", notebooks: { [h.notebook]: "delete" } };
    try {
      const r = await h.call("av", { action: "get", id: "20260101120000-nosuchv" });
      expect(errorCode(r)).toBe("permission_denied");
    } finally {
      h.permissions = { default: "delete" };
    }
  });

  it("bad arguments are refused before any kernel call", async () => {
    const r = await h.call("av", { action: "render", id: "nope" });
    expect(errorCode(r)).toBe("invalid_arguments");
    const c = await h.call("av", {
      action: "create",
      parentID: "20260101120000-abcdefg",
      columns: [{ name: "x", type: "relation" }],
      validateOnly: true,
    });
    expect(errorCode(c)).toBe("invalid_arguments");
  });
});

describe("av.create", () => {
  const h = useHarness();

  const newDoc = async (title: string) => {
    const doc = h.sandbox.control.external.createDoc(h.notebook, `/${title}`, "intro");
    await h.sandbox.control.flush();
    return doc;
  };

  it("preflight creates nothing; the commit makes one named database with the template's columns", async () => {
    const doc = await newDoc("Create");
    const args = { action: "create", parentID: doc, name: " Reading\nlist ", columns: COLUMNS };
    const filesBefore = census(h.sandbox, doc).files;
    const pre = ok(await h.call("av", { ...args, validateOnly: true }));
    expect(pre["preconditionField"]).toBeNull();
    expect(census(h.sandbox, doc)).toEqual({ blocks: 0, files: filesBefore });

    const c = ok(await h.call("av", h.commitArgs(args, pre)));
    expect(c).toMatchObject({ status: "committed", name: "Reading list" });
    const avID = String(c["avID"]);
    const columns = c["columns"] as Array<{ id: string; name: string; type: string }>;
    expect(columns.map((k) => [k.name, k.type])).toEqual([
      ["Primary Key", "block"],
      ["Status", "select"],
      ["Due", "date"],
    ]);
    expect(census(h.sandbox, doc)).toEqual({ blocks: 1, files: filesBefore + 1 });
    expect(h.sandbox.control.avBlocks(avID)).toEqual([c["id"]]);
    // The template's pre/postimage digests are answered as aliases, never complete.
    for (const field of ["templatePreimageHash", "templatePostimageHash"]) {
      expect(c[field], field).toMatch(/^[0-9a-f]{4,16}$/);
    }
    expect(c["templatePreimageHash"]).not.toBe(c["templatePostimageHash"]);
    expect(c).not.toHaveProperty("digests");
    expect(JSON.stringify(c)).not.toMatch(/[0-9a-f]{64}/);

    // The readback as an agent would do it.
    const got = ok(await h.call("av", { action: "get", id: avID }));
    expect(got).toMatchObject({ name: "Reading list", rowCount: 0 });
    const rendered = ok(await h.call("av", { action: "render", id: avID }));
    expect(rendered["columns"]).toEqual(columns);
  });

  it("without a template the kernel's default columns stay; the answer replays unchanged", async () => {
    const doc = await newDoc("Plain");
    const { preflight, commit } = await h.write("av", { action: "create", parentID: doc });
    const c = ok(commit);
    expect((c["columns"] as Array<{ name: string }>).map((k) => k.name)).toEqual([
      "Primary Key",
      "Select",
    ]);
    expect(c).not.toHaveProperty("templatePreimageHash");
    const inserts = h.writes(INSERT);
    const again = ok(
      await h.call("av", h.commitArgs({ action: "create", parentID: doc }, preflight)),
    );
    expect(again).toMatchObject({ replayed: true, executedNow: false, avID: c["avID"] });
    expect(h.writes(INSERT)).toBe(inserts);
    expect(census(h.sandbox, doc).blocks).toBe(1);
  });

  it("a lost answer of a stage is resumed by the replay: still one database, each column once", async () => {
    const doc = await newDoc("Lost");
    const args = { action: "create", parentID: doc, name: "Lost", columns: COLUMNS };
    const files = census(h.sandbox, doc).files;
    const pre = ok(await h.call("av", { ...args, validateOnly: true }));
    h.sandbox.control.armFault({
      endpoint: "/api/av/addAttributeViewKey",
      kind: "resetAfterApply",
    });
    const first = await h.call("av", h.commitArgs(args, pre));
    expect(errorCode(first)).toBe("outcome_unknown");
    const creation = (
      (first.structuredContent["error"] as Record<string, unknown>)["details"] as {
        creation: { reservedIds: string[]; confirmedStages: string[] };
      }
    ).creation;
    expect(creation.confirmedStages).toEqual(["block", "file", "name"]);

    const replay = ok(await h.call("av", h.commitArgs(args, pre)));
    expect(replay).toMatchObject({ status: "committed", resumed: true, name: "Lost" });
    expect(replay["id"]).toBe(creation.reservedIds[0]);
    expect(replay["avID"]).toBe(creation.reservedIds[1]);
    expect((replay["columns"] as Array<{ name: string }>).map((k) => k.name)).toEqual([
      "Primary Key",
      "Status",
      "Due",
    ]);
    expect(census(h.sandbox, doc)).toEqual({ blocks: 1, files: files + 1 });
  });

  it("an anchor that does not exist is not_found at preflight", async () => {
    const r = await h.call("av", {
      action: "create",
      previousID: "20260101120000-missing",
      validateOnly: true,
    });
    expect(errorCode(r)).toBe("not_found");
  });
});

/** Where a process dies, in stage order: after a durable ledger step or after a kernel write. */
const CRASHES: ReadonlyArray<{
  readonly label: string;
  readonly ledger?: (e: LedgerEntry) => boolean;
  readonly kernel?: (req: TransportRequest) => boolean;
}> = [
  {
    label: "after the IDs were reserved",
    ledger: (e) => (e.creation?.reservedIds.length ?? 0) > 0,
  },
  { label: "after the carrier block was inserted", kernel: (r) => r.endpoint === INSERT },
  { label: "after stage block", ledger: (e) => stage(e, "block") },
  { label: "after the file was rendered", kernel: (r) => r.endpoint === RENDER },
  { label: "after stage file", ledger: (e) => stage(e, "file") },
  { label: "after the name was sent", kernel: (r) => r.endpoint === "/api/transactions" },
  { label: "after stage name", ledger: (e) => stage(e, "name") },
  {
    label: "after a column was added",
    kernel: (r) => r.endpoint === "/api/av/addAttributeViewKey",
  },
  { label: "after stage columns", ledger: (e) => stage(e, "columns") },
  {
    label: "after the default column was removed",
    kernel: (r) => r.endpoint === "/api/av/removeAttributeViewKey",
  },
  { label: "after stage trim", ledger: (e) => stage(e, "trim") },
  { label: "after the receipt was recorded", ledger: (e) => e.creation?.receipt !== undefined },
  { label: "after the commit was recorded (lost answer)", ledger: (e) => e.state === "committed" },
];

function stage(e: LedgerEntry, name: string): boolean {
  return e.state === "executing" && (e.creation?.confirmedStages.at(-1) ?? "") === name;
}

describe("av.create after a crash between stages", () => {
  const world = processes();

  it("a reserved ID taken by another block cannot be proven safe: outcome_unknown, nothing inserted", async () => {
    const sandbox = world.sandbox();
    const nb = sandbox.control.external.createNotebook("Taken");
    const doc = sandbox.control.external.createDoc(nb, "/Doc", "intro");
    await sandbox.control.flush();
    const args = { action: "create", parentID: doc, name: "Taken" };
    const p1 = await world.start();
    const pre = ok(await p1.runtime.callTool("av", { ...args, validateOnly: true }));
    p1.ledger.dieAfter = (e) => (e.creation?.reservedIds.length ?? 0) > 0;
    void p1.runtime.callTool("av", { ...args, requestId: pre["requestId"] });
    await expect
      .poll(() => p1.transport.dead, { interval: 5, timeout: EXPECT_POLL_TIMEOUT_MS })
      .toBe(true);
    const [entry] = (await world.ledgerStore.loadAll()).filter(
      (e) => e.requestId === pre["requestId"],
    );
    const [blockID, avID] = entry?.creation?.reservedIds ?? [];
    sandbox.control.external.appendBlock(doc, `someone else's\n{: id="${blockID}"}`);
    await sandbox.control.flush();

    const p2 = await world.start();
    const r = await p2.runtime.callTool("av", { ...args, requestId: pre["requestId"] });
    expect(errorCode(r)).toBe("outcome_unknown");
    const details = (r.structuredContent["error"] as { details: Record<string, unknown> }).details;
    expect(details["creation"]).toEqual({ reservedIds: [blockID, avID], confirmedStages: [] });
    expect(p2.transport.sent.filter((s) => WRITE_PATHS.has(s.endpoint))).toEqual([]);
    expect(census(sandbox, doc).blocks).toBe(0);
    expect(sandbox.control.av(String(avID))).toBeNull();
  });

  for (const crash of CRASHES) {
    it(`${crash.label}: the replay in a new process makes one carrier block and one database`, async () => {
      const sandbox = world.sandbox();
      const nb = sandbox.control.external.createNotebook(`Crash ${crash.label}`);
      const doc = sandbox.control.external.createDoc(nb, "/Doc", "intro");
      await sandbox.control.flush();
      const args = { action: "create", parentID: doc, name: "Crashed", columns: COLUMNS };
      const files = census(sandbox, doc).files;

      const p1 = await world.start();
      const pre = ok(await p1.runtime.callTool("av", { ...args, validateOnly: true }));
      p1.ledger.dieAfter = crash.ledger;
      p1.transport.dieAfter = crash.kernel;
      void p1.runtime.callTool("av", { ...args, requestId: pre["requestId"] });
      await expect
        .poll(() => p1.transport.dead, { interval: 5, timeout: EXPECT_POLL_TIMEOUT_MS })
        .toBe(true);
      await sandbox.control.flush();

      const p2 = await world.start();
      const answer = ok(await p2.runtime.callTool("av", { ...args, requestId: pre["requestId"] }));
      const lost = crash.label.includes("lost answer");
      expect(answer).toMatchObject({
        status: "committed",
        name: "Crashed",
        ...(lost ? { replayed: true, executedNow: false } : { resumed: true }),
      });
      const [entry] = (await world.ledgerStore.loadAll()).filter(
        (e) => e.requestId === pre["requestId"],
      );
      expect(entry?.state).toBe("committed");
      expect(answer["id"]).toBe(entry?.creation?.reservedIds[0]);
      expect(answer["avID"]).toBe(entry?.creation?.reservedIds[1]);
      expect(entry?.creation?.receipt).toMatchObject({ avID: answer["avID"] });
      expect((answer["columns"] as Array<{ name: string }>).map((k) => k.name)).toEqual([
        "Primary Key",
        "Status",
        "Due",
      ]);

      const sent = [...p1.transport.sent, ...p2.transport.sent];
      expect(sent.filter((s) => s.endpoint === INSERT)).toHaveLength(1);
      const creating = sent.filter(
        (s) => s.endpoint === RENDER && !s.body.includes('"createIfNotExist":false'),
      );
      expect(creating).toHaveLength(1);
      expect(census(sandbox, doc)).toEqual({ blocks: 1, files: files + 1 });
      expect(sandbox.control.avBlocks(String(answer["avID"]))).toEqual([answer["id"]]);
      // `executedNow` says whether the replay itself wrote; from the complete receipt it did not.
      const wrote = p2.transport.sent.some((s) => WRITE_PATHS.has(s.endpoint));
      expect(answer["executedNow"]).toBe(wrote);
      if (lost || crash.label.includes("receipt")) expect(wrote).toBe(false);
    });
  }
});

/**
 * Spec: the ledger "stores request/action/target identifiers and hashes … it does not store note
 * bodies or binary payloads", and the lease pool "stores no note content". For every strict
 * mutation of the fault-scenario registry (mcp-tools test/support/fault-scenarios.ts), the scenario
 * runs preflight, commit and replay through a coordinator on the Node authority's file stores
 * (`ledger.wal`, `reservations.wal` in a data directory, as `main.ts` opens them); then every
 * stored record is scanned for the mutation's body text and payload bytes.
 *
 * So the scan can fail, each body the request writes (`data`, `markdown`, `content`, a cell's
 * `value`, a detached row) carries a marker word made for this run, and an upload stages marker
 * bytes; the fixture's own block texts (what a tag, move or delete rewrites) are looked for too,
 * outside the fields the spec allows a record to name: {@link ALLOWED_FIELDS}.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileLedgerStore, FileReservationStore } from "@sisyphus/node-server";
import { createSiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import { startSandbox } from "@sisyphus/siyuan-sandbox";
import type { LedgerEntry } from "@sisyphus/write-safety";
import { describe, expect, it } from "vitest";
import {
  type Env,
  MatrixTransport,
  matrixTools,
  pool,
  type Scenario,
  surfaceOf,
} from "../../mcp-tools/test/support/fault-matrix.js";
import { SCENARIOS } from "../../mcp-tools/test/support/fault-scenarios.js";

/**
 * Record fields whose text may repeat what a note shows, because the spec lets a record name it:
 * a document's title and hpath, and names (of a notebook, database, column, template or uploaded
 * file: `name`, `fileName`). Only these are skipped when the fixture's block texts are looked
 * for; the markers and the payload are looked for everywhere.
 */
const ALLOWED_FIELDS: ReadonlySet<string> = new Set(["title", "hpath", "name", "fileName"]);

/** Argument fields whose strings are note bodies the request writes. */
const BODY_FIELDS: ReadonlySet<string> = new Set(["data", "markdown", "content", "value"]);

/** The request with a marker word after each body it writes; the markers used. */
function markBodies(args: Record<string, unknown>, marker: () => string) {
  const markers: string[] = [];
  const mark = (text: string) => {
    const m = marker();
    markers.push(m);
    return `${text} ${m}`;
  };
  const walk = (value: unknown, key: string | undefined): unknown => {
    if (typeof value === "string")
      return key !== undefined && BODY_FIELDS.has(key) ? mark(value) : value;
    if (Array.isArray(value)) {
      return value.map((v) =>
        key === "detached" && typeof v === "string" ? mark(v) : walk(v, undefined),
      );
    }
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    }
    return value;
  };
  return { args: walk(args, undefined) as Record<string, unknown>, markers };
}

/** Texts of every non-document block in the kernel (titles are allowed), long enough to be telling. */
function blockTexts(env: Env): string[] {
  return env.sandbox.control
    .sql("SELECT content FROM blocks WHERE type != 'd'")
    .map((r) => String(r["content"] ?? "").trim())
    .filter((t) => t.length >= 8);
}

/** Every string leaf of a record outside {@link ALLOWED_FIELDS}, with its path. */
function leaves(value: unknown, path: string, out: Array<[string, string]>): void {
  if (typeof value === "string") out.push([path, value]);
  else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) leaves(v, `${path}[${i}]`, out);
  } else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (!ALLOWED_FIELDS.has(k)) leaves(v, `${path}.${k}`, out);
    }
  }
}

interface Stored {
  readonly files: ReadonlyArray<readonly [string, Buffer]>;
  /** Parsed ledger records (the JSON after each line's checksum). */
  readonly records: readonly unknown[];
}

function readStored(dir: string): Stored {
  const files = ["ledger.wal", "reservations.wal"].map(
    (f) => [f, readFileSync(join(dir, f))] as const,
  );
  const records = files[0]![1]
    .toString("utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l.slice(9)) as unknown);
  return { files, records };
}

/** What of the mutation's content the stored records hold; empty when nothing. */
function leaks(
  stored: Stored,
  markers: readonly string[],
  payload: Uint8Array | undefined,
  texts: readonly string[],
): string[] {
  const found: string[] = [];
  for (const [file, bytes] of stored.files) {
    for (const m of markers) if (bytes.includes(m)) found.push(`${file} holds body marker ${m}`);
    if (payload !== undefined) {
      const b = Buffer.from(payload);
      const forms: Array<[string, string | Buffer]> = [
        ["bytes", b.subarray(0, 64)],
        ["base64", b.subarray(0, 48).toString("base64")],
        ["hex", b.subarray(0, 32).toString("hex")],
      ];
      for (const [form, needle] of forms) {
        if (bytes.includes(needle)) found.push(`${file} holds the payload (${form})`);
      }
    }
  }
  stored.records.forEach((record, i) => {
    const out: Array<[string, string]> = [];
    leaves(record, `ledger.wal line ${i + 1}`, out);
    for (const [path, value] of out) {
      for (const t of texts)
        if (value.includes(t)) found.push(`${path} holds block text ${JSON.stringify(t)}`);
    }
  });
  return found;
}

interface Checked {
  readonly scenario: Scenario;
  readonly committed: boolean;
  readonly answer: string;
  readonly markers: number;
  readonly records: number;
  readonly leaks: readonly string[];
}

let serial = 0;

/** One scenario, preflight → commit → replay on file stores; what the stores then hold of it. */
async function check(scenario: Scenario): Promise<Checked> {
  const dir = mkdtempSync(join(tmpdir(), "ledger-content-"));
  const sandbox = await startSandbox({
    seed: "empty",
    flushIntervalMs: 5,
    deterministic: true,
    utcTimestamps: false,
  });
  const http = () =>
    undiciTransport({ baseUrl: sandbox.url, token: sandbox.token, timeoutMs: 5000 });
  const client = createSiyuanClient({ transport: new MatrixTransport(http(), sandbox) });
  const verify = createSiyuanClient({ transport: http() });
  const ledgerStore = await FileLedgerStore.open<LedgerEntry>(join(dir, "ledger.wal"));
  const reservationStore = await FileReservationStore.open(join(dir, "reservations.wal"));
  try {
    const tools = await matrixTools(client, ledgerStore, "ledger-content", reservationStore);
    const env = { sandbox, verify, ...tools } as unknown as Env;
    const fx = await scenario.setup(env);
    const run = ++serial;
    let n = 0;
    const marked = markBodies(fx.args, () => `zqbody${run}x${++n}q`);
    let payload: Uint8Array | undefined;
    if (typeof marked.args["uploadSource"] === "string") {
      payload = Buffer.concat([Buffer.from(`zqpayload${run}q `), randomBytes(4096)]);
      marked.args["uploadSource"] = tools.stage("marked.bin", payload);
    }
    const textsBefore = blockTexts(env);
    const surface = surfaceOf(scenario);
    const confirmed = surface.dangerous !== false;
    const pre = await tools.call(surface.tool, { ...marked.args, validateOnly: true }, confirmed);
    const p = pre.structuredContent;
    const commitArgs: Record<string, unknown> = { ...marked.args, requestId: p["requestId"] };
    const field = p["preconditionField"];
    if (typeof field === "string") commitArgs[field] = p[field];
    const commit = await tools.call(surface.tool, commitArgs, confirmed);
    await tools.call(surface.tool, commitArgs, confirmed);
    await sandbox.control.flush();
    const texts = [...new Set([...textsBefore, ...blockTexts(env)])];
    const stored = readStored(dir);
    return {
      scenario,
      committed: commit.structuredContent["status"] === "committed",
      answer: JSON.stringify(commit.structuredContent).slice(0, 300),
      markers: marked.markers.length + (payload === undefined ? 0 : 1),
      records: stored.records.length,
      leaks: leaks(stored, marked.markers, payload, texts),
    };
  } finally {
    await ledgerStore.close();
    await reservationStore.close();
    await client.close();
    await verify.close();
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const CHECKED = await pool(SCENARIOS, 3, check);

describe("the ledger and reservation records hold no note bodies or binary payloads", () => {
  it("every scenario of the registry commits, and its request carried a body or payload to look for where it writes one", () => {
    for (const c of CHECKED) {
      expect(c.committed, `${c.scenario.name}: ${c.answer}`).toBe(true);
      expect(c.records, c.scenario.name).toBeGreaterThan(0);
    }
    // The markers reach every mutation that writes a body or a file.
    const marked = new Set(CHECKED.filter((c) => c.markers > 0).map((c) => c.scenario.key));
    for (const key of [
      "block.insert",
      "block.update",
      "document.create",
      "fs.write",
      "file.upload_asset",
      "file.create_template",
      "file.update_template",
      "av.add_rows",
      "av.set_cells",
    ]) {
      expect(marked, key).toContain(key);
    }
  });

  it("the scan finds each kind of leak, and skips block texts only in the allowed fields", () => {
    const line = (record: unknown) => Buffer.from(`00000000 ${JSON.stringify(record)}\n`);
    const payload = randomBytes(256);
    const stored = (record: unknown): Stored => ({
      files: [
        ["ledger.wal", line(record)],
        ["reservations.wal", Buffer.from("abcd\n")],
      ],
      records: [record],
    });
    const find = (record: unknown) =>
      leaks(stored(record), ["zqbody0x1q"], payload, ["gamma three"]);
    expect(find({ result: { toolReceipt: { note: "x zqbody0x1q" } } })).toHaveLength(1);
    expect(find({ result: { toolReceipt: { b: payload.toString("base64") } } })).toHaveLength(1);
    expect(find({ result: { toolReceipt: { h: payload.toString("hex") } } })).toHaveLength(1);
    expect(find({ reason: "block said gamma three" })).toHaveLength(1);
    for (const field of ALLOWED_FIELDS) expect(find({ [field]: "gamma three" }), field).toEqual([]);
    expect(find({ requestId: "abcd", targetIds: ["20260101120000-abcdefg"] })).toEqual([]);
  });

  it.each(CHECKED.map((c) => [c.scenario.name, c] as const))("%s", (_name, c) => {
    expect(c.committed, c.answer).toBe(true);
    expect(c.leaks).toEqual([]);
  });
});

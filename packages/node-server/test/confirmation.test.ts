import type { Client } from "@modelcontextprotocol/client";
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import {
  answerConfirmations,
  blockPreflight,
  type ConfirmationAnswer,
  delegatingClient,
  errorCode,
  httpClient,
  legacyInitialize,
  RAW_HEADERS,
  sc,
  sharedDemoAuthority,
} from "./harness.js";

const DELETE = "/api/block/deleteBlock";

const shared = sharedDemoAuthority();

/**
 * A client that declares form elicitation and answers every confirmation with `answer` (by
 * default: accept, confirm: true).
 */
async function confirmingClient(era: "modern" | "legacy", answer?: () => ConfirmationAnswer) {
  const client = await httpClient(shared.authority.url, { era, elicitation: { form: {} } });
  return { client, asked: answerConfirmations(client, answer) };
}

async function preflightDelete(client: Client, id: string) {
  const { result, p, commitArgs } = await blockPreflight(client, { action: "delete", id });
  expect(result.isError, JSON.stringify(p)).not.toBe(true);
  return commitArgs;
}

/** `era`'s confirming client deletes `id`: it is asked once, accepts, and the delete runs once. */
async function expectConfirmedDelete(era: "modern" | "legacy", id: string) {
  const { client, asked } = await confirmingClient(era);
  const args = await preflightDelete(client, id);
  const before = shared.sandbox.control.count(DELETE);
  const res = await client.callTool({ name: "block", arguments: args });
  expect(res.isError, JSON.stringify(sc(res))).not.toBe(true);
  expect(asked.count).toBe(1);
  expect(shared.sandbox.control.count(DELETE)).toBe(before + 1);
  await client.close();
}

describe("modern form confirmation (input_required + elicitation/create)", () => {
  it("never asks for validateOnly, asks once on commit, runs after accept, and asks again on replay", async () => {
    const { client, asked } = await confirmingClient("modern");
    const args = await preflightDelete(client, DEMO_IDS.paragraphTaskParser);
    expect(asked.count).toBe(0);
    const before = shared.sandbox.control.count(DELETE);
    const res = await client.callTool({ name: "block", arguments: args });
    expect(res.isError, JSON.stringify(sc(res))).not.toBe(true);
    expect(asked.count).toBe(1);
    expect(shared.sandbox.control.count(DELETE)).toBe(before + 1);
    const replay = await client.callTool({ name: "block", arguments: args });
    expect(replay.isError).not.toBe(true);
    expect(asked.count).toBe(2);
    expect(shared.sandbox.control.count(DELETE)).toBe(before + 1);
    await client.close();
  });

  it("distinguishes decline, cancel and invalid content, writing nothing", async () => {
    const before = shared.sandbox.control.count(DELETE);
    const cases: Array<[ConfirmationAnswer, string, boolean]> = [
      [{ action: "decline" }, "confirmation_declined", false],
      [{ action: "accept", content: { confirm: false } }, "confirmation_declined", false],
      [{ action: "cancel" }, "confirmation_cancelled", true],
      [{ action: "accept", content: {} }, "confirmation_invalid", false],
      [{ action: "accept", content: { confirm: "yes" } }, "confirmation_invalid", false],
    ];
    for (const [answer, code, cancelled] of cases) {
      const { client } = await confirmingClient("modern", () => answer);
      const args = await preflightDelete(client, DEMO_IDS.paragraphTaskContract);
      const res = await client.callTool({ name: "block", arguments: args });
      expect(errorCode(res)).toBe(code);
      expect(sc(res)["cancelled"]).toBe(cancelled);
      await client.close();
    }
    expect(shared.sandbox.control.count(DELETE)).toBe(before);
    expect(shared.sandbox.control.kramdown(DEMO_IDS.paragraphTaskContract)).not.toBeNull();
  });

  it("treats confirm=false as a decline without asking", async () => {
    const { client, asked } = await confirmingClient("modern");
    const args = await preflightDelete(client, DEMO_IDS.paragraphTaskContract);
    const res = await client.callTool({ name: "block", arguments: { ...args, confirm: false } });
    expect(errorCode(res)).toBe("confirmation_declined");
    expect(asked.count).toBe(0);
    await client.close();
  });
});

describe("clients without form elicitation, and legacy sessions", () => {
  it("requires confirm=true from a client without form elicitation, then runs", async () => {
    const client = await httpClient(shared.authority.url, {
      era: "modern",
      elicitation: { url: {} },
    });
    const args = await preflightDelete(client, DEMO_IDS.paragraphMilestones);
    const before = shared.sandbox.control.count(DELETE);
    expect(errorCode(await client.callTool({ name: "block", arguments: args }))).toBe(
      "confirmation_required",
    );
    expect(shared.sandbox.control.count(DELETE)).toBe(before);
    const res = await client.callTool({ name: "block", arguments: { ...args, confirm: true } });
    expect(res.isError, JSON.stringify(sc(res))).not.toBe(true);
    expect(shared.sandbox.control.count(DELETE)).toBe(before + 1);
    await client.close();
  });

  it("asks a legacy client that declares elicitation over its session", async () => {
    await expectConfirmedDelete("legacy", DEMO_IDS.codeJournal);
  });

  it("keeps confirm=true working for a legacy client without elicitation", async () => {
    const client = await httpClient(shared.authority.url, { era: "legacy" });
    const args = await preflightDelete(client, DEMO_IDS.mathJournal);
    expect(errorCode(await client.callTool({ name: "block", arguments: args }))).toBe(
      "confirmation_required",
    );
    const res = await client.callTool({ name: "block", arguments: { ...args, confirm: true } });
    expect(res.isError, JSON.stringify(sc(res))).not.toBe(true);
    await client.close();
  });
});

describe("requestState integrity (raw 2026-07-28 HTTP)", () => {
  const form = { elicitation: {} };
  async function raw(
    args: Record<string, unknown>,
    extra: Record<string, unknown> = {},
    caps: Record<string, unknown> = form,
  ) {
    const res = await fetch(shared.authority.url, {
      method: "POST",
      headers: {
        ...RAW_HEADERS,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "block",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: Math.floor(Math.random() * 1e9),
        method: "tools/call",
        params: {
          name: "block",
          arguments: args,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps,
          },
          ...extra,
        },
      }),
    });
    const body = (await res.json()) as { result?: Record<string, unknown> };
    return body.result ?? {};
  }
  const accept = { confirm: { action: "accept", content: { confirm: true } } };
  const code = (r: Record<string, unknown>) =>
    (r["structuredContent"] as { error?: { code?: string; reason?: string } } | undefined)?.error;

  it("rejects forged, reused and re-bound states; elicitation: {} counts as form", async () => {
    const client = await httpClient(shared.authority.url, { era: "modern" });
    const args = await preflightDelete(client, DEMO_IDS.paragraphGoals);
    await client.close();
    const before = shared.sandbox.control.count(DELETE);

    const first = await raw(args);
    expect(first["resultType"]).toBe("input_required");
    const state = first["requestState"] as string;
    expect(typeof state).toBe("string");

    const forged = await raw(args, {
      inputResponses: accept,
      requestState: `${state.slice(0, -4)}AAAA`,
    });
    expect(code(forged)).toMatchObject({ code: "confirmation_invalid", reason: "forged" });

    const changed = await raw(
      { ...args, id: DEMO_IDS.paragraphDecision },
      { inputResponses: accept, requestState: state },
    );
    expect(code(changed)).toMatchObject({ code: "confirmation_invalid", reason: "mismatch" });
    const reused = await raw(args, { inputResponses: accept, requestState: state });
    expect(code(reused)).toMatchObject({ code: "confirmation_invalid", reason: "reused" });
    expect(shared.sandbox.control.count(DELETE)).toBe(before);

    const second = await raw(args);
    const ok = await raw(args, { inputResponses: accept, requestState: second["requestState"] });
    expect(ok["isError"]).not.toBe(true);
    expect(shared.sandbox.control.count(DELETE)).toBe(before + 1);
    const again = await raw(args, { inputResponses: accept, requestState: second["requestState"] });
    expect(code(again)).toMatchObject({ code: "confirmation_invalid", reason: "reused" });
  });

  it("validates a present requestState whatever capabilities the request declares, confirm: true or not", async () => {
    const client = await httpClient(shared.authority.url, { era: "modern" });
    const args = await preflightDelete(client, DEMO_IDS.paragraphQuote);
    await client.close();
    const before = shared.sandbox.control.count(DELETE);
    const confirmed = { ...args, confirm: true };
    for (const caps of [{}, { elicitation: { url: {} } }]) {
      const forged = await raw(confirmed, { requestState: "eyJ2IjoxfQ.AAAA" }, caps);
      expect(code(forged)).toMatchObject({ code: "confirmation_invalid", reason: "forged" });
    }
    // A state issued to the form-capable request, retried with the capability removed and
    // confirm: true: refused (its binding names the declaration), and spent.
    const issued = await raw(args);
    expect(issued["resultType"]).toBe("input_required");
    const state = issued["requestState"] as string;
    const stripped = await raw(confirmed, { inputResponses: accept, requestState: state }, {});
    expect(code(stripped)).toMatchObject({ code: "confirmation_invalid", reason: "mismatch" });
    const reused = await raw(confirmed, { requestState: state }, {});
    expect(code(reused)).toMatchObject({ code: "confirmation_invalid", reason: "reused" });
    expect(shared.sandbox.control.count(DELETE)).toBe(before);
    expect(shared.sandbox.control.kramdown(DEMO_IDS.paragraphQuote)).not.toBeNull();
    // Without a requestState the convention still works for a client without form elicitation.
    const ok = await raw(confirmed, {}, {});
    expect(ok["isError"], JSON.stringify(ok)).not.toBe(true);
    expect(shared.sandbox.control.count(DELETE)).toBe(before + 1);
  });

  it("asks a modern form-capable client that sent confirm: true alone (input_required)", async () => {
    const client = await httpClient(shared.authority.url, { era: "modern" });
    const args = await preflightDelete(client, DEMO_IDS.paragraphDecision);
    await client.close();
    const before = shared.sandbox.control.count(DELETE);
    const asked = await raw({ ...args, confirm: true });
    expect(asked["resultType"]).toBe("input_required");
    expect(typeof asked["requestState"]).toBe("string");
    expect(shared.sandbox.control.count(DELETE)).toBe(before);
  });
});

describe("legacy sessions keep the confirm: true convention", () => {
  it("does not ask a form-capable legacy client again when it sent confirm: true", async () => {
    const { client, asked } = await confirmingClient("legacy", () => ({ action: "decline" }));
    const args = await preflightDelete(client, DEMO_IDS.paragraphJournal);
    const before = shared.sandbox.control.count(DELETE);
    const res = await client.callTool({ name: "block", arguments: { ...args, confirm: true } });
    expect(res.isError, JSON.stringify(sc(res))).not.toBe(true);
    expect(asked.count).toBe(0);
    expect(shared.sandbox.control.count(DELETE)).toBe(before + 1);
    await client.close();
  });

  it("rejects a forged requestState sent on a legacy session with confirm: true", async () => {
    const client = await httpClient(shared.authority.url, { era: "modern" });
    const args = await preflightDelete(client, DEMO_IDS.listReading);
    await client.close();
    const init = await legacyInitialize(shared.authority.url);
    const session = init.headers.get("mcp-session-id") as string;
    await init.text();
    const before = shared.sandbox.control.count(DELETE);
    const res = await fetch(shared.authority.url, {
      method: "POST",
      headers: { ...RAW_HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "block",
          arguments: { ...args, confirm: true },
          requestState: "eyJ2IjoxfQ.AAAA",
        },
      }),
    });
    const text = await res.text();
    const body = JSON.parse(text.includes("data:") ? (/data: (.*)/.exec(text)?.[1] ?? "") : text);
    expect(body.result?.structuredContent?.error).toMatchObject({
      code: "confirmation_invalid",
      reason: "forged",
    });
    expect(shared.sandbox.control.count(DELETE)).toBe(before);
  });
});

describe("the ledger and lease are checked before anyone is asked to confirm", () => {
  for (const era of ["modern", "legacy"] as const) {
    it(`refuses a commit that would fail without asking (${era})`, async () => {
      const { client, asked } = await confirmingClient(era);
      const args = await preflightDelete(client, DEMO_IDS.blockquoteMeeting);
      const other = await preflightDelete(client, DEMO_IDS.listMilestones);
      const field = "expectedStateHash";
      const before = shared.sandbox.control.count(DELETE);
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ ...args, requestId: "fedcba98" }, "preflight_lease_invalid", "unknown_request_id"],
        [{ ...args, [field]: undefined }, "precondition_required", "credential_absent"],
        [{ ...args, [field]: "not-a-hash" }, "precondition_required", "credential_malformed"],
        [{ ...args, [field]: "0000" }, "preflight_lease_invalid", "credential_mismatch"],
        [{ ...args, requestId: other["requestId"] }, "idempotency_conflict", "arguments_differ"],
      ];
      for (const [callArgs, code, reason] of cases) {
        const res = await client.callTool({ name: "block", arguments: callArgs });
        expect(sc(res)["error"], JSON.stringify(callArgs)).toMatchObject({
          code,
          details: { reason },
        });
      }
      expect(asked.count).toBe(0);
      expect(shared.sandbox.control.count(DELETE)).toBe(before);
      await client.close();
    });
  }

  it("still asks (and then runs) when the checks pass", async () => {
    await expectConfirmedDelete("modern", DEMO_IDS.blockquoteMeeting);
  });
});

describe("the preflight answer says whether and how the commit is confirmed", () => {
  const MOVE = "/api/block/moveBlock";
  let seq = 0;

  /** A fresh document in the research notebook with `markdown`; its ID and its child block IDs. */
  async function freshDoc(client: Client, markdown: string) {
    const id = shared.sandbox.control.external.createDoc(
      DEMO_IDS.notebookResearch,
      `/Confirm guide ${++seq}`,
      markdown,
    );
    await shared.sandbox.control.flush();
    return { id, blocks: await children(client, id) };
  }

  async function children(client: Client, id: string): Promise<string[]> {
    const res = await client.callTool({ name: "block", arguments: { action: "get_children", id } });
    const rows = (sc(res)["result"] ?? sc(res)["children"]) as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }

  it("advertises confirm in the schema of every tool with a dangerous action", async () => {
    const client = await httpClient(shared.authority.url, { era: "modern" });
    const { tools } = await client.listTools();
    const confirmOf = (name: string) =>
      (tools.find((t) => t.name === name)?.inputSchema.properties as Record<string, unknown>)?.[
        "confirm"
      ];
    for (const name of ["block", "document", "fs", "notebook", "tag"]) {
      expect({ name, confirm: confirmOf(name) }).toEqual({ name, confirm: { type: "boolean" } });
    }
    expect(confirmOf("search")).toBeUndefined();
    await client.close();
  });

  type Elicitation = { form?: Record<string, never>; url?: Record<string, never> };
  const cases: Array<[string, "modern" | "legacy", Elicitation | undefined, string]> = [
    ["a modern form client", "modern", { form: {} }, "elicitation"],
    ["a modern client without form elicitation", "modern", { url: {} }, "confirm_true"],
    ["a legacy form client", "legacy", { form: {} }, "elicitation"],
    ["a legacy client without elicitation", "legacy", undefined, "confirm_true"],
  ];
  /** The HTTP client of a case, or (`delegating`) a stdio client delegating to the authority. */
  function clientOf(
    era: "modern" | "legacy",
    elicitation: Elicitation | undefined,
    delegating = false,
  ) {
    if (delegating) {
      return delegatingClient(shared.sandbox, shared.dataDir, elicitation ? { elicitation } : {});
    }
    return httpClient(shared.authority.url, { era, ...(elicitation ? { elicitation } : {}) });
  }
  for (const [who, era, elicitation, mode] of cases) {
    it(`tells ${who} "${mode}", and its first commit as told runs`, async () => {
      const client = await httpClient(shared.authority.url, {
        era,
        ...(elicitation ? { elicitation } : {}),
      });
      const asked = elicitation ? answerConfirmations(client) : { count: 0 };
      const d = await freshDoc(client, "delete me\n\nkeep me");
      const { p, commitArgs } = await blockPreflight(client, { action: "delete", id: d.blocks[0] });
      expect(p).toMatchObject({ confirmationRequired: true, confirmation: mode });
      // The answer names the next call itself; the credential is explained once, in bootstrap.
      expect(p["credentialNote"]).toBeUndefined();
      const next = String(p["nextCall"]);
      expect(next).toContain(`requestId:${JSON.stringify(p["requestId"])}`);
      expect(next).toContain(`expectedStateHash:${JSON.stringify(p["expectedStateHash"])}`);
      if (mode === "confirm_true")
        expect(next).toMatch(/^Ask the user to confirm .* and confirm:true\./);
      else expect(next).toMatch(/the server asks the user to confirm during it\.$/);
      const before = shared.sandbox.control.count(DELETE);
      const args = mode === "confirm_true" ? { ...commitArgs, confirm: true } : commitArgs;
      const res = await client.callTool({ name: "block", arguments: args });
      expect(res.isError, JSON.stringify(sc(res))).not.toBe(true);
      expect(asked.count).toBe(mode === "elicitation" ? 1 : 0);
      expect(shared.sandbox.control.count(DELETE)).toBe(before + 1);
      await client.close();
    });
  }

  it("moves a block within its document without asking anyone", async () => {
    const { client, asked } = await confirmingClient("modern");
    const d = await freshDoc(client, "one\n\ntwo\n\nthree");
    const args = { action: "move", id: d.blocks[2], previousID: d.blocks[0] };
    const { p, commitArgs } = await blockPreflight(client, args);
    expect(p["confirmationRequired"]).toBe(false);
    expect(p["confirmation"]).toBeUndefined();
    const res = await client.callTool({ name: "block", arguments: commitArgs });
    expect(res.isError, JSON.stringify(sc(res))).not.toBe(true);
    expect(asked.count).toBe(0);
    expect(await children(client, d.id)).toEqual([d.blocks[0], d.blocks[2], d.blocks[1]]);
    await client.close();
  });

  const moveCases: Array<[string, "modern" | "legacy", Elicitation | undefined, string, boolean]> =
    [
      ...cases.map(
        ([w, e, el, m]) =>
          [w, e, el, m, false] as [
            string,
            "modern" | "legacy",
            Elicitation | undefined,
            string,
            boolean,
          ],
      ),
      ["a delegating stdio form client", "modern", { form: {} }, "elicitation", true],
      ["a delegating stdio client without elicitation", "modern", undefined, "confirm_true", true],
    ];
  for (const [who, era, elicitation, mode, delegating] of moveCases) {
    it(`confirms a move to another document for ${who} ("${mode}") on the first commit`, async () => {
      const client = await clientOf(era, elicitation, delegating);
      const asked = elicitation ? answerConfirmations(client) : { count: 0 };
      const from = await freshDoc(client, "leaving\n\nstaying");
      const to = await freshDoc(client, "target");
      const args = { action: "move", id: from.blocks[0], parentID: to.id };
      const { p, commitArgs } = await blockPreflight(client, args);
      expect(p).toMatchObject({ confirmationRequired: true, confirmation: mode });
      const before = shared.sandbox.control.count(MOVE);
      if (mode === "confirm_true") {
        expect(errorCode(await client.callTool({ name: "block", arguments: commitArgs }))).toBe(
          "confirmation_required",
        );
        expect(shared.sandbox.control.count(MOVE)).toBe(before);
      }
      const sent = mode === "confirm_true" ? { ...commitArgs, confirm: true } : commitArgs;
      const res = await client.callTool({ name: "block", arguments: sent });
      expect(res.isError, JSON.stringify(sc(res))).not.toBe(true);
      expect(sc(res)["status"]).toBe("committed");
      expect(asked.count).toBe(mode === "elicitation" ? 1 : 0);
      expect(shared.sandbox.control.count(MOVE)).toBe(before + 1);
      expect((await children(client, to.id))[0]).toBe(from.blocks[0]);
      await client.close();
    });
  }

  // A person asked to confirm sees what would be lost: the block's kind and first line (cut, no
  // markup), how many blocks go with it, its document's title, path and size; an agent told to ask
  // gets the same line as the preflight's `subject` and as `error.subject`, whether the authority
  // is asked directly or through a delegating process.
  const subjectCases: Array<[string, Elicitation | undefined, boolean]> = [
    ["a modern form client", { form: {} }, false],
    ["a modern client without form elicitation", { url: {} }, false],
    ["a delegating stdio form client", { form: {} }, true],
    ["a delegating stdio client without elicitation", undefined, true],
  ];
  for (const [who, elicitation, delegating] of subjectCases) {
    it(`shows ${who} what a delete would lose, not only its ID`, async () => {
      const client = await clientOf("modern", elicitation, delegating);
      const messages: string[] = [];
      if (elicitation?.form !== undefined) {
        client.setRequestHandler("elicitation/create", async (req) => {
          messages.push(String((req.params as { message?: unknown }).message));
          return { action: "accept", content: { confirm: true } } as never;
        });
      }
      const first = `Decided <b>to</b> use sql.js ${"and more words ".repeat(6)}`;
      const d = await freshDoc(client, `> ${first}\n>\n> second paragraph\n\nkeep me`);
      const title = `Confirm guide ${seq}`;
      const { p, commitArgs } = await blockPreflight(client, { action: "delete", id: d.blocks[0] });
      const subject =
        `blockquote "Decided to use sql.js and more words and more words and mor…" ` +
        `(3 blocks) in document "${title}" (/${title}, 4 blocks)`;
      // An agent told to ask the user gets the line with the preflight, to ask before its commit.
      if (elicitation?.form !== undefined) expect(p["subject"]).toBeUndefined();
      else {
        expect(p["subject"]).toBe(subject);
        expect(String(p["nextCall"])).toContain(`naming what it acts on (subject: ${subject})`);
      }
      const asked = await client.callTool({ name: "block", arguments: commitArgs });
      if (elicitation?.form !== undefined) {
        expect(asked.isError, JSON.stringify(sc(asked))).not.toBe(true);
        expect(messages).toEqual([
          `Sisyphus asks to run the destructive action block.delete on "${d.blocks[0]}": ${subject}. Confirm?`,
        ]);
      } else {
        expect(errorCode(asked)).toBe("confirmation_required");
        expect((sc(asked)["error"] as Record<string, unknown>)["subject"]).toBe(subject);
        expect(messages).toEqual([]);
      }
      await client.close();
    });
  }
});

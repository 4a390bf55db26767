/**
 * The agent walk (issue 13, "Measured, not hoped"): ten everyday tasks driven with the official
 * client over HTTP from nothing but `tools/list` and the answers — every ID is discovered through
 * the tools (the user names documents and notebooks by title, as a person would), never taken from
 * the demo seed's constants. The call count per task is written down here; every strict edit takes
 * exactly 2 calls (preflight + commit); no `confirmation_required`, no error but the two
 * deliberate mistakes.
 */
import type { Client } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { answerConfirmations, errorCode, httpClient, sc, sharedDemoAuthority } from "./harness.js";

const shared = sharedDemoAuthority();

/** Tool calls per task: the budget the walk must meet exactly (23 in all). */
const EXPECTED_CALLS = {
  "edit a paragraph": 4,
  append: 2,
  "set an attribute": 2,
  "rename a document": 3,
  "create a document": 3,
  "move a block to the top": 2,
  "delete it": 2,
  "replay a commit": 1,
  search: 1,
  "two deliberate mistakes": 3,
} as const;
type Task = keyof typeof EXPECTED_CALLS;

type Args = Record<string, unknown>;
type Answer = Record<string, unknown>;

interface Walk {
  calls: Record<string, number>;
  errors: Array<{ task: Task; code: string | undefined }>;
  confirmationsAsked: number;
}

describe("agent walk", () => {
  let client: Client;
  const walk: Walk = { calls: {}, errors: [], confirmationsAsked: 0 };
  let asked: { count: number };
  let task: Task = "edit a paragraph";
  let descriptions = "";

  beforeAll(async () => {
    // The client declares form elicitation and accepts every confirmation it is asked.
    client = await httpClient(shared.authority.url, { era: "modern", elicitation: { form: {} } });
    asked = answerConfirmations(client);
    const { tools } = await client.listTools();
    descriptions = tools.map((t) => `${t.name}: ${t.description}`).join("\n");
  });

  /** One tool call of the current task: counted, its error (if any) recorded. */
  async function call(name: string, args: Args): Promise<{ answer: Answer; isError: boolean }> {
    walk.calls[task] = (walk.calls[task] ?? 0) + 1;
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) walk.errors.push({ task, code: errorCode(result) });
    return { answer: sc(result), isError: result.isError === true };
  }

  /**
   * A strict write as the descriptions teach it: preflight (`validateOnly: true`), then the same
   * call with the `requestId` and the field the preflight names in `preconditionField` (none for
   * creations), plus `confirm: true` only when the preflight says `confirmation: "confirm_true"`.
   * Exactly 2 calls; returns the commit's answer and the arguments it was sent with.
   */
  async function strict(name: string, args: Args) {
    const pre = await call(name, { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.answer)).toBe(false);
    const field = pre.answer["preconditionField"];
    const commitArgs: Args = { ...args, requestId: pre.answer["requestId"] };
    if (typeof field === "string") commitArgs[field] = pre.answer[field];
    if (pre.answer["confirmation"] === "confirm_true") commitArgs["confirm"] = true;
    const commit = await call(name, commitArgs);
    expect(commit.isError, JSON.stringify(commit.answer)).toBe(false);
    expect(commit.answer["status"]).toBe("committed");
    return { pre: pre.answer, commit: commit.answer, commitArgs };
  }

  /** The ID of the block whose kramdown (from `document.get`) begins with `prefix`. */
  function blockIdFromKramdown(kramdown: string, prefix: string): string {
    const blocks = kramdown.split("\n\n");
    const block = blocks.find((b) => b.startsWith(prefix)) as string;
    const id = /\{: id="([^"]+)"/.exec(block ?? "")?.[1];
    expect(id, `no block starting with ${prefix}`).toBeDefined();
    return id as string;
  }

  it("finishes the ten tasks in the budgeted calls with no guesses and no avoidable error", async () => {
    // The descriptions the agent reads spell out what it relies on below.
    expect(descriptions).toContain("find(title,notebook?)");
    expect(descriptions).toContain("parentID alone=first child");
    expect(descriptions).toContain("validateOnly:true");
    expect(descriptions).toContain("preconditionField");

    // 1. "In Project Plan, change the Status paragraph."
    task = "edit a paragraph";
    const found = (await call("document", { action: "find", title: "Project Plan" })).answer;
    const plan = (found["docs"] as Array<{ id: string; title: string }>).find(
      (d) => d.title === "Project Plan",
    );
    expect(plan).toBeDefined();
    const planId = (plan as { id: string }).id;
    const doc = (await call("document", { action: "get", id: planId })).answer;
    const status = blockIdFromKramdown(doc["kramdown"] as string, "Status:");
    await strict("block", {
      action: "update",
      id: status,
      dataType: "markdown",
      data: "Status: in review, owned by Ana.",
    });

    // 2. "Append a line to Project Plan."
    task = "append";
    const appended = await strict("block", {
      action: "append",
      parentID: planId,
      dataType: "markdown",
      data: "Next step: ask Ben for a review.",
    });
    const newBlock = appended.commit["id"] as string;
    expect(newBlock).toMatch(/^\d{14}-[0-9a-z]{7}$/);

    // 3. "Mark the Status paragraph as reviewed (attribute custom-reviewed=yes)."
    task = "set an attribute";
    const attrs = await strict("block", {
      action: "set_attrs",
      id: status,
      attrs: { "custom-reviewed": "yes" },
    });

    // 4. "Rename Meeting Notes to Meeting Notes 2026."
    task = "rename a document";
    const meetingFound = (await call("document", { action: "find", title: "Meeting Notes" }))
      .answer;
    const meeting = (meetingFound["docs"] as Array<{ id: string; title: string }>).find(
      (d) => d.title === "Meeting Notes",
    ) as { id: string };
    expect(meeting).toBeDefined();
    await strict("document", { action: "rename", id: meeting.id, title: "Meeting Notes 2026" });

    // 5. "Create a document Ideas in the Personal notebook."
    task = "create a document";
    const notebooks = (await call("notebook", { action: "list" })).answer["notebooks"] as Array<{
      id: string;
      name: string;
    }>;
    const personal = notebooks.find((n) => n.name === "Personal") as { id: string };
    expect(personal).toBeDefined();
    const created = await strict("document", {
      action: "create",
      notebook: personal.id,
      hpath: "/Ideas",
      markdown: "A first idea.",
    });
    expect(created.commit["id"]).toMatch(/^\d{14}-[0-9a-z]{7}$/);

    // 6. "Move the line you appended to the top of Project Plan." (within its own document: no
    // confirmation)
    task = "move a block to the top";
    const moved = await strict("block", { action: "move", id: newBlock, parentID: planId });
    expect(moved.pre["confirmationRequired"]).not.toBe(true);
    const children = shared.sandbox.control.kramdown(planId) as string;
    expect(children.startsWith("Next step: ask Ben for a review.")).toBe(true);

    // 7. "Now delete it." (dangerous: the preflight says how confirmation is asked)
    task = "delete it";
    const before = asked.count;
    const deleted = await strict("block", { action: "delete", id: newBlock });
    expect(deleted.pre["confirmationRequired"]).toBe(true);
    expect(deleted.pre["confirmation"]).toBe("elicitation");
    expect(asked.count).toBe(before + 1);
    expect(shared.sandbox.control.kramdown(newBlock)).toBeNull();

    // 8. "Your connection dropped after the attribute commit: send it again." Executes nothing.
    task = "replay a commit";
    const replay = (await call("block", attrs.commitArgs)).answer;
    expect(replay["replayed"]).toBe(true);
    expect(replay["executedNow"]).toBe(false);
    expect(replay["requestId"]).toBe(attrs.commit["requestId"]);

    // 9. "Where did we decide on sql.js?"
    task = "search";
    const hits = (await call("search", { action: "fulltext", query: "sql.js" })).answer[
      "hits"
    ] as Array<{ id: string; docID: string; snippet: string }>;
    expect(hits.some((h) => h.docID === meeting.id && h.snippet.includes("sql.js"))).toBe(true);
    expect(JSON.stringify(hits)).not.toContain("<mark>");

    // 10. Two deliberate mistakes: a commit without a requestId, and a wrong credential.
    task = "two deliberate mistakes";
    const noRequestId = await call("block", {
      action: "update",
      id: status,
      dataType: "markdown",
      data: "Status: done.",
    });
    expect(noRequestId.isError).toBe(true);
    expect((noRequestId.answer["error"] as { code: string }).code).toBe("precondition_required");
    const pre = (
      await call("block", {
        action: "update",
        id: status,
        dataType: "markdown",
        data: "Status: done.",
        validateOnly: true,
      })
    ).answer;
    const field = pre["preconditionField"] as string;
    const credential = pre[field] as string;
    const wrong = [...credential].map((c) => (c === "0" ? "1" : "0")).join("");
    const mismatch = await call("block", {
      action: "update",
      id: status,
      dataType: "markdown",
      data: "Status: done.",
      requestId: pre["requestId"],
      [field]: wrong,
    });
    const error = mismatch.answer["error"] as {
      code: string;
      hint: string;
      details: { reason: string };
    };
    expect(error.code).toBe("preflight_lease_invalid");
    expect(error.details.reason).toBe("credential_mismatch");
    expect(error.hint.length).toBeGreaterThan(0);

    walk.confirmationsAsked = asked.count;
    expect(walk.calls).toEqual(EXPECTED_CALLS);
    expect(Object.values(walk.calls).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(23);
    expect(walk.errors).toEqual([
      { task: "two deliberate mistakes", code: "precondition_required" },
      { task: "two deliberate mistakes", code: "preflight_lease_invalid" },
    ]);
    expect(walk.errors.some((e) => e.code === "confirmation_required")).toBe(false);
    await client.close();
  });
});

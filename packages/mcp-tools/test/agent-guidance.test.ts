/**
 * What an agent reads instead of guessing (issue 13): the preflight answer says whether the commit
 * needs the user's confirmation (a block move only when it leaves its document) and what a
 * credential is; positions mean what the signatures say.
 */

import { REPLAY_NOTES, WIRE_ERRORS } from "@sisyphus/write-safety";
import { describe, expect, it } from "vitest";
import { CREDENTIAL_NOTE } from "../src/tools/system.js";
import { errorCode, useHarness } from "./harness.js";

const h = useHarness();
let seq = 0;
const MOVE = "/api/block/moveBlock";

async function doc(markdown: string) {
  const id = h.sandbox.control.external.createDoc(h.notebook, `/Guide ${++seq}`, markdown);
  await h.client.flush();
  const children = await h.client.block.getChildBlocks({ id });
  return { id, blocks: children.map((c) => c.id) };
}

async function childIds(id: string): Promise<string[]> {
  await h.client.flush();
  return (await h.client.block.getChildBlocks({ id })).map((c) => c.id);
}

describe("confirmation in the preflight answer", () => {
  it("says confirmationRequired: true for a delete; the credential is explained in bootstrap, not here", async () => {
    const d = await doc("to delete\n\nkeep");
    const pre = await h.call("block", { action: "delete", id: d.blocks[0], validateOnly: true });
    expect(pre.isError).toBeUndefined();
    expect(pre.structuredContent["confirmationRequired"]).toBe(true);
    expect(pre.structuredContent["credentialNote"]).toBeUndefined();
    // How the user is asked depends on the client: only the shell says it.
    expect(pre.structuredContent["confirmation"]).toBeUndefined();
  });

  it("moves a block within its own document without confirmation", async () => {
    const d = await doc("one\n\ntwo\n\nthree");
    const [one, , three] = d.blocks as [string, string, string];
    const args = { action: "move", id: three, previousID: one };
    const pre = await h.call("block", { ...args, validateOnly: true });
    expect(pre.structuredContent["confirmationRequired"]).toBe(false);
    const r = await h.call("block", h.commitArgs(args, pre.structuredContent), false);
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    expect(r.structuredContent["status"]).toBe("committed");
    expect(await childIds(d.id)).toEqual([one, three, d.blocks[1]]);
  });

  it("needs confirmation to move a block to another document, and keeps the lease until then", async () => {
    const from = await doc("leaving\n\nstaying");
    const to = await doc("target");
    const args = { action: "move", id: from.blocks[0], parentID: to.id };
    const pre = await h.call("block", { ...args, validateOnly: true });
    expect(pre.structuredContent["confirmationRequired"]).toBe(true);
    const commitArgs = h.commitArgs(args, pre.structuredContent);
    const moves = h.writes(MOVE);
    const refused = await h.call("block", commitArgs, false);
    expect(errorCode(refused)).toBe("confirmation_required");
    expect(h.writes(MOVE)).toBe(moves);
    const r = await h.call("block", commitArgs, true);
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    expect(r.structuredContent["status"]).toBe("committed");
    expect(h.writes(MOVE)).toBe(moves + 1);
    expect((await childIds(to.id))[0]).toBe(from.blocks[0]);
  });
});

describe("positions and credentials as the descriptions say", () => {
  it("inserts with parentID alone as the first child, Markdown by default", async () => {
    const d = await doc("existing");
    const r = await h.write("block", { action: "insert", parentID: d.id, data: "**new**" });
    expect(r.commit.isError, JSON.stringify(r.commit.structuredContent)).toBeUndefined();
    const ids = await childIds(d.id);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(d.blocks[0]);
    const got = await h.client.block.getBlockKramdown({ id: ids[0] as string });
    expect(got?.kramdown).toContain("**new**");
  });

  it("inserts before nextID and after previousID", async () => {
    const d = await doc("a\n\nb");
    const [a, b] = d.blocks as [string, string];
    await h.write("block", { action: "insert", nextID: a, data: "before a" });
    await h.write("block", { action: "insert", previousID: b, data: "after b" });
    const ids = await childIds(d.id);
    expect(ids).toHaveLength(4);
    expect(ids.indexOf(a)).toBe(1);
    expect(ids.indexOf(b)).toBe(2);
  });

  it("explains credentials in system.bootstrap", async () => {
    const r = await h.call("system", { action: "bootstrap" });
    const protocol = r.structuredContent["writeProtocol"] as string[];
    expect(protocol).toContain(CREDENTIAL_NOTE);
    expect(protocol.join(" ")).toMatch(/confirmationRequired:true and confirmation "elicitation"/);
  });

  it("lists every error code with its hint and defines the answer fields in system.bootstrap", async () => {
    const r = await h.call("system", { action: "bootstrap" });
    const errors = r.structuredContent["errors"] as Record<string, string>;
    expect(Object.keys(errors).sort()).toEqual(Object.keys(WIRE_ERRORS).sort());
    for (const [code, row] of Object.entries(WIRE_ERRORS))
      expect(errors[code], code).toBe(row.hint);
    const fields = r.structuredContent["answerFields"] as Record<string, string>;
    expect(fields["resultHash"]).toMatch(/never send it as an expected hash/);
    expect(fields["previousHash"]).toBeDefined();
    expect(fields["writeSafetyGuaranteed"]).toBeDefined();
    expect(String(r.structuredContent["sql"])).toMatch(
      /blocks\(id, parent_id \(under a heading: that heading\), root_id/,
    );
    expect(String(r.structuredContent["uploads"])).toMatch(/transfer\/upload/);
  });
});

describe("a replay says it wrote nothing", () => {
  it("answers the stored receipt with replayNote and writes nothing; the live commit has none", async () => {
    const d = await doc("before");
    const args = { action: "update", id: d.blocks[0], data: "after" };
    const { preflight, commit } = await h.write("block", args);
    expect(commit.structuredContent["executedNow"]).toBe(true);
    expect(commit.structuredContent["replayNote"]).toBeUndefined();
    const updates = h.writes("/api/block/updateBlock");
    expect(updates).toBeGreaterThan(0);
    const replay = await h.call("block", h.commitArgs(args, preflight));
    expect(replay.structuredContent).toMatchObject({
      replayed: true,
      executedNow: false,
      targetNow: "holds_result",
      replayNote: REPLAY_NOTES.holds_result,
      resultHash: commit.structuredContent["resultHash"],
    });
    expect(h.writes("/api/block/updateBlock")).toBe(updates);
  });

  it("says when the target no longer holds the result, and still writes nothing", async () => {
    const d = await doc("before");
    const id = d.blocks[0] as string;
    const args = { action: "update", id, data: "after" };
    const { preflight } = await h.write("block", args);
    h.sandbox.control.external.updateBlock(id, "changed by the person");
    await h.client.flush();
    const updates = h.writes("/api/block/updateBlock");
    const replay = await h.call("block", h.commitArgs(args, preflight));
    expect(replay.structuredContent).toMatchObject({
      replayed: true,
      executedNow: false,
      targetNow: "changed_since",
      replayNote: REPLAY_NOTES.changed_since,
    });
    expect(h.writes("/api/block/updateBlock")).toBe(updates);
    const kramdown = await h.client.block.getBlockKramdown({ id });
    expect(kramdown?.kramdown).toContain("changed by the person");
  });
});

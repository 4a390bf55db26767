/**
 * flashcard.decks, cards, due, add_cards, remove_cards and review against the sandbox kernel
 * through the tool runtime: writes go once (a replay answers the receipt without a second kernel
 * write), preflights refuse what the kernel would get wrong (an unknown deck, an unknown block, a
 * card not due, a notebook the caller may not write), and each readback proves the request from
 * the deck's own listing.
 */
import { describe, expect, it } from "vitest";
import { turnedOff } from "../src/index.js";
import { errorCode, useHarness } from "./harness.js";

const ADD = "/api/riff/addRiffCards";
const REMOVE = "/api/riff/removeRiffCards";
const REVIEW = "/api/riff/reviewRiffCard";
const BUILTIN = "20230218211946-2kw8jgx";
const UNKNOWN = "20200101000000-zzzzzzz";

describe("flashcard", () => {
  const h = useHarness();

  async function blocks(title: string, ...paragraphs: string[]): Promise<string[]> {
    const doc = await h.client.filetree.createDocWithMd({
      notebook: h.notebook,
      path: `/${title}`,
      markdown: paragraphs.join("\n\n"),
    });
    await h.client.flush();
    return (await h.client.block.getChildBlocks({ id: doc })).map((b) => b.id);
  }

  async function deck(name: string): Promise<string> {
    return (await h.client.riff.createRiffDeck({ name })).id;
  }

  function committed(r: { structuredContent: Record<string, unknown> }) {
    expect(r.structuredContent["status"], JSON.stringify(r.structuredContent)).toBe("committed");
    return r.structuredContent;
  }

  it("add_cards writes once, reads back a card per block, and a replay does not write again", async () => {
    const [a, b] = await blocks("Capitals", "Paris is the capital of France", "Rome of Italy");
    const d = await deck("Geography");
    const args = { action: "add_cards", deckId: d, ids: [a, b] };
    const writes = h.writes(ADD);
    const pre = await h.call("flashcard", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    expect(pre.structuredContent["preconditionField"]).toBeNull();
    expect(h.writes(ADD)).toBe(writes);

    const c = committed(await h.call("flashcard", h.commitArgs(args, pre.structuredContent)));
    expect(c["added"]).toBe(2);
    const cards = c["cards"] as Array<{ blockId: string; cardId: string }>;
    expect(cards.map((x) => x.blockId).sort()).toEqual([a, b].sort());
    expect(cards.every((x) => /^\d{14}-[0-9a-z]{7}$/.test(x.cardId))).toBe(true);
    expect(h.writes(ADD)).toBe(writes + 1);

    const replay = await h.call("flashcard", h.commitArgs(args, pre.structuredContent));
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(h.writes(ADD)).toBe(writes + 1);

    const listed = await h.call("flashcard", { action: "cards", deckId: d });
    expect(listed.structuredContent["total"]).toBe(2);
    const rows = listed.structuredContent["cards"] as Array<Record<string, unknown>>;
    expect(rows.map((r) => r["cardId"]).sort()).toEqual(cards.map((x) => x.cardId).sort());
    expect(rows.find((r) => r["blockId"] === a)?.["snippet"]).toBe(
      "Paris is the capital of France",
    );
    const attrs = await h.client.attr.getBlockAttrs({ id: a as string });
    expect(attrs?.["custom-riff-decks"]).toBe(d);

    const decks = await h.call("flashcard", { action: "decks" });
    expect(decks.structuredContent["decks"]).toContainEqual(
      expect.objectContaining({ id: d, name: "Geography", size: 2 }),
    );
  });

  it("add_cards of a block already in the deck keeps its card (unchanged)", async () => {
    const [a] = await blocks("Once", "only once");
    const d = await deck("Once");
    const first = committed(
      (await h.write("flashcard", { action: "add_cards", deckId: d, ids: [a] })).commit,
    );
    const again = await h.write("flashcard", { action: "add_cards", deckId: d, ids: [a] });
    expect(again.preflight["alreadyCards"]).toEqual([a]);
    const c = committed(again.commit);
    expect(c["added"]).toBe(0);
    expect(c["cards"]).toEqual(first["cards"]);
  });

  it("the built-in deck is listed and takes cards before the kernel has made it", async () => {
    const before = await h.call("flashcard", { action: "decks" });
    expect(before.structuredContent["decks"]).toContainEqual(
      expect.objectContaining({ id: BUILTIN, builtin: true, size: 0 }),
    );
    const [a] = await blocks("Quick", "quick card");
    committed(
      (await h.write("flashcard", { action: "add_cards", deckId: BUILTIN, ids: [a] })).commit,
    );
    const after = await h.call("flashcard", { action: "decks" });
    expect(after.structuredContent["decks"]).toContainEqual(
      expect.objectContaining({ id: BUILTIN, size: 1 }),
    );
    const due = await h.call("flashcard", { action: "due", notebook: h.notebook });
    expect(due.structuredContent["cards"]).toContainEqual(
      expect.objectContaining({ blockId: a, deckId: BUILTIN, state: 0 }),
    );
  });

  it("refuses an unknown deck and an unknown block before any write", async () => {
    const [a] = await blocks("Refused", "x");
    const d = await deck("Real");
    const writes = h.writes(ADD);
    const noDeck = await h.call("flashcard", {
      action: "add_cards",
      deckId: UNKNOWN,
      ids: [a],
      validateOnly: true,
    });
    expect(errorCode(noDeck)).toBe("not_found");
    const noBlock = await h.call("flashcard", {
      action: "add_cards",
      deckId: d,
      ids: [a, UNKNOWN],
      validateOnly: true,
    });
    expect(errorCode(noBlock)).toBe("not_found");
    expect(h.writes(ADD)).toBe(writes);
    const cards = await h.call("flashcard", { action: "cards", deckId: UNKNOWN });
    expect(errorCode(cards)).toBe("not_found");
  });

  it("refuses a block in a notebook the caller may not write", async () => {
    const [a] = await blocks("Guarded", "guarded");
    const d = await deck("Guarded");
    h.permissions = { default: "delete", notebooks: { [h.notebook]: "read" } };
    const r = await h.call("flashcard", {
      action: "add_cards",
      deckId: d,
      ids: [a],
      validateOnly: true,
    });
    h.permissions = { default: "delete" };
    expect(errorCode(r)).toBe("permission_denied");
  });

  it("remove_cards needs confirmation and the cards' state, writes once, reads back the cards gone", async () => {
    const [a, b] = await blocks("Removal", "keep me", "drop me");
    const d = await deck("Removal");
    committed((await h.write("flashcard", { action: "add_cards", deckId: d, ids: [a, b] })).commit);
    const args = { action: "remove_cards", deckId: d, ids: [b] };
    const pre = await h.call("flashcard", { ...args, validateOnly: true }, true);
    expect(pre.structuredContent["preconditionField"]).toBe("expectedStateHash");
    const writes = h.writes(REMOVE);
    const unconfirmed = await h.call("flashcard", h.commitArgs(args, pre.structuredContent));
    expect(unconfirmed.isError).toBe(true);
    expect(h.writes(REMOVE)).toBe(writes);

    const c = committed(await h.call("flashcard", h.commitArgs(args, pre.structuredContent), true));
    expect((c["removed"] as Array<{ blockId: string }>).map((x) => x.blockId)).toEqual([b]);
    expect(h.writes(REMOVE)).toBe(writes + 1);
    const replay = await h.call("flashcard", h.commitArgs(args, pre.structuredContent), true);
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(h.writes(REMOVE)).toBe(writes + 1);

    const listed = await h.call("flashcard", { action: "cards", deckId: d });
    expect(
      (listed.structuredContent["cards"] as Array<{ blockId: string }>).map((x) => x.blockId),
    ).toEqual([a]);
    const attrsOfB = await h.client.attr.getBlockAttrs({ id: b as string });
    expect(attrsOfB?.["custom-riff-decks"]).toBeUndefined();
    const notCard = await h.call(
      "flashcard",
      { action: "remove_cards", deckId: d, ids: [b], validateOnly: true },
      true,
    );
    expect(errorCode(notCard)).toBe("not_found");
  });

  it("review rates a due card once, reads back its new schedule; a rated card is no longer due", async () => {
    const [a] = await blocks("Review", "What is 2+2?");
    const d = await deck("Math");
    committed((await h.write("flashcard", { action: "add_cards", deckId: d, ids: [a] })).commit);
    const due = await h.call("flashcard", { action: "due", deckId: d });
    const [card] = due.structuredContent["cards"] as Array<Record<string, unknown>>;
    expect(card).toMatchObject({ blockId: a, reps: 0, state: 0 });
    expect(card?.["nextDues"]).toMatchObject({ "3": "10 minutes" });

    const args = { action: "review", deckId: d, cardId: card?.["cardId"], rating: 3 };
    const pre = await h.call("flashcard", { ...args, validateOnly: true });
    expect(pre.structuredContent["preconditionField"]).toBe("expectedStateHash");
    expect(pre.structuredContent["nextDue"]).toBe("10 minutes");
    const writes = h.writes(REVIEW);
    const c = committed(await h.call("flashcard", h.commitArgs(args, pre.structuredContent)));
    expect(c).toMatchObject({ reps: 1, state: 1, rating: 3 });
    expect(typeof c["due"]).toBe("string");
    expect(h.writes(REVIEW)).toBe(writes + 1);
    const replay = await h.call("flashcard", h.commitArgs(args, pre.structuredContent));
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(h.writes(REVIEW)).toBe(writes + 1);

    const again = await h.call("flashcard", { ...args, rating: 4, validateOnly: true });
    expect(errorCode(again)).toBe("invalid_arguments");
    const badRating = await h.call("flashcard", { ...args, rating: 7, validateOnly: true });
    expect(errorCode(badRating)).toBe("invalid_arguments");
    expect(h.writes(REVIEW)).toBe(writes + 1);
  });

  it("remove_cards refuses cards rated since the preflight (state_changed) and writes nothing", async () => {
    const [a] = await blocks("Raced", "raced");
    const d = await deck("Raced");
    committed((await h.write("flashcard", { action: "add_cards", deckId: d, ids: [a] })).commit);
    const args = { action: "remove_cards", deckId: d, ids: [a] };
    const pre = await h.call("flashcard", { ...args, validateOnly: true }, true);
    const due = await h.client.riff.getRiffDueCards({ deckID: d });
    const cardId = due.cards[0]?.cardID as string;
    await h.client.riff.reviewRiffCard({ deckID: d, cardID: cardId, rating: 3 });
    const writes = h.writes(REMOVE);
    const commit = await h.call("flashcard", h.commitArgs(args, pre.structuredContent), true);
    expect(errorCode(commit)).toBe("state_changed");
    expect(h.writes(REMOVE)).toBe(writes);
  });

  it("is turned off like every tool: the settings can hide the tool or only remove_cards", () => {
    expect(turnedOff(["flashcard"]).has("flashcard", "add_cards")).toBe(true);
    expect(h.runtime.listTools(["flashcard"]).map((t) => t.name)).not.toContain("flashcard");
    const listed = h.runtime
      .listTools(["flashcard.remove_cards"])
      .find((t) => t.name === "flashcard");
    const properties = listed?.inputSchema["properties"] as Record<string, { enum?: string[] }>;
    expect(properties["action"]?.enum).toEqual(["decks", "cards", "due", "add_cards", "review"]);
  });
});

/**
 * flashcard: decks, cards and due (reads); add_cards (additive), remove_cards (state, dangerous)
 * and review (state), over SiYuan's `/api/riff/*`.
 *
 * A card belongs to one block and one deck (SiYuan keeps at most one card per block and deck).
 * SiYuan's built-in deck ({@link BUILTIN_DECK_ID}, the one its "add to flashcards" menu uses) is
 * not in the kernel's deck list; `decks` lists it with its card count, and a card write to it is
 * accepted before it exists (the kernel makes it). A write to any other unknown deck is refused:
 * the kernel would still tag the blocks and make the built-in deck. An unknown block is refused
 * too: the kernel would add a card for an ID no block has. Permissions are those of each named
 * block's notebook; a list withholds the cards of notebooks the caller may not read.
 */
import { notFound, ToolError } from "../errors.js";
import {
  type ArgsOf,
  type MutationHandler,
  mutationAction,
  readAction,
  type ToolContext,
  type ToolHandlers,
} from "../handler.js";
import type { RiffCard } from "../kernel.js";
import { grantsEverywhere } from "../permissions.js";
import { readableItems } from "./listing.js";
import { snippetOf } from "./search.js";

/** SiYuan's built-in deck (`builtinDeckID` in kernel/model/flashcard.go). */
export const BUILTIN_DECK_ID = "20230218211946-2kw8jgx";
/** Cards read per kernel call when a write reads a whole deck. */
const DECK_PAGE_SIZE = 512;

/** Throws `not_found` unless the deck exists (the built-in deck always does, for a write). */
async function requireDeck(ctx: ToolContext, deckId: string): Promise<void> {
  if (deckId === BUILTIN_DECK_ID) return;
  if ((await ctx.kernel.riffDecks()).some((d) => d.id === deckId)) return;
  throw new ToolError(
    "not_found",
    `deck ${deckId} does not exist: take an id from flashcard.decks`,
    { id: deckId },
  );
}

/** Every card of a deck, page by page. */
async function deckCards(ctx: ToolContext, deckId: string): Promise<RiffCard[]> {
  const out: RiffCard[] = [];
  for (let page = 1; ; page++) {
    const p = await ctx.kernel.riffCards(deckId, page, DECK_PAGE_SIZE);
    out.push(...p.cards);
    if (page >= p.pageCount || p.cards.length === 0) return out;
  }
}

/** The notebook of each block (`not_found` for an unknown one), in the order given. */
async function blockNotebooks(ctx: ToolContext, ids: readonly string[]): Promise<string[]> {
  const infos = await Promise.all(ids.map((id) => ctx.kernel.getBlockInfo(id)));
  return ids.map((id, i) => {
    const info = infos[i];
    if (!info) throw notFound("block", id);
    return info.box;
  });
}

/** A card's schedule, as the state digest of `remove_cards` and `review` covers it. */
const scheduleOf = (c: RiffCard) => ({
  blockId: c.blockId,
  cardId: c.cardId,
  due: c.due,
  reps: c.reps,
  lapses: c.lapses,
  state: c.state,
  lastReview: c.lastReview,
});

const unique = (ids: readonly string[]) => [...new Set(ids)].sort();

const decks = readAction<ArgsOf<"flashcard", "decks">>({
  async run(ctx) {
    const [listed, builtin] = await Promise.all([
      ctx.kernel.riffDecks(),
      ctx.kernel.riffCards(BUILTIN_DECK_ID, 1, 1),
    ]);
    return {
      decks: [
        { id: BUILTIN_DECK_ID, name: "Built-in Deck", size: builtin.total, builtin: true },
        ...listed.map((d) => ({ id: d.id, name: d.name, size: d.size, updated: d.updated })),
      ],
    };
  },
});

const cards = readAction<ArgsOf<"flashcard", "cards">>({
  async run(ctx, a) {
    await requireDeck(ctx, a.deckId);
    const p = await ctx.kernel.riffCards(a.deckId, a.page, a.pageSize);
    const { kept, withheld } = readableItems(ctx.permissions, p.cards, (c) => c.notebook);
    return {
      deckId: a.deckId,
      page: a.page,
      pageCount: p.pageCount,
      total: p.total,
      cards: kept.map((c) =>
        c.cardId === ""
          ? { blockId: c.blockId, missing: true }
          : {
              blockId: c.blockId,
              cardId: c.cardId,
              snippet: snippetOf(c.content),
              due: c.due,
              reps: c.reps,
              lapses: c.lapses,
              state: c.state,
              lastReview: c.lastReview,
            },
      ),
      ...withheld,
    };
  },
});

const due = readAction<ArgsOf<"flashcard", "due">>({
  notebooks: async (_ctx, a) => (a.notebook === undefined ? [] : [a.notebook]),
  async run(ctx, a) {
    let found: Awaited<ReturnType<ToolContext["kernel"]["riffDueCards"]>>;
    if (a.notebook !== undefined) {
      if (!(await ctx.kernel.lsNotebooks()).some((n) => n.id === a.notebook)) {
        throw notFound("notebook", a.notebook);
      }
      found = await ctx.kernel.riffNotebookDueCards(a.notebook);
    } else {
      await requireDeck(ctx, a.deckId as string);
      found = await ctx.kernel.riffDueCards(a.deckId as string);
    }
    const restricted = !grantsEverywhere(ctx.permissions, "read");
    const boxes = restricted
      ? await Promise.all(
          found.cards.map(async (c) => (await ctx.kernel.getBlockInfo(c.blockId))?.box ?? ""),
        )
      : [];
    const { kept, withheld } = readableItems(
      ctx.permissions,
      found.cards.map((c, i) => ({ c, box: boxes[i] ?? "" })),
      (x) => x.box,
    );
    return {
      ...(a.deckId === undefined ? { notebook: a.notebook } : { deckId: a.deckId }),
      cards: kept.map(({ c }) => ({
        deckId: c.deckId,
        cardId: c.cardId,
        blockId: c.blockId,
        reps: c.reps,
        state: c.state,
        nextDues: c.nextDues,
      })),
      unreviewed: found.unreviewed,
      ...withheld,
    };
  },
});

interface AddSnapshot {
  /** The named blocks that already had a card in the deck. */
  readonly already: readonly string[];
}

const addCards: MutationHandler<ArgsOf<"flashcard", "add_cards">, AddSnapshot, null> = {
  targets: (a) => [a.deckId, ...a.ids],
  async probe(ctx, a) {
    const ids = unique(a.ids);
    await requireDeck(ctx, a.deckId);
    const notebooks = await blockNotebooks(ctx, ids);
    const carded = new Set((await deckCards(ctx, a.deckId)).map((c) => c.blockId));
    const already = ids.filter((id) => carded.has(id));
    return {
      state: { deckId: a.deckId, ids },
      notebooks: [...new Set(notebooks)],
      snapshot: { already },
      ...(already.length > 0 ? { preflightNotes: { alreadyCards: already } } : {}),
    };
  },
  async execute(ctx, a) {
    await ctx.write.addRiffCards(a.deckId, unique(a.ids));
    return null;
  },
  async readback(ctx, a, before) {
    // the deck's listing takes its blocks from the SQL index, which a flush brings up to date
    await ctx.kernel.flush();
    const ids = unique(a.ids);
    const byBlock = new Map((await deckCards(ctx, a.deckId)).map((c) => [c.blockId, c]));
    const cardsOf = ids.map((id) => ({ blockId: id, cardId: byBlock.get(id)?.cardId ?? "" }));
    const state = { deckId: a.deckId, cards: cardsOf };
    const missing = cardsOf.filter((c) => c.cardId === "").map((c) => c.blockId);
    if (missing.length > 0) {
      return {
        state,
        verdict: "mismatch",
        reason: `deck ${a.deckId} has no card of ${missing.join(", ")}`,
      };
    }
    const added = ids.length - before.snapshot.already.length;
    return {
      state,
      verdict: added === 0 ? "unchanged" : "applied",
      receipt: {
        deckId: a.deckId,
        cards: cardsOf,
        added,
        ...(before.snapshot.already.length > 0 ? { alreadyCards: before.snapshot.already } : {}),
      },
    };
  },
};

interface RemoveSnapshot {
  readonly removed: ReadonlyArray<{ readonly blockId: string; readonly cardId: string }>;
}

const removeCards: MutationHandler<ArgsOf<"flashcard", "remove_cards">, RemoveSnapshot, null> = {
  targets: (a) => [a.deckId, ...a.ids],
  async probe(ctx, a) {
    const ids = unique(a.ids);
    await requireDeck(ctx, a.deckId);
    const notebooks = await blockNotebooks(ctx, ids);
    const byBlock = new Map((await deckCards(ctx, a.deckId)).map((c) => [c.blockId, c]));
    const named = ids.map((id) => byBlock.get(id));
    const without = ids.filter((_, i) => named[i] === undefined);
    // at commit a card gone since the preflight only changes the digest (state_changed)
    if (without.length > 0 && ctx.phase !== "commit") {
      throw new ToolError(
        "not_found",
        `deck ${a.deckId} has no card of ${without.join(", ")}: take blockIds from flashcard.cards`,
        { id: without.join(",") },
      );
    }
    const present = named.filter((c): c is RiffCard => c !== undefined);
    return {
      state: { deckId: a.deckId, cards: present.map(scheduleOf) },
      notebooks: [...new Set(notebooks)],
      snapshot: { removed: present.map((c) => ({ blockId: c.blockId, cardId: c.cardId })) },
      preflightNotes: { reviewHistoryKept: false },
    };
  },
  async execute(ctx, a) {
    await ctx.write.removeRiffCards(a.deckId, unique(a.ids));
    return null;
  },
  async readback(ctx, a, before) {
    await ctx.kernel.flush();
    const ids = new Set(a.ids);
    const left = (await deckCards(ctx, a.deckId)).filter((c) => ids.has(c.blockId));
    const state = { deckId: a.deckId, cards: left.map(scheduleOf) };
    if (left.length > 0) {
      return {
        state,
        verdict: "mismatch",
        reason: `deck ${a.deckId} still has cards of ${left.map((c) => c.blockId).join(", ")}`,
      };
    }
    return {
      state,
      verdict: "applied",
      receipt: { deckId: a.deckId, removed: before.snapshot.removed },
    };
  },
};

/** The card a review names, with its block's notebook; `not_found` for an unknown card or block. */
async function requireCard(ctx: ToolContext, deckId: string, cardId: string) {
  const card = (await deckCards(ctx, deckId)).find((c) => c.cardId === cardId);
  if (!card) {
    throw new ToolError(
      "not_found",
      `deck ${deckId} has no card ${cardId}: take a cardId from flashcard.due`,
      { id: cardId },
    );
  }
  const [notebook] = await blockNotebooks(ctx, [card.blockId]);
  return { card, notebook: notebook as string };
}

const review: MutationHandler<ArgsOf<"flashcard", "review">, null, null> = {
  probeUnlikeResult: true,
  targets: (a) => [a.deckId, a.cardId],
  async probe(ctx, a) {
    await requireDeck(ctx, a.deckId);
    const { card, notebook } = await requireCard(ctx, a.deckId, a.cardId);
    // the due list also starts a new review round in the kernel, so the rating below is never
    // taken as a second rating of a card the round already rated (which SiYuan first puts back)
    const dueCard = (await ctx.kernel.riffDueCards(a.deckId)).cards.find(
      (c) => c.cardId === a.cardId,
    );
    // at commit a card no longer due only changes the digest (state_changed)
    if (!dueCard && ctx.phase !== "commit") {
      throw new ToolError(
        "invalid_arguments",
        `card ${a.cardId} is not due${card.due === null ? "" : ` (due ${card.due})`}: take a cardId from flashcard.due`,
        { id: a.cardId },
      );
    }
    return {
      state: { deckId: a.deckId, card: scheduleOf(card), dueNow: dueCard !== undefined },
      notebooks: [notebook],
      snapshot: null,
      preflightNotes: { nextDue: dueCard?.nextDues[String(a.rating)] ?? null },
    };
  },
  async execute(ctx, a) {
    await ctx.write.reviewRiffCard(a.deckId, a.cardId, a.rating);
    return null;
  },
  async readback(ctx, a, before) {
    const prior = (before.state as { card: ReturnType<typeof scheduleOf> }).card;
    const card = (await deckCards(ctx, a.deckId)).find((c) => c.cardId === a.cardId);
    if (!card) {
      return {
        state: { deckId: a.deckId, card: null },
        verdict: "mismatch",
        reason: `deck ${a.deckId} no longer has card ${a.cardId}`,
      };
    }
    const state = { deckId: a.deckId, card: scheduleOf(card) };
    if (card.reps !== prior.reps + 1 || card.lastReview === prior.lastReview) {
      return {
        state,
        verdict: "mismatch",
        reason: `card ${a.cardId} shows no new rating (reps ${card.reps}, was ${prior.reps})`,
      };
    }
    return {
      state,
      verdict: "applied",
      receipt: {
        deckId: a.deckId,
        cardId: a.cardId,
        rating: a.rating,
        due: card.due,
        state: card.state,
        reps: card.reps,
      },
    };
  },
};

export const flashcardHandlers = {
  decks,
  cards,
  due,
  add_cards: mutationAction(addCards),
  remove_cards: mutationAction(removeCards),
  review: mutationAction(review),
} satisfies ToolHandlers<"flashcard">;

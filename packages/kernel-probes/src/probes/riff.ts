/** Flashcards (`/api/riff/*`): decks, cards of blocks, due cards and a rating. */
import { ProbeError } from "../probe.js";
import { children, data, probe, UNKNOWN_ID } from "./kit.js";

interface Deck {
  id: string;
}
interface Cards {
  blocks: Array<{ id: string; riffCardID: string }>;
}

/** SiYuan's built-in deck. */
const BUILTIN_DECK = "20230218211946-2kw8jgx";

export const riffProbes = [
  probe(
    "riff.deck-cards",
    "createRiffDeck, addRiffCards (one card per block and deck; a card even for an unknown block; " +
      "the deck in custom-riff-decks), getRiffCards paged by due time, removeRiffCards, getRiffDecks",
    [
      "/api/riff/createRiffDeck",
      "/api/riff/getRiffDecks",
      "/api/riff/addRiffCards",
      "/api/riff/getRiffCards",
      "/api/riff/removeRiffCards",
    ],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Cards", "first\n\nsecond\n\nthird");
      const [a, b] = (await children(ctx, doc)).map((c) => c.id);
      if (a === undefined || b === undefined) throw new ProbeError("the document has no blocks");
      const deck = data<Deck>(
        await ctx.post("create deck", "/api/riff/createRiffDeck", { name: "Probe deck" }),
      ).id;
      await ctx.post("decks", "/api/riff/getRiffDecks", {});
      await ctx.post("add a block", "/api/riff/addRiffCards", { deckID: deck, blockIDs: [a] });
      // a card never rated sorts by its ID, whose time has seconds: the next card a second later
      await ctx.sleep(1100);
      await ctx.post("add another", "/api/riff/addRiffCards", { deckID: deck, blockIDs: [b] });
      await ctx.post("add one again", "/api/riff/addRiffCards", { deckID: deck, blockIDs: [a] });
      await ctx.flush();
      await ctx.post("attrs of a card's block", "/api/attr/getBlockAttrs", { id: a });
      await ctx.post("cards page 1 of 1", "/api/riff/getRiffCards", {
        id: deck,
        page: 1,
        pageSize: 1,
      });
      await ctx.post("cards page 2", "/api/riff/getRiffCards", { id: deck, page: 2, pageSize: 1 });
      await ctx.post("cards page past the end", "/api/riff/getRiffCards", {
        id: deck,
        page: 3,
        pageSize: 1,
      });
      // a second later again, so its card sorts after the others (a tie would order by the random
      // part of the card IDs)
      await ctx.sleep(1100);
      await ctx.post("add an unknown block", "/api/riff/addRiffCards", {
        deckID: deck,
        blockIDs: [UNKNOWN_ID],
      });
      const all = data<Cards>(
        await ctx.post("cards with one of no block", "/api/riff/getRiffCards", {
          id: deck,
          page: 1,
        }),
      );
      ctx.note(
        "a card of an unknown block is listed without a card ID",
        all.blocks.some((x) => x.id === UNKNOWN_ID && x.riffCardID === ""),
      );
      await ctx.post("remove one block and the unknown one", "/api/riff/removeRiffCards", {
        deckID: deck,
        blockIDs: [a, UNKNOWN_ID],
      });
      await ctx.flush();
      await ctx.post("attrs after remove", "/api/attr/getBlockAttrs", { id: a });
      await ctx.post("cards after remove", "/api/riff/getRiffCards", { id: deck, page: 1 });
      await ctx.post("remove a block with no card", "/api/riff/removeRiffCards", {
        deckID: deck,
        blockIDs: [a],
      });
      await ctx.post("decks after", "/api/riff/getRiffDecks", {});
    },
  ),
  probe(
    "riff.unknown-deck",
    "addRiffCards to an unknown deck (answers null, makes the built-in deck, still writes the " +
      "attribute), getRiffCards/getRiffDueCards/removeRiffCards of an unknown deck, the built-in " +
      "deck's cards, getNotebookRiffDueCards",
    [
      "/api/riff/addRiffCards",
      "/api/riff/getRiffCards",
      "/api/riff/getRiffDueCards",
      "/api/riff/removeRiffCards",
      "/api/riff/getNotebookRiffDueCards",
    ],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Unknown deck", "only");
      const [a] = (await children(ctx, doc)).map((c) => c.id);
      if (a === undefined) throw new ProbeError("the document has no blocks");
      await ctx.post("add to an unknown deck", "/api/riff/addRiffCards", {
        deckID: UNKNOWN_ID,
        blockIDs: [a],
      });
      await ctx.flush();
      await ctx.post("attrs after", "/api/attr/getBlockAttrs", { id: a });
      await ctx.post("cards of an unknown deck", "/api/riff/getRiffCards", {
        id: UNKNOWN_ID,
        page: 1,
      });
      await ctx.post("due of an unknown deck", "/api/riff/getRiffDueCards", { deckID: UNKNOWN_ID });
      await ctx.post("remove from an unknown deck", "/api/riff/removeRiffCards", {
        deckID: UNKNOWN_ID,
        blockIDs: [a],
      });
      await ctx.flush();
      await ctx.post("attrs after remove", "/api/attr/getBlockAttrs", { id: a });
      await ctx.post("add to the built-in deck", "/api/riff/addRiffCards", {
        deckID: BUILTIN_DECK,
        blockIDs: [a],
      });
      await ctx.post("the built-in deck's cards", "/api/riff/getRiffCards", {
        id: BUILTIN_DECK,
        page: 1,
      });
      await ctx.post("notebook due", "/api/riff/getNotebookRiffDueCards", { notebook: nb });
      await ctx.post("unknown notebook due", "/api/riff/getNotebookRiffDueCards", {
        notebook: UNKNOWN_ID,
      });
      await ctx.post("decks leave the built-in one out", "/api/riff/getRiffDecks", {});
      await ctx.quiet("/api/riff/removeRiffCards", { deckID: BUILTIN_DECK, blockIDs: [a] });
    },
  ),
  probe(
    "riff.review",
    "getRiffDueCards (a new card's next dues), reviewRiffCard Good (learning, due in 10 minutes), " +
      "the card no longer due; unknown cards and decks are no error",
    ["/api/riff/getRiffDueCards", "/api/riff/reviewRiffCard", "/api/riff/getRiffCards"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Review", "question");
      const [a] = (await children(ctx, doc)).map((c) => c.id);
      if (a === undefined) throw new ProbeError("the document has no blocks");
      const deck = data<Deck>(
        await ctx.post("create deck", "/api/riff/createRiffDeck", { name: "Review deck" }),
      ).id;
      await ctx.post("add", "/api/riff/addRiffCards", { deckID: deck, blockIDs: [a] });
      await ctx.post("due before", "/api/riff/getRiffDueCards", { deckID: deck });
      const due = data<{ cards: Array<{ cardID: string }> }>(
        await ctx.post("due again", "/api/riff/getRiffDueCards", { deckID: deck }),
      );
      const card = due.cards[0]?.cardID;
      if (card === undefined) throw new ProbeError("no due card");
      await ctx.post("review good", "/api/riff/reviewRiffCard", {
        deckID: deck,
        cardID: card,
        rating: 3,
      });
      await ctx.post("card after", "/api/riff/getRiffCards", { id: deck, page: 1 });
      await ctx.post("due after", "/api/riff/getRiffDueCards", { deckID: deck });
      await ctx.post("review an unknown card", "/api/riff/reviewRiffCard", {
        deckID: deck,
        cardID: UNKNOWN_ID,
        rating: 3,
      });
      await ctx.post("card after the unknown one", "/api/riff/getRiffCards", { id: deck, page: 1 });
    },
  ),
];

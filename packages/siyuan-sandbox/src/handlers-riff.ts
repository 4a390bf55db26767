/**
 * Flashcards (`/api/riff/*`, kernel-probes riff.*): decks of cards, one card per block and deck.
 *
 * As SiYuan 3.7.3 (kernel/model/flashcard.go): `getRiffDecks` lists every deck but the built-in
 * one (`20230218211946-2kw8jgx`, "Built-in Deck", made the first time cards are added to a deck
 * that does not exist), newest update first. `addRiffCards` writes the deck's ID into each existing
 * block's `custom-riff-decks` attribute and adds a card for every named ID that has none in the
 * deck — also for an ID no block has; for an unknown deck it makes the built-in deck, still writes
 * the attribute and answers `null`. `removeRiffCards` takes the deck out of each block's attribute
 * (keeping only other decks that exist) and drops the cards; an unknown deck answers `null`.
 * `getRiffCards` pages a deck's cards by due time; a card whose block is gone shows the kernel's
 * "does not exist" text. `getRiffDueCards` lists due cards (due at or before now, block existing,
 * at most 20 new and 200 old ones) and, called without `reviewedCards`, starts a new review round:
 * it forgets the cards the last round reviewed. `reviewRiffCard` rates a card; rating a card the
 * round already reviewed first puts it back as it was (SiYuan's undo of a rating).
 *
 * Scheduling: a new card's first rating is exact for SiYuan's default FSRS parameters (1 minute,
 * 5 minutes, 10 minutes or 16 days); later ratings follow a simpler rule (documented in
 * {@link schedule}) the probes do not compare. A persisted kernel keeps its decks in one file
 * (`data/storage/riff/sandbox-decks.json`), so they outlive a restart.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { blockJsonOfRow, zeroBlockJson } from "./block-json.js";
import { dateParts, isValidNodeId } from "./clock.js";
import { kernelError } from "./errors.js";
import { field, type HandlerContext, type Route } from "./handler-kit.js";
import { MEMORY_WORKSPACE_DIR } from "./handlers-asset.js";
import type { Kernel } from "./kernel.js";

/** SiYuan's built-in deck (`builtinDeckID`). */
export const BUILTIN_DECK_ID = "20230218211946-2kw8jgx";
/** The attribute listing a block's decks. */
const DECKS_ATTR = "custom-riff-decks";
/** `Conf.Flashcard.NewCardLimit` and `ReviewCardLimit` of a new workspace. */
const NEW_CARD_LIMIT = 20;
const REVIEW_CARD_LIMIT = 200;
/** Go's zero time in Unix milliseconds (`time.Time{}.UnixMilli()`). */
const ZERO_TIME_MS = -62135596800000;
/** `Conf.Language(180)`: the text of a card whose block is gone. */
const MISSING_BLOCK_TEXT = "Search content block does not exist";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** FSRS states (riff.State). */
const NEW = 0;
const LEARNING = 1;
const REVIEW = 2;
const RELEARNING = 3;

interface Card {
  readonly id: string;
  readonly blockId: string;
  /** Unix ms; `null` for a card never rated (the kernel shows it due now). */
  due: number | null;
  reps: number;
  lapses: number;
  state: number;
  /** Unix ms; `null` before the first review. */
  lastReview: number | null;
}

interface Deck {
  readonly id: string;
  name: string;
  readonly created: number;
  updated: number;
  readonly cards: Card[];
}

interface RiffStore {
  readonly decks: Map<string, Deck>;
  /** Cards of the current review round, as they were before their rating (`reviewCardCache`). */
  reviewed: Map<string, Card>;
}

const stores = new WeakMap<Kernel, RiffStore>();

/**
 * Where a persisted kernel keeps its decks: one JSON file under `data/storage/riff/` (SiYuan keeps
 * a `<deck>.deck` and a `<deck>.cards` file there), so decks outlive a restart as SiYuan's do.
 */
const decksFile = (dataDir: string) =>
  join(dataDir, "data", "storage", "riff", "sandbox-decks.json");

function store(kernel: Kernel): RiffStore {
  let s = stores.get(kernel);
  if (!s) {
    const file = kernel.dataDir === null ? null : decksFile(kernel.dataDir);
    const saved =
      file !== null && existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Deck[]) : [];
    s = { decks: new Map(saved.map((d) => [d.id, d])), reviewed: new Map() };
    stores.set(kernel, s);
  }
  return s;
}

/** Writes the decks of a persisted kernel (after every deck or card write). */
function save(kernel: Kernel): void {
  if (kernel.dataDir === null) return;
  const file = decksFile(kernel.dataDir);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify([...store(kernel).decks.values()]));
}

const r = (handler: Route["handler"], write = false): Route => ({
  handler,
  auth: true,
  body: "json",
  write,
});

const now = (ctx: HandlerContext) => ctx.kernel.ids.clock.now();
const pad = (n: number) => String(n).padStart(2, "0");

/** `2006-01-02 15:04:05` in the kernel's zone. */
function dateTime(ctx: HandlerContext, ms: number): string {
  const [y, mo, d, h, mi, s] = dateParts(ms, ctx.kernel.ids.utc);
  return `${y}-${pad(mo)}-${pad(d)} ${pad(h)}:${pad(mi)}:${pad(s)}`;
}

/** A `time.Time` as Go's JSON writes it in UTC: RFC 3339, the fraction without trailing zeros. */
function goTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0*Z$/, "Z");
}

function deckData(ctx: HandlerContext, deck: Deck): Record<string, unknown> {
  return {
    id: deck.id,
    name: deck.name,
    size: deck.cards.length,
    created: dateTime(ctx, deck.created),
    updated: dateTime(ctx, deck.updated),
  };
}

/** A string array argument (`arg[name].([]any)` then `.(string)`): anything else panics. */
function strings(ctx: HandlerContext, name: string): string[] {
  const v = ctx.body[name];
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) {
    throw kernelError(-1, `interface conversion: ${name} is not []string`);
  }
  return v as string[];
}

function number(ctx: HandlerContext, name: string, dflt?: number): number {
  const v = ctx.body[name];
  if ((v === undefined || v === null) && dflt !== undefined) return dflt;
  if (typeof v !== "number") throw kernelError(-1, `interface conversion: ${name} is not float64`);
  return Math.trunc(v);
}

function newDeck(ctx: HandlerContext, id: string, name: string): Deck {
  const t = now(ctx);
  const deck: Deck = { id, name, created: t, updated: t, cards: [] };
  store(ctx.kernel).decks.set(id, deck);
  return deck;
}

function getRiffDecks(ctx: HandlerContext): unknown {
  return [...store(ctx.kernel).decks.values()]
    .filter((d) => d.id !== BUILTIN_DECK_ID)
    .sort((a, b) => b.updated - a.updated)
    .map((d) => deckData(ctx, d));
}

function createRiffDeck(ctx: HandlerContext): unknown {
  const name = field(ctx, "name", "String") as string;
  const decks = store(ctx.kernel).decks;
  const id = ctx.kernel.ids.newId((x) => decks.has(x));
  const deck = newDeck(ctx, id, name);
  save(ctx.kernel);
  return deckData(ctx, deck);
}

/** The deck IDs of a block's attribute, as the kernel splits them. */
const attrDecks = (v: string | undefined) => (v ?? "").split(",");

function joinDecks(ids: readonly string[]): string {
  let v = [...new Set(ids)].join(",");
  if (v.startsWith(",")) v = v.slice(1);
  if (v.endsWith(",")) v = v.slice(0, -1);
  return v;
}

async function addRiffCards(ctx: HandlerContext): Promise<unknown> {
  const deckID = field(ctx, "deckID", "String") as string;
  const blockIDs = strings(ctx, "blockIDs");
  await ctx.kernel.flush();
  const s = store(ctx.kernel);
  if (!s.decks.has(deckID)) {
    // `createDeck0("Built-in Deck", builtinDeckID)`: an existing built-in deck keeps its cards
    const builtin = s.decks.get(BUILTIN_DECK_ID);
    if (builtin) builtin.name = "Built-in Deck";
    else newDeck(ctx, BUILTIN_DECK_ID, "Built-in Deck");
  }
  const ws = ctx.kernel.ws;
  for (const id of blockIDs) {
    const loc = ws.locate(id);
    if (!loc) continue;
    const v = joinDecks([...attrDecks(loc.block.attrs[DECKS_ATTR]), deckID]);
    ws.setAttrs(id, { [DECKS_ATTR]: v });
  }
  const deck = s.decks.get(deckID);
  save(ctx.kernel);
  if (!deck) return null;
  for (const blockId of blockIDs) {
    if (deck.cards.some((c) => c.blockId === blockId)) continue;
    deck.cards.push({
      id: ctx.kernel.ids.newId(),
      blockId,
      due: null,
      reps: 0,
      lapses: 0,
      state: NEW,
      lastReview: null,
    });
  }
  deck.updated = now(ctx);
  save(ctx.kernel);
  return deckData(ctx, deck);
}

async function removeRiffCards(ctx: HandlerContext): Promise<unknown> {
  const deckID = field(ctx, "deckID", "String") as string;
  const blockIDs = strings(ctx, "blockIDs");
  await ctx.kernel.flush();
  const s = store(ctx.kernel);
  const ws = ctx.kernel.ws;
  for (const id of blockIDs) {
    const loc = ws.locate(id);
    if (!loc) continue;
    const keep =
      deckID === ""
        ? []
        : attrDecks(loc.block.attrs[DECKS_ATTR]).filter((d) => d !== deckID && s.decks.has(d));
    ws.setAttrs(id, { [DECKS_ATTR]: joinDecks(keep) || null });
  }
  const decks = deckID === "" ? [...s.decks.values()] : [s.decks.get(deckID)];
  for (const deck of decks) {
    if (!deck) continue;
    const before = deck.cards.length;
    const kept = deck.cards.filter((c) => !blockIDs.includes(c.blockId));
    if (kept.length === before) continue;
    deck.cards.splice(0, before, ...kept);
    deck.updated = now(ctx);
  }
  save(ctx.kernel);
  const deck = deckID === "" ? undefined : s.decks.get(deckID);
  return deck ? deckData(ctx, deck) : null;
}

/** `getCardsBlocks`: by due time, then card ID; each card's block as `fromSQLBlocks` makes it. */
function cardBlocks(ctx: HandlerContext, cards: Card[], page: number, pageSize: number) {
  // by due time; when either was never rated, by card ID (SiYuan's sort, issue 14686)
  const sorted = [...cards].sort((a, b) =>
    a.due === null || b.due === null ? a.id.localeCompare(b.id) : a.due - b.due,
  );
  const t = now(ctx);
  const total = sorted.length;
  const pageCount = Math.ceil(total / pageSize);
  const start = Math.min(Math.max(0, (page - 1) * pageSize), total);
  const end = Math.min(Math.max(0, page * pageSize), total);
  const slice = sorted.slice(start, end);
  const blocks = slice.map((c) => {
    const row = ctx.kernel.sql.select("SELECT * FROM blocks WHERE id = ?", [c.blockId])[0];
    if (!row) return { ...zeroBlockJson(c.blockId), content: MISSING_BLOCK_TEXT };
    return {
      ...blockJsonOfRow(row),
      fcontent: "",
      riffCardID: c.id,
      riffCard: {
        due: goTime(c.due ?? t),
        reps: c.reps,
        lapses: c.lapses,
        state: c.state,
        lastReview: c.lastReview === null ? "0001-01-01T00:00:00Z" : goTime(c.lastReview),
      },
    };
  });
  return { blocks, total, pageCount };
}

function getRiffCards(ctx: HandlerContext): unknown {
  const id = field(ctx, "id", "String") as string;
  const page = number(ctx, "page");
  const pageSize = number(ctx, "pageSize", 20);
  const s = store(ctx.kernel);
  const cards =
    id === "" ? [...s.decks.values()].flatMap((d) => d.cards) : (s.decks.get(id)?.cards ?? null);
  if (cards === null) return { blocks: [], total: 0, pageCount: 0 };
  return cardBlocks(ctx, cards, page, pageSize);
}

/** `util.HumanizeDiffTime` in English: the largest whole unit. */
function humanize(ms: number): string {
  const units: Array<[string, number]> = [
    ["year", 365 * DAY_MS],
    ["month", 30 * DAY_MS],
    ["day", DAY_MS],
    ["hour", 3_600_000],
    ["minute", MINUTE_MS],
  ];
  for (const [unit, size] of units) {
    const n = Math.floor(ms / size);
    if (n >= 1) return `${n} ${unit}${n === 1 ? "" : "s"}`;
  }
  return "1 minute";
}

/**
 * The card's schedule after `rating` at `t`. A new card: Again 1 min, Hard 5 min, Good 10 min
 * (learning), Easy 16 days (review), as SiYuan's default FSRS parameters answer. A learning or
 * relearning card: Again 5 min; Hard, Good and Easy move it to review in 1, 2 or 4 days. A review
 * card: Again relearns in 5 min (a lapse); Hard, Good and Easy multiply its last interval by 1.2,
 * 2.5 or 3.5 (at least a day). A rating outside 1–4 resets the card to new, due now (as the kernel
 * does).
 */
function schedule(c: Card, rating: number, t: number): Omit<Card, "id" | "blockId"> {
  const reps = c.reps + 1;
  if (rating < 1 || rating > 4) {
    return { due: t, reps: 0, lapses: 0, state: NEW, lastReview: null };
  }
  if (c.state === NEW) {
    const due = [MINUTE_MS, 5 * MINUTE_MS, 10 * MINUTE_MS, 16 * DAY_MS][rating - 1] as number;
    return {
      due: t + due,
      reps,
      lapses: c.lapses,
      state: rating === 4 ? REVIEW : LEARNING,
      lastReview: t,
    };
  }
  if (rating === 1) {
    const lapses = c.state === REVIEW ? c.lapses + 1 : c.lapses;
    return {
      due: t + 5 * MINUTE_MS,
      reps,
      lapses,
      state: c.state === REVIEW ? RELEARNING : c.state,
      lastReview: t,
    };
  }
  if (c.state !== REVIEW) {
    return {
      due: t + [1, 2, 4][rating - 2]! * DAY_MS,
      reps,
      lapses: c.lapses,
      state: REVIEW,
      lastReview: t,
    };
  }
  const due = c.due ?? t;
  const last = Math.max(DAY_MS, due - (c.lastReview ?? due));
  const factor = [1.2, 2.5, 3.5][rating - 2] as number;
  return {
    due: t + Math.max(DAY_MS, Math.round(last * factor)),
    reps,
    lapses: c.lapses,
    state: REVIEW,
    lastReview: t,
  };
}

function nextDues(c: Card, t: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rating of [1, 2, 3, 4])
    out[String(rating)] = humanize((schedule(c, rating, t).due ?? t) - t);
  return out;
}

function reviewedIds(ctx: HandlerContext): string[] {
  const v = ctx.body.reviewedCards;
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw kernelError(-1, "interface conversion: reviewedCards is not []any");
  return v.map((x) => String((x as { cardID?: unknown }).cardID ?? ""));
}

/** `getDeckDueCards` for review mode 0 (due order), with the new-workspace limits. */
function dueCards(
  ctx: HandlerContext,
  deck: Deck,
  reviewed: string[],
  inBlocks: Set<string> | null,
) {
  const s = store(ctx.kernel);
  const t = now(ctx);
  if (reviewed.length === 0) s.reviewed = new Map();
  const dues = deck.cards
    .filter((c) => (c.due ?? t) <= t && (inBlocks === null || inBlocks.has(c.blockId)))
    .filter((c) => ctx.kernel.ws.locate(c.blockId) !== null)
    .sort((a, b) => (a.due ?? t) - (b.due ?? t) || a.id.localeCompare(b.id));
  let newCount = 0;
  let reviewCount = 0;
  for (const c of s.reviewed.values()) {
    if (c.state === NEW) newCount++;
    else reviewCount++;
  }
  let unreviewedCount = 0;
  let unreviewedNewCardCount = 0;
  let unreviewedOldCardCount = 0;
  const cards: Card[] = [];
  for (const c of dues) {
    if (!reviewed.includes(c.id)) {
      unreviewedCount++;
      if (c.state === NEW) {
        if (newCount < NEW_CARD_LIMIT) unreviewedNewCardCount++;
      } else if (reviewCount < REVIEW_CARD_LIMIT) unreviewedOldCardCount++;
    }
    if (c.state === NEW) {
      if (newCount >= NEW_CARD_LIMIT) continue;
      newCount++;
    } else {
      if (reviewCount >= REVIEW_CARD_LIMIT) continue;
      reviewCount++;
    }
    cards.push(c);
  }
  return {
    cards: cards.map((c) => ({
      deckID: deck.id,
      cardID: c.id,
      blockID: c.blockId,
      lapses: c.lapses,
      reps: c.reps,
      state: c.state,
      lastReview: c.lastReview ?? ZERO_TIME_MS,
      nextDues: nextDues(c, t),
    })),
    unreviewedCount,
    unreviewedNewCardCount,
    unreviewedOldCardCount,
  };
}

function getRiffDueCards(ctx: HandlerContext): unknown {
  const deckID = field(ctx, "deckID", "String") as string;
  const reviewed = reviewedIds(ctx);
  const s = store(ctx.kernel);
  const deck = s.decks.get(deckID === "" ? BUILTIN_DECK_ID : deckID);
  // an unknown deck answers a null list (kernel-probes riff.unknown)
  if (!deck) {
    if (reviewed.length === 0) s.reviewed = new Map();
    return {
      cards: deckID === "" ? [] : null,
      unreviewedCount: 0,
      unreviewedNewCardCount: 0,
      unreviewedOldCardCount: 0,
    };
  }
  return dueCards(ctx, deck, reviewed, null);
}

function getNotebookRiffDueCards(ctx: HandlerContext): unknown {
  const notebook = field(ctx, "notebook", "String") as string;
  const reviewed = reviewedIds(ctx);
  const ws = ctx.kernel.ws;
  if (!isValidNodeId(notebook) || !ws.notebooks.has(notebook)) {
    throw kernelError(
      -1,
      `open ${ctx.kernel.dataDir ?? MEMORY_WORKSPACE_DIR}/data/${notebook}: no such file or directory`,
    );
  }
  const deck = store(ctx.kernel).decks.get(BUILTIN_DECK_ID);
  const empty = {
    cards: [],
    unreviewedCount: 0,
    unreviewedNewCardCount: 0,
    unreviewedOldCardCount: 0,
  };
  if (!deck) return empty;
  const inBox = new Set(
    deck.cards.map((c) => c.blockId).filter((id) => ws.locate(id)?.doc.box === notebook),
  );
  return dueCards(ctx, deck, reviewed, inBox);
}

function reviewRiffCard(ctx: HandlerContext): unknown {
  const deckID = field(ctx, "deckID", "String") as string;
  const cardID = field(ctx, "cardID", "String") as string;
  const rating = number(ctx, "rating");
  const s = store(ctx.kernel);
  const deck = s.decks.get(deckID);
  if (!deck) return null;
  const i = deck.cards.findIndex((c) => c.id === cardID);
  const card = deck.cards[i];
  if (!card) return null;
  const cached = s.reviewed.get(cardID);
  // a card this round already rated is first put back as it was (SiYuan's undo of a rating)
  const base = cached ?? { ...card };
  if (!cached) s.reviewed.set(cardID, { ...card });
  const t = now(ctx);
  deck.cards[i] = { id: card.id, blockId: card.blockId, ...schedule(base, rating, t) };
  deck.updated = t;
  save(ctx.kernel);
  return null;
}

export const riffRoutes: Record<string, Route> = {
  "/api/riff/getRiffDecks": r(getRiffDecks),
  "/api/riff/createRiffDeck": r(createRiffDeck, true),
  "/api/riff/addRiffCards": r(addRiffCards, true),
  "/api/riff/removeRiffCards": r(removeRiffCards, true),
  "/api/riff/getRiffCards": r(getRiffCards),
  "/api/riff/getRiffDueCards": r(getRiffDueCards),
  "/api/riff/getNotebookRiffDueCards": r(getNotebookRiffDueCards),
  "/api/riff/reviewRiffCard": r(reviewRiffCard, true),
};

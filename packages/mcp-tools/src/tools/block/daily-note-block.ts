/**
 * block.add_to_daily_note: additive. Appends (or prepends) blocks to today's daily note of a
 * notebook (SiYuan 3.7.3 `appendDailyNoteBlock` / `prependDailyNoteBlock`), which the kernel
 * creates first when it does not exist (the preflight says which). Today's note is found as
 * `document.daily_note` finds it (the notebook's `dailyNoteSavePath` rendered for the kernel's
 * clock), so the preflight refuses what that cannot evaluate.
 *
 * The readback follows the new block's ID: it exists, shows the requested content, lies in the
 * document at today's hpath, and sits where asked: first (prepend), or with no block that was in
 * the note before the write after it (append).
 */
import type { ArgsOf, MutationHandler, ReadbackResult } from "../../handler.js";
import { findToday, type Today } from "../document/daily-note.js";
import { createdBlockReadback } from "./insert.js";

type DailyArgs = ArgsOf<"block", "add_to_daily_note">;

interface DailySnapshot {
  readonly today: Today;
  /** The note's child block IDs when the probe ran (`[]` when the note did not exist yet). */
  readonly children: readonly string[];
}

/** block.add_to_daily_note (see the module comment). */
export const addToDailyNote: MutationHandler<DailyArgs, DailySnapshot, string | null> = {
  targets: (a) => [a.notebook],
  async probe(ctx, a) {
    const today = await findToday(ctx, a.notebook);
    const children =
      today.id === null ? [] : (await ctx.kernel.getChildBlocks(today.id)).map((c) => c.id);
    return {
      state: { notebook: a.notebook, hpath: today.hpath, id: today.id },
      notebooks: [a.notebook],
      snapshot: { today, children },
      preflightNotes:
        today.id === null
          ? { note: `no daily note today: the commit creates ${today.hpath} first` }
          : { noteID: today.id },
    };
  },
  execute: (ctx, a) => ctx.write.dailyNoteBlock(a.position, a.notebook, a.dataType, a.data),
  async readback(ctx, a, before, newId): Promise<ReadbackResult> {
    const seen = await createdBlockReadback(ctx, a, newId);
    if (seen.verdict === "mismatch" || newId === null) return seen;
    const { today, children } = before.snapshot;
    const info = await ctx.kernel.getBlockInfo(newId);
    const noteID = info?.rootID ?? null;
    const receipt = { id: newId, noteID, hpath: today.hpath, date: today.date };
    const fail = (reason: string): ReadbackResult => ({
      state: seen.state,
      verdict: "mismatch",
      reason,
      receipt,
    });
    const atToday = await ctx.kernel.getIDsByHPath(a.notebook, today.hpath);
    if (noteID === null || !atToday.includes(noteID)) {
      const where = noteID === null ? null : await ctx.kernel.getHPathByID(noteID);
      return fail(
        `block ${newId} is in ${where ?? "no document"}, not in today's daily note ${today.hpath} (a different day or time zone)`,
      );
    }
    const kids = (await ctx.kernel.getChildBlocks(noteID)).map((c) => c.id);
    const at = kids.indexOf(newId);
    const misplaced =
      a.position === "prepend"
        ? at !== 0
        : at < 0 || kids.slice(at + 1).some((k) => children.includes(k));
    if (misplaced) {
      return fail(
        `block ${newId} is not the ${a.position === "prepend" ? "first" : "last"} of daily note ${noteID}`,
      );
    }
    return { state: seen.state, verdict: "applied", receipt };
  },
};

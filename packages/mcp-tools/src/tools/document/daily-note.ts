/**
 * Today's daily note: `document.daily_note` finds it without ever creating it, and
 * `document.create_daily_note` (additive, strict) creates it unless it exists.
 *
 * The kernel finds a daily note by the hpath its notebook's `dailyNoteSavePath` template renders
 * for today (default `/daily note/2026/07/2026-07-21`), and `createDailyNote` creates it when no
 * document has that hpath. Both actions render the same template for the kernel's clock
 * (`currentTime`) in this authority's local time zone — the kernel's own when the authority is the
 * kernel plugin or runs on the kernel's machine — and look the hpath up. The templates rendered are
 * `{{now | date "<Go layout>"}}` actions, the form SiYuan writes; any other action is refused.
 */
import { notFound, ToolError } from "../../errors.js";
import type {
  ArgsOf,
  MutationHandler,
  ReadbackResult,
  ToolContext,
  WriteContext,
} from "../../handler.js";
import { readAction } from "../../handler.js";
import { normalizeHpath } from "../../state/doc-state.js";
import { probeNotebookOpen } from "./create.js";

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/** The Go layout elements rendered, longest first where one is a prefix of another. */
const LAYOUT_TOKEN = /January|Monday|2006|002|Jan|Mon|_2|01|02|03|04|05|06|15|PM|pm|1|2|3|4|5/g;

/** Formats a local time with a Go reference-time layout (`2006-01-02`, `Jan _2`, …). */
export function formatGoLayout(layout: string, t: Date): string {
  const hour12 = t.getHours() % 12 === 0 ? 12 : t.getHours() % 12;
  const startOfYear = new Date(t.getFullYear(), 0, 1);
  const yearDay =
    Math.round(
      (+new Date(t.getFullYear(), t.getMonth(), t.getDate()) - +startOfYear) / 86_400_000,
    ) + 1;
  const values: Record<string, string> = {
    January: MONTHS[t.getMonth()] as string,
    Jan: (MONTHS[t.getMonth()] as string).slice(0, 3),
    Monday: DAYS[t.getDay()] as string,
    Mon: (DAYS[t.getDay()] as string).slice(0, 3),
    "2006": String(t.getFullYear()),
    "06": pad(t.getFullYear() % 100),
    "002": pad(yearDay, 3),
    "01": pad(t.getMonth() + 1),
    "1": String(t.getMonth() + 1),
    "02": pad(t.getDate()),
    "2": String(t.getDate()),
    _2: String(t.getDate()).padStart(2, " "),
    "15": pad(t.getHours()),
    "03": pad(hour12),
    "3": String(hour12),
    "04": pad(t.getMinutes()),
    "4": String(t.getMinutes()),
    "05": pad(t.getSeconds()),
    "5": String(t.getSeconds()),
    PM: t.getHours() < 12 ? "AM" : "PM",
    pm: t.getHours() < 12 ? "am" : "pm",
  };
  return layout.replace(LAYOUT_TOKEN, (token) => values[token] ?? token);
}

const ACTION = /\{\{-?\s*now\s*\|\s*date\s+"([^"]*)"\s*-?\}\}/g;

/**
 * The hpath a `dailyNoteSavePath` template names at `t`, or `null` when it holds a template action
 * other than `{{now | date "…"}}`.
 */
export function renderDailyNotePath(template: string, t: Date): string | null {
  const rendered = template.replace(ACTION, (_m, layout: string) => formatGoLayout(layout, t));
  if (rendered.includes("{{")) return null;
  return normalizeHpath(`/${rendered.trim().replace(/^\/+/, "")}`);
}

/** Today as the daily note's template sees it, and what the kernel holds at that hpath. */
export interface Today {
  /** `YYYY-MM-DD` in this authority's local time zone. */
  readonly date: string;
  readonly hpath: string;
  /** The note's ID (the first document at `hpath`, as the kernel's lookup takes it), or `null`. */
  readonly id: string | null;
}

/** Finds today's note of an open notebook (3 reads in parallel, then the hpath lookup). */
export async function findToday(ctx: ToolContext, notebook: string): Promise<Today> {
  const [, conf, now] = await Promise.all([
    probeNotebookOpen(ctx, notebook),
    ctx.kernel.getNotebookConf(notebook),
    ctx.kernel.currentTime(),
  ]);
  if (conf === null) throw notFound("notebook", notebook);
  const template = String(conf["dailyNoteSavePath"] ?? "").trim();
  if (template === "" || template === "/") {
    throw new ToolError(
      "invalid_arguments",
      `notebook ${notebook} has no daily note save path: set conf.dailyNoteSavePath with notebook.set_conf`,
      { notebook },
    );
  }
  const t = new Date(now);
  const hpath = renderDailyNotePath(template, t);
  if (hpath === null) {
    throw new ToolError(
      "invalid_arguments",
      `notebook ${notebook}'s dailyNoteSavePath ${JSON.stringify(template)} uses a template action Sisyphus cannot evaluate; only {{now | date "<Go layout>"}} is supported`,
      { notebook, dailyNoteSavePath: template },
    );
  }
  const ids = await ctx.kernel.getIDsByHPath(notebook, hpath);
  return { date: formatGoLayout("2006-01-02", t), hpath, id: ids[0] ?? null };
}

/** document.daily_note: today's note, or `id: null` — a read, so it never creates one. */
export const dailyNote = readAction({
  run: async (ctx: ToolContext, a: ArgsOf<"document", "daily_note">) => {
    const today = await findToday(ctx, a.notebook);
    return {
      notebook: a.notebook,
      ...today,
      ...(today.id === null
        ? { hint: "no daily note today; document.create_daily_note creates it" }
        : {}),
    };
  },
  notebooks: async (_ctx, a) => [a.notebook],
});

/** What the executor did: the note's ID, and whether this commit created it. */
interface Made {
  readonly id: string;
  readonly created: boolean;
}

/**
 * document.create_daily_note. The probe (at preflight and again at commit) looks today's note up;
 * when it exists the commit writes nothing and answers `no_change` with its ID, so a note that
 * appeared after the preflight is never made twice (and the kernel's own `createDailyNote` would
 * return it rather than create another). The readback requires the kernel's note at today's hpath.
 */
export const createDailyNote: MutationHandler<
  ArgsOf<"document", "create_daily_note">,
  Today,
  Made
> = {
  targets: (a) => [a.notebook],
  probe: async (ctx, a) => {
    const today = await findToday(ctx, a.notebook);
    return {
      state: { notebook: a.notebook, hpath: today.hpath, id: today.id },
      notebooks: [a.notebook],
      snapshot: today,
      ...(today.id === null
        ? {}
        : {
            preflightNotes: {
              existingID: today.id,
              note: "today's note exists: the commit writes nothing and answers no_change with it",
            },
          }),
    };
  },
  execute: async (ctx: WriteContext, a, before): Promise<Made> =>
    before.snapshot.id === null
      ? { id: await ctx.write.createDailyNote(a.notebook), created: true }
      : { id: before.snapshot.id, created: false },
  readback: async (ctx, a, before, made): Promise<ReadbackResult> => {
    const { hpath } = before.snapshot;
    await ctx.kernel.flush();
    const ids = await ctx.kernel.getIDsByHPath(a.notebook, hpath);
    const state = { notebook: a.notebook, hpath, id: ids[0] ?? null };
    const receipt = { id: made.id, hpath, date: before.snapshot.date, created: made.created };
    if (!ids.includes(made.id)) {
      const actual = await ctx.kernel.getHPathByID(made.id);
      return {
        state,
        verdict: "mismatch",
        reason:
          actual === null
            ? `daily note ${made.id} does not exist after the write`
            : `the kernel's daily note ${made.id} is at ${actual}, not at today's ${hpath} (a different day or time zone)`,
        receipt,
      };
    }
    return { state, verdict: made.created ? "applied" : "unchanged", receipt };
  },
};

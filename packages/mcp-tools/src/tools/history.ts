/**
 * history: list and get (reads); create_point (additive); rollback_document (state, dangerous);
 * the workspace snapshots snapshot_list, snapshot_diff and snapshot_create in history-snapshots.ts.
 *
 * A point is SiYuan's document history: a copy of the document's file under
 * `history/<time>-<op>/`, whose workspace path (`historyPath`) is the handle `get` and
 * `rollback_document` take. The kernel lists points a few seconds after it writes them (its
 * history index is flushed every 3 s), so `create_point` reads back by polling the listing with a
 * deadline. A rollback replaces the document's blocks with the point's and keeps the document's
 * ID; the kernel keeps no point of the content it replaces, which the preflight answer says.
 */
import { ToolError } from "../errors.js";
import {
  type ArgsOf,
  type MutationHandler,
  mutationAction,
  readAction,
  type ToolContext,
  type ToolHandlers,
} from "../handler.js";
import { splitOwnIal } from "../state/attributes.js";
import {
  canonicalForm,
  type FormBlock,
  formOfDom,
  formOfMarkdown,
  markdownOfForm,
} from "../state/content-form.js";
import { readDocBody, requireDoc } from "../state/doc-state.js";
import { snapshotCreate, snapshotDiff, snapshotList } from "./history-snapshots.js";

/** How long `create_point` waits for the kernel to list the new point. */
export const POINT_LISTED_DEADLINE_MS = 8000;
const POLL_INTERVAL_MS = 250;

/** The notebook a history path names (`/history/<dir>/<notebook>/…`). */
function notebookOfPath(historyPath: string): string {
  return historyPath.split("/")[3] ?? "";
}

/**
 * The form of a point's DOM. The kernel renders a point read-only: its editable text holders say
 * `contenteditable="false" spellcheck="false"`, which the DOM parser reads as the editor's
 * editable ones (every other element keeps its attributes).
 */
function formOfPointDom(dom: string): FormBlock[] {
  return formOfDom(
    dom.replaceAll(
      '<div contenteditable="false" spellcheck="false">',
      '<div contenteditable="true" spellcheck="false">',
    ),
  );
}

/** The content form of a point, or `null` when the kernel has no such point. */
export async function pointForm(
  ctx: ToolContext,
  historyPath: string,
): Promise<FormBlock[] | null> {
  const c = await ctx.kernel.historyContent(historyPath);
  if (c === null) return null;
  return c.markdown ? formOfMarkdown(c.content) : formOfPointDom(c.content);
}

/** The content form of a document's blocks (its own IAL left out), `null` when it is gone. */
export async function docForm(ctx: ToolContext, id: string): Promise<FormBlock[] | null> {
  const kramdown = await ctx.kernel.getBlockKramdown(id);
  return kramdown === null ? null : formOfMarkdown(splitOwnIal(kramdown).body);
}

const key = (form: readonly FormBlock[]) => canonicalForm(form, { ownAttrs: "compare" });

/** Unix seconds (as the kernel lists them) to an ISO time. */
const isoOf = (created: string) => new Date(Number(created) * 1000).toISOString();

const list = readAction<ArgsOf<"history", "list">>({
  notebooks: async (ctx, a) => [(await requireDoc(ctx, a.id)).notebook],
  async run(ctx, a) {
    await requireDoc(ctx, a.id);
    const page = await ctx.kernel.historyTimes(a.id, a.page);
    const points = [];
    for (const created of page.times) {
      for (const item of await ctx.kernel.historyItems(created, a.id)) {
        points.push({
          time: isoOf(created),
          op: item.op,
          title: item.title,
          historyPath: item.path,
        });
      }
    }
    return {
      id: a.id,
      page: a.page,
      pageCount: page.pageCount,
      totalTimes: page.totalCount,
      points,
    };
  },
});

const get = readAction<ArgsOf<"history", "get">>({
  notebooks: async (_ctx, a) => [notebookOfPath(a.historyPath)],
  async run(ctx, a) {
    const c = await ctx.kernel.historyContent(a.historyPath);
    if (c === null) throw notFound(a.historyPath);
    if (c.markdown) return { historyPath: a.historyPath, markdown: c.content, exact: true };
    const form = formOfPointDom(c.content);
    const markdown = markdownOfForm(form);
    // the Markdown is exact when it parses back to the content the kernel showed
    const exact = key(formOfMarkdown(markdown)) === key(form);
    return {
      historyPath: a.historyPath,
      markdown,
      exact,
      ...(exact ? {} : { dom: c.content }),
    };
  },
});

function notFound(historyPath: string): ToolError {
  return new ToolError(
    "not_found",
    `history point ${historyPath} does not exist: take a historyPath from history.list`,
    { historyPath },
  );
}

const wait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = globalThis.setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      globalThis.clearTimeout(t);
      resolve();
    });
  });

interface PointSnapshot {
  readonly notebook: string;
  /** The kernel's clock before the write, Unix seconds: the new point is at this time or later. */
  readonly since: number;
}

/** The newest listed point of `id` made at `since` or later, or `undefined`. */
async function newPoint(ctx: ToolContext, id: string, since: number) {
  const page = await ctx.kernel.historyTimes(id, 1);
  for (const created of page.times) {
    if (Number(created) < since) break;
    const item = (await ctx.kernel.historyItems(created, id)).find(
      (i) => i.op === "update" && i.path.endsWith(`/${id}.sy`),
    );
    if (item) return { created, path: item.path };
  }
  return undefined;
}

const createPoint: MutationHandler<ArgsOf<"history", "create_point">, PointSnapshot, null> = {
  targets: (a) => [a.id],
  async probe(ctx, a) {
    const loc = await requireDoc(ctx, a.id);
    const since = Math.floor((await ctx.kernel.currentTime()) / 1000);
    return {
      state: { id: a.id, notebook: loc.notebook },
      notebooks: [loc.notebook],
      snapshot: { notebook: loc.notebook, since },
    };
  },
  async execute(ctx, a) {
    await ctx.write.createDocHistory(a.id);
    return null;
  },
  async readback(ctx, a, before) {
    const deadline = Date.now() + POINT_LISTED_DEADLINE_MS;
    let point = await newPoint(ctx, a.id, before.snapshot.since);
    while (point === undefined && Date.now() < deadline && !ctx.signal?.aborted) {
      await wait(POLL_INTERVAL_MS, ctx.signal);
      point = await newPoint(ctx, a.id, before.snapshot.since);
    }
    const state = { id: a.id, notebook: before.snapshot.notebook };
    if (point === undefined) {
      return {
        state,
        verdict: "mismatch",
        reason: `no history point of ${a.id} made since the request was listed within ${POINT_LISTED_DEADLINE_MS / 1000} s`,
      };
    }
    const [saved, live] = await Promise.all([pointForm(ctx, point.path), docForm(ctx, a.id)]);
    if (saved === null || live === null || key(saved) !== key(live)) {
      return {
        state: { ...state, historyPath: point.path },
        verdict: "mismatch",
        reason: `history point ${point.path} does not hold the document's content`,
      };
    }
    return {
      state: { ...state, historyPath: point.path },
      verdict: "applied",
      receipt: { historyPath: point.path, time: isoOf(point.created) },
    };
  },
};

interface RollbackSnapshot {
  /** The point's content form, canonical. */
  readonly point: string;
  /** The document's content form before, canonical. */
  readonly before: string;
}

const rollbackDocument: MutationHandler<
  ArgsOf<"history", "rollback_document">,
  RollbackSnapshot,
  null
> = {
  targets: (a) => [a.id],
  async probe(ctx, a) {
    const loc = await requireDoc(ctx, a.id);
    if (notebookOfPath(a.historyPath) !== loc.notebook) {
      throw new ToolError(
        "invalid_arguments",
        `history point ${a.historyPath} is from another notebook than document ${a.id}: move the document back first`,
        { id: a.id, historyPath: a.historyPath, notebook: loc.notebook },
      );
    }
    const [body, point] = await Promise.all([
      readDocBody(ctx, a.id),
      pointForm(ctx, a.historyPath),
    ]);
    if (body === null) throw new ToolError("not_found", `document ${a.id} does not exist`, a);
    if (point === null) throw notFound(a.historyPath);
    return {
      state: body.state,
      notebooks: [loc.notebook],
      snapshot: {
        point: key(point),
        before: key(formOfMarkdown(splitOwnIal(body.kramdown).body)),
      },
      preflightNotes: {
        replacedContentKept: false,
        hint: "the current content is not kept as a point: history.create_point first to keep it",
      },
    };
  },
  async execute(ctx, a) {
    await ctx.write.rollbackDocHistory(a.historyPath);
    return null;
  },
  async readback(ctx, a, before) {
    await ctx.kernel.flush();
    const body = await readDocBody(ctx, a.id);
    if (body === null) {
      return {
        state: { id: a.id, missing: true },
        verdict: "mismatch",
        reason: `document ${a.id} no longer exists`,
      };
    }
    if (key(formOfMarkdown(splitOwnIal(body.kramdown).body)) !== before.snapshot.point) {
      return {
        state: body.state,
        verdict: "mismatch",
        reason: `document ${a.id} does not show the content of ${a.historyPath}`,
      };
    }
    return {
      state: body.state,
      verdict: before.snapshot.before === before.snapshot.point ? "unchanged" : "applied",
      receipt: { id: a.id, historyPath: a.historyPath },
    };
  },
};

export const historyHandlers = {
  list,
  get,
  create_point: mutationAction(createPoint),
  rollback_document: mutationAction(rollbackDocument),
  snapshot_list: snapshotList,
  snapshot_create: mutationAction(snapshotCreate),
  snapshot_diff: snapshotDiff,
} satisfies ToolHandlers<"history">;

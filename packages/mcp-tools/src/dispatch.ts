/**
 * The catalog joined with the handlers. Each action's schema parses the call's business arguments
 * and its handler receives them with the type that schema gives them: the join is generic over one
 * action at a time, so no cast sits between the table and the handlers, and the runtime only ever
 * sees handlers already applied to their parsed arguments.
 */
import { z } from "zod";
import { type ActionSpec, type ActionSurface, CATALOG, type ToolName } from "./catalog.js";
import type {
  ActionHandler,
  HandlerFor,
  Probed,
  ReadbackResult,
  SpecArgs,
  TableHandlers,
  ToolContext,
  ToolHandlers,
  WriteContext,
} from "./handler.js";
import { avHandlers } from "./tools/av/index.js";
import { blockHandlers } from "./tools/block/index.js";
import { documentHandlers } from "./tools/document/index.js";
import { extensionHandlers } from "./tools/extension.js";
import { feedbackHandlers } from "./tools/feedback.js";
import { fileHandlers } from "./tools/file.js";
import { flashcardHandlers } from "./tools/flashcard.js";
import { fsHandlers } from "./tools/fs/index.js";
import { historyHandlers } from "./tools/history.js";
import { notebookHandlers } from "./tools/notebook.js";
import { searchHandlers } from "./tools/search.js";
import { systemHandlers } from "./tools/system.js";
import { tagHandlers } from "./tools/tag.js";

/** Every tool's handlers, exactly one per catalog action (checked by the compiler and a test). */
export const HANDLERS: { readonly [T in ToolName]: ToolHandlers<T> } = {
  block: blockHandlers,
  document: documentHandlers,
  fs: fsHandlers,
  file: fileHandlers,
  notebook: notebookHandlers,
  search: searchHandlers,
  tag: tagHandlers,
  av: avHandlers,
  history: historyHandlers,
  flashcard: flashcardHandlers,
  system: systemHandlers,
  extension: extensionHandlers,
  feedback: feedbackHandlers,
};

/**
 * A mutation handler applied to one call's arguments. `S` (the probe's snapshot) and `E` (what the
 * executor returns) stay the handler's own: the runtime threads them from step to step.
 */
export interface AppliedMutation<S, E> {
  readonly targets: () => readonly string[];
  /** Receipt fields known without readback, or `undefined`. */
  readonly summary: () => Record<string, unknown> | undefined;
  readonly probe: (ctx: ToolContext) => Promise<Probed<S>>;
  readonly execute: (ctx: WriteContext, before: Probed<S>) => Promise<E>;
  readonly readback: (ctx: ToolContext, before: Probed<S>, executed: E) => Promise<ReadbackResult>;
  /** A staged creation that resumes an unsettled request (see `MutationHandler.resumable`). */
  readonly resumable: boolean;
  /** A replay may compare its probe with the stored result (see `MutationHandler.probeUnlikeResult`). */
  readonly replayComparable: boolean;
  /** A replay that finds the result in place shows it (see `MutationHandler.showsWritten`). */
  readonly showsWritten: boolean;
}

/** A read call, its handler applied to its arguments. */
export interface BoundRead {
  readonly kind: "read";
  readonly run: (ctx: ToolContext) => Promise<unknown>;
  /** Notebooks whose read permission the call needs; `undefined` when the handler names none. */
  readonly notebooks: ((ctx: ToolContext) => Promise<readonly string[]>) | undefined;
}

/** An external call, its handler applied to its arguments. */
export interface BoundExternal {
  readonly kind: "external";
  readonly run: (ctx: WriteContext) => Promise<unknown>;
}

/** A mutation call: `open` hands `use` the handler applied to the call's arguments. */
export interface BoundMutation {
  readonly kind: "mutation";
  readonly open: <R>(use: <S, E>(mutation: AppliedMutation<S, E>) => R) => R;
}

/** One call whose business arguments its action's schema accepted. */
export interface BoundCall {
  /** The parsed business arguments (defaults filled in): what the lease scope hashes. */
  readonly args: Readonly<Record<string, unknown>>;
  readonly handler: BoundRead | BoundExternal | BoundMutation;
}

/**
 * The outcome of {@link bindCall}: a bound call, or the schema's issues (an expected failure).
 * `pagedBy` is present for a paged read whose call gave no `pageSize`: the same call bound to a
 * settings' page size, without parsing it again (see {@link bindCall}).
 */
export type BindResult =
  | {
      readonly ok: true;
      readonly call: BoundCall;
      readonly pagedBy?: (pageSize: number) => BoundCall;
    }
  | { readonly ok: false; readonly error: z.ZodError };

type Binder = (business: Readonly<Record<string, unknown>>) => BindResult;

function applyHandler<A>(handler: ActionHandler<A>, args: A): BoundCall["handler"] {
  switch (handler.kind) {
    case "read": {
      const { run, notebooks } = handler.handler;
      return {
        kind: "read",
        run: (ctx) => run(ctx, args),
        notebooks: notebooks && ((ctx) => notebooks(ctx, args)),
      };
    }
    case "external": {
      const { run } = handler.handler;
      return { kind: "external", run: (ctx) => run(ctx, args) };
    }
    case "mutation":
      return {
        kind: "mutation",
        open: (use) =>
          handler.open((h) =>
            use({
              targets: () => h.targets(args),
              summary: () => h.summary?.(args),
              probe: (ctx) => h.probe(ctx, args),
              execute: (ctx, before) => h.execute(ctx, args, before),
              readback: (ctx, before, executed) => h.readback(ctx, args, before, executed),
              resumable: h.resumable === true,
              replayComparable: h.probeUnlikeResult !== true,
              showsWritten: h.showsWritten === true,
            }),
          ),
      };
  }
}

/** Joins one action's schema with its handler. */
function bind<S extends ActionSpec>(spec: S, entry: HandlerFor<S>): Binder {
  const handler: ActionHandler<SpecArgs<S>> = entry;
  const paged = "pageSize" in spec.args.shape;
  return (business) => {
    const parsed = z.safeParse<S["args"]>(spec.args, business);
    if (!parsed.success) return { ok: false, error: parsed.error };
    const boundTo = (args: SpecArgs<S>): BoundCall => ({
      args,
      handler: applyHandler(handler, args),
    });
    const call = boundTo(parsed.data);
    if (!paged || business["pageSize"] !== undefined) return { ok: true, call };
    // The schema's `pageSize` limits are the settings' (`OPTION_LIMITS.pageSize`, which the
    // settings parse enforces): the settings' page size is one this schema accepts, so it replaces
    // the schema's default in the parsed arguments as if the call had given it.
    return { ok: true, call, pagedBy: (pageSize) => boundTo({ ...parsed.data, pageSize }) };
  };
}

/** Joins every action of one table with its handler. */
function bindTable<C extends { readonly [A in keyof C]: ActionSpec }>(
  specs: C,
  handlers: TableHandlers<C>,
): ReadonlyMap<string, Binder> {
  const binders = new Map<string, Binder>();
  for (const action in specs) binders.set(action, bind(specs[action], handlers[action]));
  return binders;
}

const BINDERS: { readonly [T in ToolName]: ReadonlyMap<string, Binder> } = {
  block: bindTable(CATALOG.block, HANDLERS.block),
  document: bindTable(CATALOG.document, HANDLERS.document),
  fs: bindTable(CATALOG.fs, HANDLERS.fs),
  file: bindTable(CATALOG.file, HANDLERS.file),
  notebook: bindTable(CATALOG.notebook, HANDLERS.notebook),
  search: bindTable(CATALOG.search, HANDLERS.search),
  tag: bindTable(CATALOG.tag, HANDLERS.tag),
  av: bindTable(CATALOG.av, HANDLERS.av),
  history: bindTable(CATALOG.history, HANDLERS.history),
  flashcard: bindTable(CATALOG.flashcard, HANDLERS.flashcard),
  system: bindTable(CATALOG.system, HANDLERS.system),
  extension: bindTable(CATALOG.extension, HANDLERS.extension),
  feedback: bindTable(CATALOG.feedback, HANDLERS.feedback),
};

/**
 * Parses a call's business arguments with the schema of `surface`'s action and applies the
 * action's handler to them. Unknown keys, missing or malformed arguments fail here, before any
 * kernel call. A paged read that gave no `pageSize` is parsed with the schema's default and can be
 * bound again to the page size of the call's settings (`pagedBy`), which are read after the parse.
 */
export function bindCall(
  surface: ActionSurface,
  business: Readonly<Record<string, unknown>>,
): BindResult {
  const binder = BINDERS[surface.tool].get(surface.action);
  if (binder === undefined) throw new Error(`no handler for ${surface.tool}.${surface.action}`);
  return binder(business);
}

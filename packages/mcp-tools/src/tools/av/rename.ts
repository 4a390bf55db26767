/**
 * av.rename (state): the database's name through the `setAttrViewName` transaction op, which the
 * kernel applies asynchronously and stores trimmed, newlines as spaces, at most 512 characters
 * (`storedAvName`). The state is the database's ID and name; the readback flushes, then proves the
 * file holds the name as stored. A name equal to the current one answers `unchanged`.
 */
import type { ArgsOf, MutationHandler, ReadbackResult } from "../../handler.js";
import { storedAvName } from "./create.js";
import { requireAv } from "./rows.js";

type Args = ArgsOf<"av", "rename">;

/** What the state covers: the database and its name. */
interface NameState {
  readonly id: string;
  readonly name: string;
}

/** av.rename (state). */
export const rename: MutationHandler<Args, NameState, null> = {
  targets: (a) => [a.id],
  async probe(ctx, a) {
    const av = await requireAv(ctx, a.id);
    const state = { id: a.id, name: av.name ?? "" };
    return { state, notebooks: [], snapshot: state };
  },
  async execute(ctx, a) {
    await ctx.write.setAttributeViewName(a.id, a.name);
    return null;
  },
  async readback(ctx, a, before): Promise<ReadbackResult> {
    await ctx.kernel.flush();
    const av = await requireAv(ctx, a.id);
    const state = { id: a.id, name: av.name ?? "" };
    const want = storedAvName(a.name);
    if (state.name !== want)
      return { state, verdict: "mismatch", reason: `database ${a.id} is not named ${want}` };
    return {
      state,
      verdict: before.snapshot.name === want ? "unchanged" : "applied",
      receipt: { id: a.id, name: want, previousName: before.snapshot.name },
    };
  },
};

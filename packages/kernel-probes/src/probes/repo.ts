/**
 * The data repo's snapshots (`/api/repo/*`), the three paths history.snapshot_* call. They run
 * last: `repo.snapshots` gives the workspace a data repo key, which stays. On a real kernel the
 * key is made with `initRepoKey` (a scratch workspace only: the product never sets one, D-321); on
 * the sandbox with its control route (`/__sandbox/repo-key`). Neither call is recorded.
 */
import { ProbeError } from "../probe.js";
import { data, probe } from "./kit.js";

interface Snapshot {
  id: string;
  memo: string;
  created: number;
}
interface Page {
  snapshots: Snapshot[];
  pageCount: number;
  totalCount: number;
}

const A = "a".repeat(40);
const B = "b".repeat(40);

export const repoProbes = [
  probe(
    "repo.no-key",
    "getRepoSnapshots, createSnapshot and diffRepoSnapshots on a fresh workspace (conf.repo.key " +
      "null): argument checks, then code -1 and the localized 'initialize the data repo key' message",
    ["/api/repo/getRepoSnapshots", "/api/repo/createSnapshot", "/api/repo/diffRepoSnapshots"],
    async (ctx) => {
      const conf = await ctx.quiet<{ conf: { repo?: { key?: unknown } } }>(
        "/api/system/getConf",
        {},
      );
      ctx.note("a fresh workspace has no data repo key", conf.conf.repo?.key === null);
      await ctx.post("list", "/api/repo/getRepoSnapshots", { page: 1 });
      await ctx.post("list without page", "/api/repo/getRepoSnapshots", {});
      await ctx.post("list with a string page", "/api/repo/getRepoSnapshots", { page: "1" });
      await ctx.post("create", "/api/repo/createSnapshot", { memo: "probe" });
      await ctx.post("create with a blank memo", "/api/repo/createSnapshot", { memo: "  " });
      await ctx.post("create without memo", "/api/repo/createSnapshot", {});
      await ctx.post("diff", "/api/repo/diffRepoSnapshots", { left: A, right: B });
      await ctx.post("diff with a blank left", "/api/repo/diffRepoSnapshots", {
        left: " ",
        right: B,
      });
      await ctx.post("diff without right", "/api/repo/diffRepoSnapshots", { left: A });
    },
  ),
  probe(
    "repo.snapshots",
    "with a data repo key: the [Init] snapshot, createSnapshot (data null; none when the data " +
      "equal the latest; blank memo refused), the listing (32 a page, page 0), diffRepoSnapshots " +
      "of two snapshots, of one with itself and of an unknown one",
    ["/api/repo/getRepoSnapshots", "/api/repo/createSnapshot", "/api/repo/diffRepoSnapshots"],
    async (ctx) => {
      const sandboxKey = await ctx.quietRaw({ path: "/__sandbox/repo-key", json: {} });
      // SiYuan answers an unknown path with an empty body; the sandbox's control route an envelope
      const sandbox = (sandboxKey.json as { code?: unknown } | undefined)?.code === 0;
      if (!sandbox) await ctx.quiet("/api/repo/initRepoKey", {});
      const list = () => ctx.quiet<Page>("/api/repo/getRepoSnapshots", { page: 1 });
      // SiYuan adds the "[Init] Init local data repo" snapshot about two seconds later
      const init = (await ctx.poll(list, (p) => p.totalCount > 0, 15_000)).snapshots[0];
      if (init === undefined) throw new ProbeError("no [Init] snapshot was listed");
      ctx.alias(init.id, "<init-snapshot>");
      await ctx.post("list after the key", "/api/repo/getRepoSnapshots", { page: 1 });
      const nb = await ctx.notebook();
      await ctx.doc(nb, "/Snapshot", "first paragraph");
      await ctx.post("create", "/api/repo/createSnapshot", {
        // SiYuan keeps printable characters only (a no-break space becomes a space), then trims
        memo: "  probe\u200b\tsnap\u00a0shot\u2003\n ",
      });
      const first = (await list()).snapshots[0];
      if (first === undefined || first.id === init.id) throw new ProbeError("no new snapshot");
      ctx.alias(first.id, "<first-snapshot>");
      await ctx.post("list after create", "/api/repo/getRepoSnapshots", { page: 1 });
      await ctx.post("create with nothing changed", "/api/repo/createSnapshot", { memo: "again" });
      const again = data<Page>(
        await ctx.post("list after the unchanged create", "/api/repo/getRepoSnapshots", {
          page: 1,
        }),
      );
      ctx.note("no snapshot when the data equal the latest", again.totalCount === 2);
      await ctx.post("create with a blank memo", "/api/repo/createSnapshot", { memo: " \u200b " });
      await ctx.post("page 2", "/api/repo/getRepoSnapshots", { page: 2 });
      await ctx.post("page 0", "/api/repo/getRepoSnapshots", { page: 0 });
      await ctx.post("diff from init to first", "/api/repo/diffRepoSnapshots", {
        left: init.id,
        right: first.id,
      });
      await ctx.post("diff from first to init", "/api/repo/diffRepoSnapshots", {
        left: first.id,
        right: init.id,
      });
      await ctx.post("diff with itself", "/api/repo/diffRepoSnapshots", {
        left: first.id,
        right: first.id,
      });
      await ctx.post("diff with an unknown snapshot", "/api/repo/diffRepoSnapshots", {
        left: first.id,
        right: B,
      });
    },
  ),
];

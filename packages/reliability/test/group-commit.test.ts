/**
 * Group commit keeps the preflight's promise (issue 19): the Node authority's stores let several
 * waiting writers share one fsync, but a preflight is answered only once its reservation and its
 * `issued` record are on disk. The built server runs as a real process; many preflights are sent
 * at once from several clients, and the process is SIGKILLed the moment the k-th answer arrives
 * (k varies per round, so the kill lands at different places in the queue and in a sync group).
 * Every answered request ID must be durable in both files, and after each restart no answered ID
 * is ever issued again (the preflights of all rounds, across every restart, never repeat an ID).
 * A SIGKILL keeps the page cache, so this proves the order "written before answered"; that the
 * write is also synced before the answer is the group-commit unit test's job (node-server
 * `src/stores/append-log.test.ts`, with a fake fsync).
 */
import type { Client } from "@modelcontextprotocol/client";
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import {
  type Authority,
  authorityFor,
  blockPreflight,
  httpClient,
  tempDataDir,
} from "../../node-server/test/harness.js";
import { durableLedgerRecord, durableReservations } from "./support/crash-node.js";
import { useDemoKernel } from "./support/demo-kernel.js";

const UPDATE = "/api/block/updateBlock";
const CLIENTS = 4;
const PER_CLIENT = 4;
/** The answer after which each round kills the authority: first, inside the burst, last. */
const KILL_AFTER = [1, 3, 6, 9, 16];
const TARGETS = [
  DEMO_IDS.paragraphGoals,
  DEMO_IDS.paragraphJournal,
  DEMO_IDS.paragraphQuote,
  DEMO_IDS.paragraphStatus,
];

describe("Node authority: SIGKILL right after concurrent preflight answers", () => {
  const box = useDemoKernel();

  /**
   * Sends CLIENTS × PER_CLIENT preflights at once and SIGKILLs `auth` as soon as `killAfter`
   * answers arrived. Returns every request ID that was answered (before or racing the kill).
   */
  async function burstThenKill(auth: Authority, round: number, killAfter: number) {
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, () => httpClient(auth.url, { era: "modern" })),
    );
    const answered: string[] = [];
    let killed: Promise<void> | undefined;
    const calls = clients.flatMap((client, c) =>
      Array.from({ length: PER_CLIENT }, (_, j) =>
        preflight(client, round, c * PER_CLIENT + j).then((requestId) => {
          if (requestId === undefined) return;
          answered.push(requestId);
          if (answered.length === killAfter) killed = auth.stop("SIGKILL");
        }),
      ),
    );
    await Promise.all(calls);
    await killed;
    await auth.stop("SIGKILL");
    expect(auth.child.signalCode).toBe("SIGKILL");
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    return answered;
  }

  it("every answered request ID is durable and never issued again, over repeated kills", async () => {
    const dir = tempDataDir();
    const updates = box.current.control.count(UPDATE);
    const everAnswered: string[] = [];
    for (const [round, killAfter] of KILL_AFTER.entries()) {
      const auth = await authorityFor(box.current, dir);
      const answered = await burstThenKill(auth, round, killAfter);
      expect(answered.length).toBeGreaterThanOrEqual(killAfter);
      // Durable before the answer: the reservation and the `issued` record of each are on disk.
      const reserved = new Set(durableReservations(dir));
      for (const id of answered) {
        expect(reserved.has(id), `reservation of ${id} (round ${round})`).toBe(true);
        expect(durableLedgerRecord(dir, id), `issued record of ${id}`).toMatchObject({
          state: "issued",
        });
      }
      // Never issued again: no ID answered in this round was answered in an earlier one.
      for (const id of answered) expect(everAnswered).not.toContain(id);
      everAnswered.push(...answered);
    }

    // After the last restart, new preflights avoid every ID answered before.
    const auth = await authorityFor(box.current, dir);
    const client = await httpClient(auth.url, { era: "modern" });
    const fresh: string[] = [];
    for (let i = 0; i < 16; i++) {
      const id = await preflight(client, KILL_AFTER.length, i);
      expect(id).toBeDefined();
      fresh.push(id as string);
    }
    for (const id of fresh) expect(everAnswered).not.toContain(id);
    // The reservation file holds each ID once: nothing was ever reserved twice.
    const all = durableReservations(dir);
    expect(new Set(all).size).toBe(all.length);
    for (const id of [...everAnswered, ...fresh]) expect(all).toContain(id);
    expect(box.current.control.count(UPDATE)).toBe(updates);
    await client.close();
    await auth.stop();
  });
});

/** One block-update preflight (nothing committed); its request ID, or undefined when no answer came. */
async function preflight(client: Client, round: number, i: number): Promise<string | undefined> {
  try {
    const { p } = await blockPreflight(client, {
      action: "update",
      id: TARGETS[i % TARGETS.length],
      dataType: "markdown",
      data: `group commit round ${round} call ${i}`,
    });
    const id = p["requestId"];
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined; // the connection died with the process: no answer, nothing promised
  }
}

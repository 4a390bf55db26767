/**
 * The README's example, compiled by `typecheck` (tsconfig includes `examples`); never run. The
 * `readme` region must equal the README's ```ts block (`test/readme-example.test.ts`). What the
 * example takes as given is set up before the region; names it leaves unused are exported after.
 */
import { seededRandomSource } from "@sisyphus/core-hash";
import {
  createWriteCoordinator,
  MemoryLedgerStore,
  MemoryReservationStore,
  systemClock,
} from "@sisyphus/write-safety";

const coordinator = await createWriteCoordinator({
  clock: systemClock,
  random: seededRandomSource(7),
  epoch: "start-1",
  ledgerStore: new MemoryLedgerStore(),
  reservationStore: new MemoryReservationStore(),
});

//#region readme
import { stateHash } from "@sisyphus/core-hash";
import { mutationPolicy } from "@sisyphus/write-safety";

const block = { text: "old" }; // stands in for the kernel
const op = { tool: "block", action: "update", policy: mutationPolicy("state"), targetIds: ["b1"] };
const probe = async () => ({ digest: stateHash(block) });
const pre = await coordinator.preflight(
  { ...op, args: { data: "new", validateOnly: true } },
  probe,
);
if (!("requestId" in pre) || pre.preconditionField === null) throw new Error("not strict");
const args = { data: "new", requestId: pre.requestId, expectedStateHash: pre.expectedStateHash };
const receipt = await coordinator.commit(
  { ...op, args },
  {
    probe, // re-read: the complete digest must equal the leased one, else state_changed
    execute: async ({ writes }) => {
      await writes({ set: async (text: string) => void Object.assign(block, { text }) }).set("new");
      return { receipt: { targetCount: 1 } };
    },
    readback: async () =>
      block.text === "new"
        ? { outcome: "applied", digest: stateHash(block) }
        : { outcome: "mismatch", reason: "content differs" },
  },
); // { status: "committed" | "no_change", requestId, previousHash, resultHash, targetCount }

//#endregion

export { receipt };

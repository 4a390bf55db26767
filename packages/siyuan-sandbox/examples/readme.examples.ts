/**
 * The README's example, compiled by `typecheck` (tsconfig includes `examples`); never run. The
 * `readme` region must equal the README's ```ts block (`test/readme-example.test.ts`).
 */
//#region readme
import { DEMO_IDS, startSandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";

const sb = await startSandbox({ token: "t", seed: "demo", flushIntervalMs: 60_000 }); // flush on demand
sb.control.armFault({ endpoint: "/api/block/updateBlock", kind: "resetAfterApply" }); // next call only
sb.control.external.setBlockAttrs(DEMO_IDS.paragraphGoals, { "custom-by": "ui" }); // "another writer"
console.log(sb.url, sb.control.counts(), sb.control.transactionFailures());
await waitFor(() => sb.control.count("/api/block/updateBlock") > 0); // polls; fails after 30 s
await sb.stop();

//#endregion

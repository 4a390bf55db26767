/**
 * The README's example, compiled by `typecheck` (tsconfig includes `examples`); never run. The
 * `readme` region must equal the README's ```ts block (`test/readme-example.test.ts`). What the
 * example takes as given is declared after the region.
 */
//#region readme
import { createSiyuanClient, isSiyuanApiError, undiciTransport } from "@sisyphus/siyuan-api";

const client = createSiyuanClient({
  transport: undiciTransport({ baseUrl: "http://127.0.0.1:6806", token }),
});
try {
  await client.block.updateBlock({ id, dataType: "markdown", data: "new text" }); // sent once
  await client.flush(); // the kernel applies writes asynchronously
  const k = await client.block.getBlockKramdown({ id }); // null for an unknown ID
  console.log(k?.kramdown);
} catch (e) {
  if (isSiyuanApiError(e) && e.code === "outcome_unknown") {
    /* it may have been applied: inspect the target; never resend */
  }
}

//#endregion

declare const id: string;
declare const token: string;

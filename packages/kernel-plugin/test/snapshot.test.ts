/**
 * document.snapshot at the kernel authority: the built plugin in the sandbox's plugin host (goja's
 * language level: the cursor codec and the digests run there), the official MCP client on its
 * route. Pages cover every document once; a cursor issued by the plugin gives the delta; an
 * edited cursor is refused.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { kernelClient, sc, useSandboxWithPlugin } from "./harness.js";

const box = useSandboxWithPlugin();
const HEX64 = /^[0-9a-f]{64}$/;

type Doc = { id: string; change?: string; markdown: string; contentHash: string };

describe("document.snapshot at the kernel authority", () => {
  it("pages a notebook, returns only changes with the cursor, refuses an edited cursor", async () => {
    const x = box.current.control.external;
    const nb = x.createNotebook("Kernel snapshot");
    const ids = ["K1", "K2", "K3", "K4", "K5"].map((t) => x.createDoc(nb, `/${t}`, `Text ${t} ü.`));
    const client = await kernelClient(box.current);
    const call = async (args: Record<string, unknown>) =>
      sc(await client.callTool({ name: "document", arguments: { action: "snapshot", ...args } }));
    const all = async (args: Record<string, unknown>) => {
      const docs: Doc[] = [];
      let page = await call(args);
      docs.push(...(page["documents"] as Doc[]));
      while (typeof page["nextPageToken"] === "string") {
        page = await call({ ...args, pageToken: page["nextPageToken"] });
        expect(page["error"], JSON.stringify(page)).toBeUndefined();
        docs.push(...(page["documents"] as Doc[]));
      }
      return { docs, last: page };
    };

    const first = await all({ notebook: nb, docsPerPage: 2 });
    expect(first.docs.map((d) => d.id).sort()).toEqual([...ids].sort());
    for (const d of first.docs) {
      expect(d.contentHash).toBe(createHash("sha256").update(d.markdown, "utf8").digest("hex"));
    }
    const manifest = first.last["manifest"] as Record<string, string>;
    for (const k of ["scopeHash", "inventoryHash", "metadataHash", "contentHash"]) {
      expect(manifest[k]).toMatch(HEX64);
    }
    const cursor = String(first.last["cursor"]);

    x.appendBlock(ids[0] as string, "Edited in the kernel test.");
    const added = x.createDoc(nb, "/K6", "Added.");
    x.removeDoc(ids[1] as string);
    const delta = await all({ notebook: nb, cursor, docsPerPage: 2 });
    expect(delta.docs.map((d) => [d.id, d.change]).sort()).toEqual(
      [
        [ids[0], "changed"],
        [added, "added"],
      ].sort(),
    );
    expect(delta.last["removed"]).toEqual([ids[1]]);

    const edited = cursor.slice(0, 30) + (cursor[30] === "A" ? "B" : "A") + cursor.slice(31);
    const refused = await call({ notebook: nb, cursor: edited });
    expect(refused["error"]).toMatchObject({
      code: "invalid_arguments",
      name: "cursor",
      reason: "cursor_invalid",
    });
    await client.close();
  });
});

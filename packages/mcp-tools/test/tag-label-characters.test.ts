/**
 * Tag labels holding `_` or `%` are renamed and removed like any other. The blocks of a tag were
 * found with a `LIKE` pattern from which `_` and `%` were taken out, so `to_do` looked for
 * `#todo#`: `tag.list` showed `to_do` on a block while `tag.rename` found none and answered
 * `no_change` (seen on a real SiYuan 3.7.3 through the kernel plugin; the sandbox answers the same).
 */
import { describe, expect, it } from "vitest";
import { useHarness } from "./harness.js";

const h = useHarness();

/** The body lines of a document's blocks (IAL lines left out). */
function bodies(doc: string): string[] {
  return (h.sandbox.control.kramdown(doc) ?? "")
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.trim().startsWith("{:"));
}

describe("tag labels with _ and %", () => {
  it("tag.rename of #to_do# and tag.remove of #50%# find their block, and leave #toXdo# alone", async () => {
    const doc = h.sandbox.control.external.createDoc(
      h.notebook,
      "/Tag characters",
      "a #to_do# b\n\nc #toXdo# d\n\ne #50%# f",
    );
    await h.sandbox.control.flush();
    const renamed = await h.write("tag", { action: "rename", oldLabel: "to_do", newLabel: "done" });
    expect(renamed.preflight["blockCount"]).toBe(1);
    expect(renamed.commit.structuredContent["status"]).toBe("committed");
    const removed = await h.write("tag", { action: "remove", label: "50%" }, true);
    expect(removed.preflight["blockCount"]).toBe(1);
    expect(removed.commit.structuredContent["status"]).toBe("committed");
    await h.sandbox.control.flush();
    expect(bodies(doc).map((l) => l.replace(/\s+/g, " "))).toEqual([
      "a #done# b",
      "c #toXdo# d",
      "e f",
    ]);
  });
});

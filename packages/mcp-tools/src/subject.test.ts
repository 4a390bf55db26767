import { describe, expect, it } from "vitest";
import type { KernelReads } from "./kernel.js";
import { FULL_ACCESS } from "./permissions.js";
import { describeTargets, plainLine } from "./subject.js";

const BLOCK = "20260101120201-pdecisn";
const DOC = "20260101120200-docmeet";

/** The kernel reads `describeTargets` uses, answering from fixed rows; it records each SQL. */
function kernel(content: string) {
  const statements: string[] = [];
  const reads = {
    flush: async () => undefined,
    sql: async (stmt: string) => {
      statements.push(stmt);
      if (stmt.includes("GROUP BY")) return [{ root_id: DOC, n: 4 }];
      return [
        { id: BLOCK, type: "p", content, root_id: DOC, hpath: "/Meeting Notes", box: "nb-work" },
      ];
    },
    getBlockKramdowns: async () => ({ [BLOCK]: `${content}\n{: id="${BLOCK}"}` }),
  } as unknown as KernelReads;
  return { reads, statements };
}

describe("the subject of a confirmation", () => {
  it("is one plain line: no markup, no control characters, quotes changed, cut with an ellipsis", () => {
    expect(plainLine('a <img src=x onerror="alert(1)"> "b"\n\u001b[31mc\u2028d')).toBe(
      "a 'b' [31mc d",
    );
    expect(plainLine("x".repeat(100))).toBe(`${"x".repeat(59)}…`);
    expect(plainLine("<b>only markup</b>")).toBe("only markup");
  });

  it("names the block's kind, first line and document", async () => {
    const { reads } = kernel("Decided to use <b>sql.js</b>");
    expect(await describeTargets(reads, [BLOCK], FULL_ACCESS)).toBe(
      `paragraph "Decided to use sql.js" in document "Meeting Notes" (/Meeting Notes, 4 blocks)`,
    );
  });

  it("says nothing of a notebook the caller may not read", async () => {
    const { reads } = kernel("secret");
    const hidden = { default: "delete", notebooks: { "nb-work": "none" } } as const;
    expect(await describeTargets(reads, [BLOCK], hidden)).toBeUndefined();
  });

  it("reads nothing for a target that is not a block ID (a path, an injected quote)", async () => {
    const { reads, statements } = kernel("x");
    expect(await describeTargets(reads, ["/Meeting Notes", "x' OR 1=1 --"], FULL_ACCESS)).toBe(
      undefined,
    );
    expect(statements).toEqual([]);
  });
});

/**
 * Readback proves the request (issue 11 §1): the content form tells apart every DISTINCT fixture
 * pair and equates every EQUAL one; each fixture written through the sandbox kernel over loopback
 * reads back as committed (no false mismatch on success), as Markdown and as the kernel's own DOM;
 * formatting-only updates the kernel silently drops answer readback_mismatch, never no_change; and
 * `no_change` means only "the live state already was what you asked".
 */
import type { FaultSpec } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import type { ToolResult } from "../src/index.js";
import { splitOwnIal } from "../src/state/attributes.js";
import { canonicalForm, formOfDom, formOfMarkdown } from "../src/state/content-form.js";
import {
  BASE_PARAGRAPH,
  DISTINCT_PAIRS,
  EQUAL_PAIRS,
  FORMATTING_ONLY_UPDATES,
  SANDBOX_DOM_DEVIATIONS,
  WRITABLE_FIXTURES,
} from "./fixtures/readback-pairs.js";
import { errorCode, useHarness } from "./harness.js";

const form = (md: string) => canonicalForm(formOfMarkdown(md));

describe("content form over the fixture pairs", () => {
  it.each(DISTINCT_PAIRS.map((p) => [p.why, p] as const))("tells apart: %s", (_why, p) => {
    expect(form(p.a)).not.toBe(form(p.b));
  });

  it.each(EQUAL_PAIRS.map((p) => [p.why, p] as const))("equates: %s", (_why, p) => {
    expect(form(p.a)).toBe(form(p.b));
  });
});

const h = useHarness();
let seq = 0;

/** A fresh document (`title` and a sequence number) holding `markdown`; returns its blocks' IDs. */
async function freshDoc(title: string, markdown: string): Promise<string[]> {
  const id = h.sandbox.control.external.createDoc(h.notebook, `/${title} ${++seq}`, markdown);
  await h.client.flush();
  return (await h.client.block.getChildBlocks({ id })).map((c) => c.id);
}

/** A fresh document holding one paragraph; returns the paragraph's ID. */
async function paragraph(markdown: string): Promise<string> {
  return (await freshDoc("Readback", markdown))[0] as string;
}

/** Block DOM without the IDs and timestamps that tie it to its block, to write it elsewhere. */
function detachedDom(dom: string): string {
  return dom.replace(/\s(?:data-node-id|data-node-index|updated)="[^"]*"/g, "");
}

const DROP_UPDATE: FaultSpec = { endpoint: "/api/block/updateBlock", kind: "silentDrop" };

/** Commits `args` with the credential of their preflight `pre` while the kernel suffers `fault`. */
async function commitUnder(
  tool: string,
  args: Record<string, unknown>,
  pre: ToolResult,
  fault: FaultSpec,
  confirmed = false,
): Promise<ToolResult> {
  h.sandbox.control.armFault(fault);
  const r = await h.call(tool, h.commitArgs(args, pre.structuredContent), confirmed);
  h.sandbox.control.clearFaults();
  return r;
}

const errorOf = (r: { structuredContent: Record<string, unknown> }) =>
  r.structuredContent["error"] as {
    code: string;
    writeAttempted: boolean;
    details: Record<string, unknown>;
  };

/** Fixtures of one block: block.update refuses data of several (SiYuan keeps only the first). */
const ONE_BLOCK_FIXTURES = WRITABLE_FIXTURES.filter((md) => formOfMarkdown(md).length === 1);

describe("each fixture written through the sandbox kernel reads back as the request", () => {
  it.each(ONE_BLOCK_FIXTURES.map((md) => [JSON.stringify(md), md] as const))(
    "%s",
    async (_name, md) => {
      const id = await paragraph("seed paragraph");
      const { commit } = await h.write("block", { action: "update", id, data: md });
      expect(commit.isError, JSON.stringify(commit.structuredContent)).toBeUndefined();
      expect(commit.structuredContent["status"]).toBe("committed");

      // The kernel's real rendering of the request, in both representations, has the request's form.
      const kramdown = (await h.client.block.getBlockKramdown({ id }))?.kramdown ?? "";
      const dom = (await h.client.block.getBlockDOM({ id }))?.dom ?? "";
      expect(kramdown).not.toBe("");
      const ignoreOwn = { ownAttrs: "ignore" } as const;
      expect(canonicalForm(formOfMarkdown(splitOwnIal(kramdown).body), ignoreOwn)).toBe(
        canonicalForm(formOfMarkdown(md), ignoreOwn),
      );
      if (SANDBOX_DOM_DEVIATIONS[md] !== undefined) return;
      expect(canonicalForm(formOfDom(dom), ignoreOwn)).toBe(
        canonicalForm(formOfMarkdown(splitOwnIal(kramdown).body), ignoreOwn),
      );

      // The sandbox turns DOM text back into Markdown without escaping it, so escaped fixtures
      // cannot round-trip through it as DOM; every other one is written back as the kernel's DOM.
      if (md.includes("\\")) return;
      const other = await paragraph("another seed");
      const asDom = await h.write("block", {
        action: "update",
        id: other,
        data: detachedDom(dom),
        dataType: "dom",
      });
      expect(asDom.commit.isError, JSON.stringify(asDom.commit.structuredContent)).toBeUndefined();
      expect(asDom.commit.structuredContent["status"]).toBe("committed");
    },
  );
});

describe("a formatting-only update the kernel silently drops", () => {
  it.each(FORMATTING_ONLY_UPDATES.map((md) => [md] as const))(
    "%s answers readback_mismatch, the ledger says unknown, a replay answers outcome_unknown",
    async (md) => {
      const id = await paragraph(BASE_PARAGRAPH);
      const args = { action: "update", id, data: md };
      const pre = await h.call("block", { ...args, validateOnly: true });
      expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeUndefined();
      const writes = h.writes("/api/block/updateBlock");
      const r = await commitUnder("block", args, pre, DROP_UPDATE);

      expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("readback_mismatch");
      expect(r.structuredContent["status"]).toBeUndefined();
      expect(errorOf(r).writeAttempted).toBe(true);
      expect(errorOf(r).details["ledgerState"]).toBe("unknown");
      // the drop really happened: the block still holds the base paragraph
      expect(splitOwnIal(h.sandbox.control.kramdown(id) ?? "").body).toBe(BASE_PARAGRAPH);

      const replay = await h.call("block", h.commitArgs(args, pre.structuredContent));
      expect(errorCode(replay)).toBe("outcome_unknown");
      expect(replay.structuredContent["status"]).toBeUndefined();
      expect(h.writes("/api/block/updateBlock") - writes).toBe(1);
    },
  );

  it("a DOM update of marks only answers readback_mismatch too", async () => {
    const id = await paragraph(BASE_PARAGRAPH);
    const dom =
      '<div data-type="NodeParagraph" class="p"><div contenteditable="true" spellcheck="false">' +
      '<span data-type="strong">alpha one</span></div></div>';
    const args = { action: "update", id, data: dom, dataType: "dom" };
    const pre = await h.call("block", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeUndefined();
    const r = await commitUnder("block", args, pre, DROP_UPDATE);
    expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("readback_mismatch");

    const applied = await h.write("block", args);
    expect(applied.commit.structuredContent["status"]).toBe("committed");
    expect(splitOwnIal(h.sandbox.control.kramdown(id) ?? "").body).toBe("**alpha one**");
  });

  it("a list item's update is read back as that item", async () => {
    const list = (await freshDoc("Items", "1. alpha one\n2. beta two"))[0] as string;
    const item = (await h.client.block.getChildBlocks({ id: list }))[0]?.id as string;
    const args = { action: "update", id: item, data: "* ~~alpha one~~" };
    const pre = await h.call("block", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeUndefined();
    const dropped = await commitUnder("block", args, pre, DROP_UPDATE);
    expect(errorCode(dropped), JSON.stringify(dropped.structuredContent)).toBe("readback_mismatch");

    // The item stays in its ordered list: the bullet of the request is not the request's to choose.
    const { commit } = await h.write("block", args);
    expect(commit.isError, JSON.stringify(commit.structuredContent)).toBeUndefined();
    expect(commit.structuredContent["status"]).toBe("committed");
    expect(h.sandbox.control.kramdown(list)).toContain("~~alpha one~~");
  });

  it("fs.write with overwrite answers readback_mismatch too", async () => {
    const title = `Overwrite ${++seq}`;
    h.sandbox.control.external.createDoc(h.notebook, `/${title}`, BASE_PARAGRAPH);
    await h.client.flush();
    const name = (await h.client.notebook.lsNotebooks()).notebooks.find((n) => n.id === h.notebook)
      ?.name as string;
    const args = {
      action: "write",
      path: `/${name}/${title}`,
      markdown: "**alpha one**",
      overwrite: true,
    };
    const pre = await h.call("fs", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeUndefined();
    const r = await commitUnder("fs", args, pre, DROP_UPDATE);
    expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("readback_mismatch");

    // The same content is no request at all: a dropped write of it still answers no_change.
    const sameArgs = { ...args, markdown: BASE_PARAGRAPH };
    const samePre = await h.call("fs", { ...sameArgs, validateOnly: true });
    const same = await commitUnder("fs", sameArgs, samePre, DROP_UPDATE);
    expect(same.structuredContent["status"], JSON.stringify(same.structuredContent)).toBe(
      "no_change",
    );
  });
});

describe("no_change means the live state already was the request", () => {
  it("a genuine no-op update answers no_change", async () => {
    const id = await paragraph(BASE_PARAGRAPH);
    const { commit } = await h.write("block", { action: "update", id, data: BASE_PARAGRAPH });
    expect(commit.isError, JSON.stringify(commit.structuredContent)).toBeUndefined();
    expect(commit.structuredContent["status"]).toBe("no_change");
  });

  it("a no-op update whose write is dropped still answers no_change: nothing was asked", async () => {
    const id = await paragraph("# alpha one");
    const args = { action: "update", id, data: "# alpha one" };
    const pre = await h.call("block", { ...args, validateOnly: true });
    const r = await commitUnder("block", args, pre, DROP_UPDATE);
    expect(r.structuredContent["status"]).toBe("no_change");
  });

  it("a change of marks only is committed when the kernel applies it", async () => {
    const id = await paragraph(BASE_PARAGRAPH);
    const { commit } = await h.write("block", { action: "update", id, data: "~~alpha one~~" });
    expect(commit.structuredContent["status"]).toBe("committed");
    expect(splitOwnIal(h.sandbox.control.kramdown(id) ?? "").body).toBe("~~alpha one~~");
  });

  it("data of several blocks for a block is refused at preflight, before any write", async () => {
    // SiYuan 3.7.3 keeps only the first block of such an update (kernel-probes block.updateBlock)
    const id = await paragraph(BASE_PARAGRAPH);
    const writes = h.writes("/api/block/updateBlock");
    const pre = await h.call("block", {
      action: "update",
      id,
      data: "alpha one\n\nbeta two",
      validateOnly: true,
    });
    expect(errorCode(pre), JSON.stringify(pre.structuredContent)).toBe("invalid_arguments");
    expect(pre.structuredContent["error"]).toMatchObject({
      reason: "several_blocks",
      writeAttempted: false,
    });
    expect(h.writes("/api/block/updateBlock")).toBe(writes);
  });

  it("a move to where the block already is answers no_change; a dropped real move does not", async () => {
    const [first, second, third] = await freshDoc("Moves", "first\n\nsecond\n\nthird");
    const noop = await h.write("block", { action: "move", id: second, previousID: first }, true);
    expect(noop.commit.isError, JSON.stringify(noop.commit.structuredContent)).toBeUndefined();
    expect(noop.commit.structuredContent["status"]).toBe("no_change");

    // third already comes after first, but not right after it: the move is a real request
    const args = { action: "move", id: third, previousID: first };
    const pre = await h.call("block", { ...args, validateOnly: true }, true);
    const r = await commitUnder(
      "block",
      args,
      pre,
      { endpoint: "/api/block/moveBlock", kind: "silentDrop" },
      true,
    );
    expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("readback_mismatch");
  });
});

describe("tag readback compares the whole retagged content", () => {
  it("answers readback_mismatch when the kernel stores other text around the new tag", async () => {
    const label = `rb${++seq}`;
    const id = await paragraph(`gamma #${label}# three`);
    const args = { action: "rename", oldLabel: label, newLabel: `${label}x` };
    const pre = await h.call("tag", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeUndefined();
    const r = await commitUnder("tag", args, pre, {
      endpoint: "/api/block/updateBlock",
      kind: "corrupt",
    });
    // the new tag is there and the old one gone, yet the block is not what was asked
    const body = splitOwnIal(h.sandbox.control.kramdown(id) ?? "").body;
    expect(body).toContain(`#${label}x#`);
    expect(body).not.toContain(`#${label}#`);
    expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("readback_mismatch");
  });
});

describe("reorder readback requires custom sort mode (6)", () => {
  async function tree() {
    const parentTitle = `Sorted ${++seq}`;
    const parent = h.sandbox.control.external.createDoc(h.notebook, `/${parentTitle}`, "p");
    const a = h.sandbox.control.external.createDoc(h.notebook, `/${parentTitle}/A`, "a");
    const b = h.sandbox.control.external.createDoc(h.notebook, `/${parentTitle}/B`, "b");
    await h.client.flush();
    return { parent, children: [a, b] };
  }

  async function sortMode(): Promise<unknown> {
    const conf = await h.client.notebook.getNotebookConf({ notebook: h.notebook });
    return (conf.conf as Record<string, unknown>)["sortMode"];
  }

  it.each([
    ["stores another mode (the workspace default, 15)", { sortMode: 15 }],
    ["applies nothing but answers with the conf", {}],
  ] as const)("answers readback_mismatch when the kernel %s", async (_name, conf) => {
    h.sandbox.control.external.setNotebookConf(h.notebook, { sortMode: 15 });
    const t = await tree();
    const args = { action: "reorder", parentID: t.parent, orderedIDs: [...t.children].reverse() };
    const pre = await h.call("document", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeUndefined();
    const r = await commitUnder("document", args, pre, {
      endpoint: "/api/notebook/setNotebookConf",
      kind: "corrupt",
      corrupt: (body) => ({ ...body, conf }),
    });
    // The listing shows the order (the workspace sorts custom), but the notebook does not.
    expect(await sortMode()).toBe(15);
    expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("readback_mismatch");
  });

  it("commits and leaves the notebook in custom sort when the kernel applies both writes", async () => {
    h.sandbox.control.external.setNotebookConf(h.notebook, { sortMode: 15 });
    const t = await tree();
    const { commit } = await h.write("document", {
      action: "reorder",
      parentID: t.parent,
      orderedIDs: [...t.children].reverse(),
    });
    expect(commit.isError, JSON.stringify(commit.structuredContent)).toBeUndefined();
    expect(commit.structuredContent["status"]).toBe("committed");
    expect(await sortMode()).toBe(6);
  });
});

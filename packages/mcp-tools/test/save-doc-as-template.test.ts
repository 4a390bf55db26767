/**
 * file.save_doc_as_template against the sandbox kernel: SiYuan renders the document into
 * `data/templates/<name>`; additive, a state write on the existing template with `overwrite`;
 * only a document's ID; the readback proves the file is this document's.
 */
import { describe, expect, it } from "vitest";
import { errorCode, useHarness } from "./harness.js";

const SAVE = "/api/template/docSaveAsTemplate";

describe("file.save_doc_as_template", () => {
  const h = useHarness();

  const stored = async (name: string) => {
    const file = await h.client.file.getFile({ path: `/data/templates/${name}` });
    return file === null ? null : Buffer.from(file.bytes).toString("utf8");
  };
  const fixture = async () => {
    const nb = h.sandbox.control.external.createNotebook("Work");
    const doc = h.sandbox.control.external.createDoc(nb, "/Weekly", "# Wins\n\n- one");
    await h.sandbox.control.flush();
    return { nb, doc };
  };

  it("saves a new template once, read back as this document's, replayed without a write", async () => {
    const { doc } = await fixture();
    const args = { action: "save_doc_as_template", id: doc, name: "weekly.md" };
    const pre = await h.call("file", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    expect(pre.structuredContent).toMatchObject({
      preconditionField: null,
      templatePath: "/data/templates/weekly.md",
      replaces: false,
    });
    const before = h.writes(SAVE);
    const commit = await h.call("file", h.commitArgs(args, pre.structuredContent));
    expect(commit.structuredContent["status"], JSON.stringify(commit.structuredContent)).toBe(
      "committed",
    );
    expect(h.writes(SAVE)).toBe(before + 1);
    const text = await stored("weekly.md");
    expect(text).toContain("# Wins");
    expect(text?.trimEnd().split("\n").pop()).toMatch(
      new RegExp(`^\\{: id="${doc}" title="Weekly"`),
    );

    const replay = await h.call("file", h.commitArgs(args, pre.structuredContent));
    expect(replay.structuredContent).toMatchObject({ status: "committed", replayed: true });
    expect(h.writes(SAVE)).toBe(before + 1);
  });

  it("refuses an existing template unless overwrite; with overwrite a person's later edit is state_changed", async () => {
    const { doc } = await fixture();
    await h.client.file.putFile({ path: "/data/templates/mine.md", file: "my template" });
    const taken = await h.call("file", {
      action: "save_doc_as_template",
      id: doc,
      name: "mine.md",
      validateOnly: true,
    });
    expect(errorCode(taken)).toBe("already_exists");

    const args = { action: "save_doc_as_template", id: doc, name: "mine.md", overwrite: true };
    const pre = await h.call("file", { ...args, validateOnly: true });
    expect(pre.structuredContent["preconditionField"]).toBe("expectedStateHash");
    await h.client.file.putFile({ path: "/data/templates/mine.md", file: "my template, edited" });
    const before = h.writes(SAVE);
    const changed = await h.call("file", h.commitArgs(args, pre.structuredContent));
    expect(errorCode(changed)).toBe("state_changed");
    expect(h.writes(SAVE)).toBe(before);
    expect(await stored("mine.md")).toBe("my template, edited");

    const { commit } = await h.write("file", args);
    expect(commit.structuredContent["status"]).toBe("committed");
    expect(await stored("mine.md")).toContain("# Wins");
  });

  it("a template made between preflight and commit is kept: the kernel is told not to overwrite", async () => {
    const { doc } = await fixture();
    const args = { action: "save_doc_as_template", id: doc, name: "late.md" };
    const pre = await h.call("file", { ...args, validateOnly: true });
    await h.client.file.putFile({ path: "/data/templates/late.md", file: "theirs" });
    const commit = await h.call("file", h.commitArgs(args, pre.structuredContent));
    expect(errorCode(commit)).toBe("already_exists");
    expect(await stored("late.md")).toBe("theirs");
  });

  it("refuses a block inside a document, an unknown ID and a name SiYuan would change", async () => {
    const { doc } = await fixture();
    const child = ((await h.client.block.getChildBlocks({ id: doc }))[0]?.id ?? "") as string;
    const inside = await h.call("file", {
      action: "save_doc_as_template",
      id: child,
      name: "x.md",
      validateOnly: true,
    });
    expect(errorCode(inside)).toBe("invalid_arguments");
    expect((inside.structuredContent["error"] as Record<string, unknown>)["docID"]).toBe(doc);
    const unknown = await h.call("file", {
      action: "save_doc_as_template",
      id: "20200101000000-zzzzzzz",
      name: "x.md",
      validateOnly: true,
    });
    expect(errorCode(unknown)).toBe("not_found");
    const renamed = await h.call("file", {
      action: "save_doc_as_template",
      id: doc,
      name: "it's.md",
      validateOnly: true,
    });
    expect(errorCode(renamed)).toBe("invalid_arguments");
  });
});

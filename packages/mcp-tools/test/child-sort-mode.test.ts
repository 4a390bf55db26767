/**
 * document.child_sort_mode against the sandbox kernel over loopback: the notebook's mode, or the
 * workspace's when the notebook defers (15), for the notebook and every document in it — and the
 * order the kernel then lists the child documents in agrees.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { errorCode, useHarness } from "./harness.js";

const h = useHarness();

let fx: { box: string; parent: string; paragraph: string };

beforeAll(async () => {
  const x = h.sandbox.control.external;
  const box = x.createNotebook("Sorted children");
  const parent = x.createDoc(box, "/Parent", "text");
  x.createDoc(box, "/Parent/b child", "b");
  x.createDoc(box, "/Parent/a child", "a");
  await h.client.flush();
  const [p] = await h.client.block.getChildBlocks({ id: parent });
  fx = { box, parent, paragraph: p?.id as string };
});

const titles = async (): Promise<string[]> => {
  const r = await h.client.filetree.listDocsByPath({ notebook: fx.box, path: `/${fx.parent}.sy` });
  return r.files.map((f) => String(f.name).replace(/\.sy$/, ""));
};

describe("document.child_sort_mode", () => {
  it("answers the workspace's mode when the notebook defers to it, for a notebook and a document", async () => {
    h.permissions = { default: "delete" };
    for (const id of [fx.box, fx.parent]) {
      const r = await h.call("document", { action: "child_sort_mode", id });
      expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
      expect(r.structuredContent).toEqual({
        id,
        notebook: fx.box,
        sortMode: 6,
        name: "custom",
        setBy: "workspace",
      });
    }
  });

  it("answers the notebook's own mode, the one the kernel lists the children in", async () => {
    h.permissions = { default: "delete" };
    h.sandbox.control.external.setNotebookConf(fx.box, { sortMode: 1 });
    const r = await h.call("document", { action: "child_sort_mode", id: fx.parent });
    expect(r.structuredContent).toMatchObject({
      sortMode: 1,
      name: "name_desc",
      setBy: "notebook",
    });
    expect(await titles()).toEqual(["b child", "a child"]);
    h.sandbox.control.external.setNotebookConf(fx.box, { sortMode: 0 });
    const r2 = await h.call("document", { action: "child_sort_mode", id: fx.box });
    expect(r2.structuredContent).toMatchObject({
      sortMode: 0,
      name: "name_asc",
      setBy: "notebook",
    });
    expect(await titles()).toEqual(["a child", "b child"]);
  });

  it("refuses a block that is not a document, and an unknown ID", async () => {
    h.permissions = { default: "delete" };
    const para = await h.call("document", { action: "child_sort_mode", id: fx.paragraph });
    expect(errorCode(para)).toBe("invalid_arguments");
    const unknown = await h.call("document", {
      action: "child_sort_mode",
      id: "20200101000000-zzzzzzz",
    });
    expect(errorCode(unknown)).toBe("not_found");
  });

  it("refuses a notebook, or a document in one, the caller may not read", async () => {
    h.permissions = { default: "delete", notebooks: { [fx.box]: "none" } };
    for (const id of [fx.box, fx.parent]) {
      const r = await h.call("document", { action: "child_sort_mode", id });
      expect(errorCode(r)).toBe("permission_denied");
    }
    h.permissions = { default: "delete" };
  });
});

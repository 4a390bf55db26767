/** Malformed-argument cases, endpoint by endpoint (contract §1.2). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../src/index.js";
import { post, start } from "./helpers.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await start();
});
afterAll(() => sb.stop());

/** Endpoints whose ID argument is checked against the node-ID pattern: [path, body with "bad"]. */
const MALFORMED_ID: Array<[string, Record<string, unknown>]> = [
  ["/api/block/getBlockKramdown", { id: "bad" }],
  ["/api/block/getBlockDOM", { id: "bad" }],
  ["/api/block/getChildBlocks", { id: "bad" }],
  ["/api/block/getBlockInfo", { id: "bad" }],
  ["/api/block/updateBlock", { id: "bad", dataType: "markdown", data: "x" }],
  ["/api/block/deleteBlock", { id: "bad" }],
  ["/api/block/moveBlock", { id: "bad", parentID: "20260101120100-docplan" }],
  ["/api/block/foldBlock", { id: "bad" }],
  ["/api/block/unfoldBlock", { id: "bad" }],
  ["/api/block/insertBlock", { dataType: "markdown", data: "x", nextID: "bad" }],
  ["/api/block/prependBlock", { dataType: "markdown", data: "x", parentID: "bad" }],
  ["/api/block/appendBlock", { dataType: "markdown", data: "x", parentID: "bad" }],
  ["/api/attr/getBlockAttrs", { id: "bad" }],
  ["/api/attr/setBlockAttrs", { id: "bad", attrs: {} }],
  ["/api/attr/batchSetBlockAttrs", { blockAttrs: [{ id: "bad", attrs: {} }] }],
  ["/api/filetree/getHPathByID", { id: "bad" }],
  ["/api/filetree/getPathByID", { id: "bad" }],
  ["/api/filetree/removeDocByID", { id: "bad" }],
  ["/api/filetree/renameDocByID", { id: "bad", title: "t" }],
  ["/api/filetree/getDoc", { id: "bad" }],
  ["/api/filetree/createDocWithMd", { notebook: "bad", path: "/x", markdown: "" }],
  ["/api/notebook/openNotebook", { notebook: "bad" }],
  ["/api/notebook/closeNotebook", { notebook: "bad" }],
  ["/api/notebook/renameNotebook", { notebook: "bad", name: "n" }],
  ["/api/notebook/removeNotebook", { notebook: "bad" }],
  ["/api/notebook/getNotebookConf", { notebook: "bad" }],
  ["/api/export/exportMdContent", { id: "bad" }],
];

/** Old-style handlers: a missing required field is the kernel's recovered panic (code 0, data null). */
const MISSING_IS_PANIC = [
  "/api/block/getBlockKramdown",
  "/api/block/getBlockKramdowns",
  "/api/block/getBlockDOM",
  "/api/block/getBlockDOMs",
  "/api/block/getChildBlocks",
  "/api/block/updateBlock",
  "/api/block/deleteBlock",
  "/api/block/insertBlock",
  "/api/block/appendBlock",
  "/api/attr/getBlockAttrs",
  "/api/attr/setBlockAttrs",
  "/api/attr/batchGetBlockAttrs",
  "/api/filetree/createDocWithMd",
  "/api/filetree/renameDocByID",
  "/api/filetree/moveDocsByID",
  "/api/filetree/listDocsByPath",
];

/** Handlers that check their field (SiYuan 3.7.3, kernel-probes): -1 `Field [x] is required`. */
const MISSING_IS_REQUIRED: Array<[string, string]> = [
  ["/api/notebook/createNotebook", "name"],
  ["/api/query/sql", "stmt"],
  ["/api/transactions", "transactions"],
];

describe("malformed and missing arguments", () => {
  it.each(MALFORMED_ID)("%s: a malformed ID answers -1 invalid ID argument", async (path, body) => {
    const r = await post(sb, path, body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ code: -1, msg: "invalid ID argument", data: null });
  });

  it.each(MISSING_IS_PANIC)("%s: a missing field answers code 0 with null data", async (path) => {
    const r = await post(sb, path, {});
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ code: 0, msg: "", data: null });
  });

  it.each(MISSING_IS_REQUIRED)("%s: a missing %s answers -1", async (path, name) => {
    const r = await post(sb, path, {});
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ code: -1, msg: `Field [${name}] is required`, data: null });
  });

  it("new-style and explicit checks", async () => {
    expect((await post(sb, "/api/notebook/openNotebook", { notebook: 1 })).body.msg).toBe(
      "Field [notebook] should be of type [String]",
    );
    expect((await post(sb, "/api/notebook/openNotebook", { notebook: " " })).body.msg).toBe(
      "Field [notebook] must not be empty",
    );
    expect((await post(sb, "/api/filetree/getIDsByHPath", { path: "/x" })).body).toEqual({
      code: 0,
      msg: "",
      data: null,
    });
    expect((await post(sb, "/api/query/sql", { stmt: "  " })).body.code).toBe(-1);
    expect((await post(sb, "/api/notification/pushMsg", {})).body.code).toBe(-1);
    expect((await post(sb, "/api/block/checkBlockExist", {})).body).toEqual({
      code: 0,
      msg: "",
      data: false,
    });
  });
});

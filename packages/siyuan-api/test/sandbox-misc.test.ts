/** query, search, sqlite, export, notification, system, file and transactions against the sandbox. */
import { describe, expect, it } from "vitest";
import {
  failure,
  DEMO_IDS as I,
  MALFORMED_ID,
  sharedDemoClient,
  UNKNOWN_ID,
  undiciClientFor,
} from "./support/sandbox.js";

const shared = sharedDemoClient();

describe("query, search, sqlite", () => {
  it("sql returns rows; no match is []; a SQL error is kernel_rejected code 1; writes are refused", async () => {
    const rows = await shared.client.query.sql({
      stmt: `select id, type from blocks where id = '${I.paragraphGoals}'`,
    });
    expect(rows).toEqual([{ id: I.paragraphGoals, type: "p" }]);
    expect(
      await shared.client.query.sql({ stmt: `select id from blocks where id = '${UNKNOWN_ID}'` }),
    ).toEqual([]);
    const e = await failure(shared.client.query.sql({ stmt: "select nope from nowhere" }));
    expect(e.code).toBe("kernel_rejected");
    expect(e.details.kernelCode).toBe(1);
    const w = await failure(shared.client.query.sql({ stmt: "delete from blocks" }));
    expect(w.code).toBe("kernel_rejected");
    expect(await shared.client.query.sql({ stmt: "select count(*) as n from blocks" })).toEqual([
      expect.objectContaining({ n: expect.any(Number) }),
    ]);
  });

  it("fullTextSearchBlock finds seeded text and reports counts", async () => {
    const r = await shared.client.search.fullTextSearchBlock({ query: "faithful" });
    expect(r.matchedBlockCount).toBeGreaterThan(0);
    expect(r.blocks.map((b) => b.id)).toContain(I.paragraphGoals);
    const none = await shared.client.search.fullTextSearchBlock({ query: "zzzz-no-such-word" });
    expect(none.blocks).toEqual([]);
    expect(none.matchedBlockCount).toBe(0);
  });

  it("flushTransaction and flush() make a write visible to SQL", async () => {
    await shared.client.attr.setBlockAttrs({
      id: I.paragraphQuote,
      attrs: { "custom-flush": "yes" },
    });
    await shared.client.sqlite.flushTransaction();
    await shared.client.flush();
    const rows = await shared.client.query.sql({
      stmt: `select value from attributes where block_id = '${I.paragraphQuote}' and name = 'custom-flush'`,
    });
    expect(rows).toEqual([{ value: "yes" }]);
  });
});

describe("export, notification, system", () => {
  it("exportMdContent returns Markdown without IALs; malformed → kernel_rejected", async () => {
    const r = await shared.client.export.exportMdContent({ id: I.docPlan, yfm: false });
    expect(r.hPath).toBe("/Project Plan");
    expect(r.content).toContain("Goals");
    expect(r.content).not.toContain("{: id=");
    expect((await failure(shared.client.export.exportMdContent({ id: MALFORMED_ID }))).code).toBe(
      "kernel_rejected",
    );
  });

  it("pushMsg / pushErrMsg return a message ID; an empty message is kernel_rejected", async () => {
    expect(await shared.client.notification.pushMsg({ msg: "hello from the client" })).toMatch(
      /\S/,
    );
    expect(await shared.client.notification.pushErrMsg({ msg: "oops", timeout: 1000 })).toMatch(
      /\S/,
    );
    expect((await failure(shared.client.notification.pushMsg({ msg: "" }))).code).toBe(
      "kernel_rejected",
    );
  });

  it("version, currentTime and bootProgress", async () => {
    expect(await shared.client.system.version()).toBe("3.7.3");
    expect(await shared.client.system.currentTime()).toBeGreaterThan(1_600_000_000_000);
    const boot = await shared.client.system.bootProgress();
    expect(boot.progress).toBe(100);
  });

  it("a wrong token is unauthorized (not dispatched); unauthenticated system routes still answer", async () => {
    const bad = undiciClientFor(shared.sb, { token: "wrong-token" });
    const e = await failure(bad.notebook.lsNotebooks());
    expect(e.code).toBe("unauthorized");
    expect(e.writeDispatched).toBe(false);
    expect(e.details.httpStatus).toBe(401);
    expect(await bad.system.version()).toBe("3.7.3");
    await bad.close();
  });
});

describe("file", () => {
  const path = "/data/storage/petal/siyuan-api-test/sub/hello.txt";

  it("putFile, getFile, readDir, removeFile round trip", async () => {
    const bytes = new TextEncoder().encode("héllo\n\u0000binary");
    await shared.client.file.putFile({ path, file: bytes, modTimeMs: 1_767_225_600_000 });
    const got = await shared.client.file.getFile({ path });
    expect(got && Array.from(got.bytes)).toEqual(Array.from(bytes));
    const dir = await shared.client.file.readDir({
      path: "/data/storage/petal/siyuan-api-test/sub",
    });
    expect(dir?.find((e) => e.name === "hello.txt")?.isDir).toBe(false);
    await shared.client.file.putFile({
      path: "/data/storage/petal/siyuan-api-test/emptydir",
      isDir: true,
    });
    const top = await shared.client.file.readDir({ path: "/data/storage/petal/siyuan-api-test" });
    expect(top?.find((e) => e.name === "emptydir")?.isDir).toBe(true);
    await shared.client.file.putFile({ path, file: "replaced" });
    expect(new TextDecoder().decode((await shared.client.file.getFile({ path }))!.bytes)).toBe(
      "replaced",
    );
    await shared.client.file.removeFile({ path });
    expect(await shared.client.file.getFile({ path })).toBeNull();
  });

  it("missing paths: getFile and readDir give null, removeFile is kernel_rejected 404", async () => {
    expect(await shared.client.file.getFile({ path: "/data/no/such/file" })).toBeNull();
    expect(await shared.client.file.readDir({ path: "/data/no/such/dir" })).toBeNull();
    const e = await failure(shared.client.file.removeFile({ path: "/data/no/such/file" }));
    expect(e.code).toBe("kernel_rejected");
    expect(e.details.kernelCode).toBe(404);
  });

  it("a path outside the workspace is kernel_rejected 403 (HTTP 202 for getFile)", async () => {
    const e = await failure(shared.client.file.getFile({ path: "/../../etc/passwd" }));
    expect(e.code).toBe("kernel_rejected");
    expect(e.details.kernelCode).toBe(403);
    expect(e.details.httpStatus).toBe(202);
    const r = await failure(shared.client.file.readDir({ path: "/../.." }));
    expect(r.details.kernelCode).toBe(403);
  });

  it("getFile on a directory is kernel_rejected 409 (HTTP 202); putFile without a file is rejected", async () => {
    await shared.client.file.putFile({
      path: "/data/storage/petal/siyuan-api-test/dir409",
      isDir: true,
    });
    const e = await failure(
      shared.client.file.getFile({ path: "/data/storage/petal/siyuan-api-test/dir409" }),
    );
    expect(e.code).toBe("kernel_rejected");
    expect(e.details.kernelCode).toBe(409);
    expect(e.details.httpStatus).toBe(202);
    const p = await failure(shared.client.file.putFile({ path: "/data/storage/petal/x" }));
    expect(p.code).toBe("kernel_rejected");
  });
});

describe("required fields", () => {
  it("a write without its ID never reaches the kernel (whose panic reply would look like success)", async () => {
    const before = shared.sb.control.count("/api/attr/setBlockAttrs");
    const e = await failure(
      shared.client.attr.setBlockAttrs({
        id: undefined as unknown as string,
        attrs: { "custom-z": "1" },
      }),
    );
    expect(e.code).toBe("not_dispatched");
    expect(e.message).toContain("Field [id] is required");
    expect(shared.sb.control.count("/api/attr/setBlockAttrs")).toBe(before);
    const m = await failure(shared.client.block.moveBlock({ id: I.paragraphQuote }));
    expect(m.code).toBe("not_dispatched");
    expect(shared.sb.control.count("/api/block/moveBlock")).toBe(0);
  });
});

describe("transactions", () => {
  it("setAttrs through /api/transactions is applied", async () => {
    await shared.client.transactions.send({
      transactions: [
        {
          doOperations: [
            {
              action: "setAttrs",
              id: I.paragraphMilestones,
              data: JSON.stringify({ "custom-tx": "v" }),
            },
          ],
        },
      ],
      reqId: 1,
      app: "",
      session: "",
    });
    await shared.client.flush();
    expect(
      (await shared.client.attr.getBlockAttrs({ id: I.paragraphMilestones }))?.["custom-tx"],
    ).toBe("v");
    const e = await failure(
      shared.client.transactions.send({
        transactions: [{ doOperations: [{ action: "setAttrs", id: MALFORMED_ID, data: "{}" }] }],
      }),
    );
    expect(e.code).toBe("kernel_rejected");
  });
});

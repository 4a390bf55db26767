import { describe, expect, it } from "vitest";
import { InjectedStorageFault, MemoryPluginStorage } from "./plugin-storage.js";

describe("MemoryPluginStorage (the siyuan.storage fake)", () => {
  it("get of a missing file or of a directory rejects, like the kernel", async () => {
    const s = new MemoryPluginStorage();
    await expect(s.get("nope.txt")).rejects.toThrow(/no such file/);
    await s.put("dir/a.txt", "x");
    await expect(s.get("dir")).rejects.toThrow(/no such file/);
  });

  it("put stores the string form and creates parent directories; get returns text()", async () => {
    const s = new MemoryPluginStorage();
    await s.put("a/b/c.txt", 42 as unknown as string);
    expect(await (await s.get("/a/b/c.txt")).text()).toBe("42");
    expect((await s.list("a")).map((e) => [e.name, e.isDir])).toEqual([["b", true]]);
    expect((await s.list("a/b")).map((e) => [e.name, e.isDir])).toEqual([["c.txt", false]]);
    await expect(s.put("a/b", "file over a directory")).rejects.toThrow(/directory/);
  });

  it("list rejects for a missing directory and returns entries sorted by name", async () => {
    const s = new MemoryPluginStorage();
    await expect(s.list("missing")).rejects.toThrow(/no such file/);
    await s.put("d/z", "1");
    await s.put("d/a", "2");
    await s.put("d/m/x", "3");
    const entries = await s.list("d");
    expect(entries.map((e) => e.name)).toEqual(["a", "m", "z"]);
    expect(entries.every((e) => e.isSymlink === false && typeof e.updated === "number")).toBe(true);
  });

  it("remove is recursive, ignores missing paths and refuses the root", async () => {
    const s = new MemoryPluginStorage();
    await s.put("d/a", "1");
    await s.put("d/e/b", "2");
    await s.put("keep", "3");
    await s.remove("d");
    await s.remove("never-existed");
    expect([...s.files().keys()]).toEqual(["keep"]);
    await expect(s.list("d")).rejects.toThrow();
    await expect(s.remove("/")).rejects.toThrow(/root/);
  });

  it("refuses paths that escape the root", async () => {
    const s = new MemoryPluginStorage();
    await expect(s.put("../x", "1")).rejects.toThrow(/traversal/);
    await expect(s.get("a/../../x")).rejects.toThrow(/traversal/);
  });

  it("crashAfterMutations fails the Nth mutation and every later one; fail-after applies that one", async () => {
    const s = new MemoryPluginStorage();
    await s.put("a", "1");
    s.crashAfterMutations(1, "fail-after");
    await s.put("b", "2");
    await expect(s.put("c", "3")).rejects.toBeInstanceOf(InjectedStorageFault);
    await expect(s.put("d", "4")).rejects.toBeInstanceOf(InjectedStorageFault);
    await expect(s.remove("a")).rejects.toBeInstanceOf(InjectedStorageFault);
    expect([...s.files().keys()]).toEqual(["a", "b", "c"]);
    expect(s.puts.map((p) => [p.path, p.applied])).toEqual([
      ["a", true],
      ["b", true],
      ["c", true],
      ["d", false],
    ]);
    s.heal();
    await s.put("d", "4");
    expect(s.read("d")).toBe("4");
  });

  it("a fault hook can fail reads and lists; corrupt() rewrites a file behind the stores' back", async () => {
    const s = new MemoryPluginStorage();
    await s.put("a", "good");
    s.fault = (call) => (call.op === "get" ? "fail" : undefined);
    await expect(s.get("a")).rejects.toBeInstanceOf(InjectedStorageFault);
    s.heal();
    s.corrupt("a", (old) => old.toUpperCase());
    expect(await (await s.get("a")).text()).toBe("GOOD");
    expect(() => s.corrupt("missing", "x")).toThrow();
  });
});

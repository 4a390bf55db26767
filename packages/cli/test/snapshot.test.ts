/**
 * `sisyphus snapshot <scope> --out DIR` against the sandbox kernel (Node authority, and once with
 * the kernel plugin as the authority): the first run
 * writes every document, a later run with the saved cursor rewrites exactly the edited and added
 * documents and deletes the removed one's file, unrelated files stay, and a DIR holding another
 * scope's snapshot is refused before any snapshot read. Files edited or deleted here since the last
 * run are kept and reported (exit 3) until `--force`; `help snapshot` prints the command's help.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxWithPlugin } from "../../kernel-plugin/test/harness.js";
import { cli, doc, killAuthorities, scene, tempDir } from "./harness.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ seed: "demo" });
});
afterAll(async () => {
  killAuthorities();
  await sb.stop();
});

const RECORD = ".sisyphus-snapshot.json";
const EXPORT_MD = "/api/export/exportMdContent";
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const mtime = (p: string) => statSync(p).mtimeMs;

type Result = {
  written: string[];
  removed: string[];
  unchanged: number;
  manifest: Record<string, unknown>;
};

describe("sisyphus snapshot", () => {
  it("writes every document, then rewrites only what changed and deletes removed documents' files", async () => {
    const x = sb.control.external;
    const nb = x.createNotebook("CLI snapshot");
    const top = x.createDoc(nb, "/Top", "Top text.");
    x.createDoc(nb, "/Top/Child", "Child text.");
    const edit = x.createDoc(nb, "/Edit me", "Before.");
    const drop = x.createDoc(nb, "/Drop me", "Going away.");
    const clash = x.createDoc(nb, "/Clash", "A document named like a file already there.");
    const s = scene(sb);
    const dir = tempDir("sisyphus-snap-");
    writeFileSync(join(dir, "notes.txt"), "mine\n");
    writeFileSync(join(dir, "Clash.md"), "not Sisyphus's\n");

    const first = await cli(s, ["snapshot", nb, "--out", dir, "--json"]);
    expect(first.code, first.stderr).toBe(0);
    const r1 = doc(first).result as unknown as Result;
    expect(r1.written.sort()).toEqual(
      ["Clash (" + clash + ").md", "Drop me.md", "Edit me.md", "Top.md", "Top/Child.md"].sort(),
    );
    for (const k of ["scopeHash", "inventoryHash", "metadataHash", "contentHash"]) {
      expect(r1.manifest[k]).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(readFileSync(join(dir, "Top/Child.md"), "utf8")).toContain("Child text.");
    expect(readFileSync(join(dir, "Clash.md"), "utf8")).toBe("not Sisyphus's\n");
    const record = JSON.parse(readFileSync(join(dir, RECORD), "utf8"));
    expect(record.scope).toEqual({ notebook: nb, id: null });
    expect(record.files[top].path).toBe("Top.md");
    expect(record.manifest).toEqual(r1.manifest);

    const untouched = ["Top.md", "Top/Child.md", `Clash (${clash}).md`, "notes.txt", "Clash.md"];
    const before = new Map(untouched.map((f) => [f, mtime(join(dir, f))]));
    // A rewrite would get a later mtime: a file written now beside the folder already does.
    const probe = `${dir}.mtime-probe`;
    const latest = Math.max(...before.values());
    await waitFor(
      () => {
        writeFileSync(probe, "");
        return mtime(probe) > latest;
      },
      { intervalMs: 1, what: "a file written now to get a later mtime" },
    );
    rmSync(probe);
    x.appendBlock(edit, "After.");
    const added = x.createDoc(nb, "/Added", "New.");
    x.removeDoc(drop);

    const second = await cli(s, ["snapshot", nb, "--out", dir]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain("5 documents; wrote 2, removed 1");
    for (const k of ["scopeHash", "inventoryHash", "metadataHash", "contentHash"]) {
      expect(second.stdout).toMatch(new RegExp(`${k}\\s+[0-9a-f]{64}`));
    }
    expect(readFileSync(join(dir, "Edit me.md"), "utf8")).toContain("After.");
    expect(readFileSync(join(dir, "Added.md"), "utf8")).toContain("New.");
    expect(existsSync(join(dir, "Drop me.md"))).toBe(false);
    for (const [f, t] of before) expect(mtime(join(dir, f)), f).toBe(t);
    const record2 = JSON.parse(readFileSync(join(dir, RECORD), "utf8"));
    expect(record2.files[added].path).toBe("Added.md");
    expect(record2.files[drop]).toBeUndefined();
    // Each file's recorded digest (the manifest's contentHash) is the SHA-256 of the file on disk.
    for (const f of Object.values(record2.files) as { path: string; contentHash: string }[]) {
      expect(sha256(readFileSync(join(dir, f.path))), f.path).toBe(f.contentHash);
    }

    const third = await cli(s, ["snapshot", nb, "--out", dir, "--json"]);
    const r3 = doc(third).result as unknown as Result;
    expect([r3.written, r3.removed, r3.unchanged]).toEqual([[], [], 5]);
    expect(r3.manifest["contentHash"]).toBe(record2.manifest["contentHash"]);
  });

  it("snapshots a document subtree, pages it, and refuses a DIR holding another scope", async () => {
    const x = sb.control.external;
    const nb = x.createNotebook("CLI subtree");
    const root = x.createDoc(nb, "/Root", "Root.");
    const [a] = ["A", "B", "C"].map((t) => x.createDoc(nb, `/Root/${t}`, `${t}.`));
    x.createDoc(nb, "/Outside", "Not in the subtree.");
    const s = scene(sb);
    const dir = tempDir("sisyphus-snap-");

    const run = await cli(s, ["snapshot", root, "--out", dir, "--docs-per-page", "2", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const r = doc(run).result as unknown as Result;
    expect(r.written.sort()).toEqual(["Root.md", "Root/A.md", "Root/B.md", "Root/C.md"]);
    expect(existsSync(join(dir, "Outside.md"))).toBe(false);

    // A renamed document moves to its new file; the old one goes.
    x.renameDoc(a as string, "Alpha");
    const renamed = doc(await cli(s, ["snapshot", root, "--out", dir, "--json"]))
      .result as unknown as Result;
    expect([renamed.written, renamed.removed]).toEqual([["Root/Alpha.md"], []]);
    expect(existsSync(join(dir, "Root/A.md"))).toBe(false);
    expect(readFileSync(join(dir, "Root/Alpha.md"), "utf8")).toContain("A.");

    const exports = sb.control.count(EXPORT_MD);
    const other = await cli(s, ["snapshot", nb, "--out", dir, "--json"]);
    expect(other.code).toBe(1);
    expect(doc(other).error?.code).toBe("snapshot_other_scope");
    expect(sb.control.count(EXPORT_MD)).toBe(exports);

    const bad = await cli(s, ["snapshot", root]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--out DIR");
  });
});

describe("sisyphus snapshot and files changed here", () => {
  type Conflict = { path: string; id: string; found: string; action: string };
  type Run = Result & { conflicts: Conflict[]; forced: Conflict[] };

  it("keeps and reports edited or deleted files, writes the rest, and replaces them with --force", async () => {
    const x = sb.control.external;
    const nb = x.createNotebook("CLI snapshot conflicts");
    const keep = x.createDoc(nb, "/Keep", "Keep v1.");
    const gone = x.createDoc(nb, "/Gone", "Gone v1.");
    const lost = x.createDoc(nb, "/Lost", "Lost v1.");
    const fine = x.createDoc(nb, "/Fine", "Fine v1.");
    const s = scene(sb);
    const dir = tempDir("sisyphus-snap-");
    const first = await cli(s, ["snapshot", nb, "--out", dir, "--json"]);
    expect(first.code, first.stderr).toBe(0);
    const recorded = JSON.parse(readFileSync(join(dir, RECORD), "utf8"));

    // Here: Keep.md and Gone.md edited, Lost.md deleted. In SiYuan: Keep, Lost and Fine edited, Gone removed.
    writeFileSync(join(dir, "Keep.md"), "my notes on Keep\n");
    writeFileSync(join(dir, "Gone.md"), "my notes on Gone\n");
    rmSync(join(dir, "Lost.md"));
    for (const id of [keep, lost, fine]) x.appendBlock(id, "v2.");
    x.removeDoc(gone);

    const second = await cli(s, ["snapshot", nb, "--out", dir, "--json"]);
    expect(second.code, second.stderr).toBe(3);
    const r2 = doc(second).result as unknown as Run;
    const expected = [
      { path: "Gone.md", id: gone, found: "edited", action: "delete" },
      { path: "Keep.md", id: keep, found: "edited", action: "update" },
      { path: "Lost.md", id: lost, found: "missing", action: "update" },
    ];
    const byPath = (a: Conflict, b: Conflict) => a.path.localeCompare(b.path);
    expect(r2.conflicts.sort(byPath)).toEqual(expected);
    expect([r2.written, r2.removed, r2.forced]).toEqual([["Fine.md"], [], []]);
    expect(readFileSync(join(dir, "Keep.md"), "utf8")).toBe("my notes on Keep\n");
    expect(readFileSync(join(dir, "Gone.md"), "utf8")).toBe("my notes on Gone\n");
    expect(existsSync(join(dir, "Lost.md"))).toBe(false);
    expect(readFileSync(join(dir, "Fine.md"), "utf8")).toContain("v2.");
    const record2 = JSON.parse(readFileSync(join(dir, RECORD), "utf8"));
    expect(record2.cursor).toBe(recorded.cursor);
    for (const id of [keep, gone, lost]) expect(record2.files[id]).toEqual(recorded.files[id]);
    expect(record2.files[fine].contentHash).toBe(sha256(readFileSync(join(dir, "Fine.md"))));

    // The next run reports the same files again and rewrites nothing already written.
    const fineTime = mtime(join(dir, "Fine.md"));
    const third = await cli(s, ["snapshot", nb, "--out", dir]);
    expect(third.code, third.stderr).toBe(3);
    expect(third.stdout).toContain("wrote 0, removed 0");
    expect(third.stdout).toMatch(/Keep\.md\s+edited\s+not updated/);
    expect(third.stdout).toMatch(/Gone\.md\s+edited\s+not deleted/);
    expect(third.stdout).toMatch(/Lost\.md\s+missing\s+not updated/);
    expect(mtime(join(dir, "Fine.md"))).toBe(fineTime);

    const forced = await cli(s, ["snapshot", nb, "--out", dir, "--force", "--json"]);
    expect(forced.code, forced.stderr).toBe(0);
    const r4 = doc(forced).result as unknown as Run;
    expect([r4.conflicts, r4.forced.sort(byPath)]).toEqual([[], expected]);
    expect([r4.written.sort(), r4.removed]).toEqual([["Keep.md", "Lost.md"], ["Gone.md"]]);
    expect(readFileSync(join(dir, "Keep.md"), "utf8")).toContain("v2.");
    expect(readFileSync(join(dir, "Lost.md"), "utf8")).toContain("v2.");
    expect(existsSync(join(dir, "Gone.md"))).toBe(false);
    const record4 = JSON.parse(readFileSync(join(dir, RECORD), "utf8"));
    expect(record4.cursor).not.toBe(recorded.cursor);
    expect(record4.files[gone]).toBeUndefined();
  });

  it("prints its help for help snapshot and snapshot --help, and for the other commands", async () => {
    const s = scene(sb);
    for (const args of [
      ["help", "snapshot"],
      ["snapshot", "--help"],
    ]) {
      const help = await cli(s, args);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^sisyphus snapshot <notebook-or-document-id> --out DIR/);
      expect(help.stdout).toContain("--force");
    }
    const skill = await cli(s, ["help", "skill"]);
    expect([skill.code, skill.stdout.split("\n")[0]]).toEqual([
      0,
      "sisyphus skill list|read [FILE]|install --target DIR [--force]",
    ]);
  });
});

describe("sisyphus snapshot with the kernel plugin as the authority", () => {
  let kb: Sandbox;
  beforeAll(async () => {
    kb = await sandboxWithPlugin();
  });
  afterAll(async () => {
    await kb.stop();
  });

  it("reads the snapshot through the plugin and writes only the change on the next run", async () => {
    const x = kb.control.external;
    const nb = x.createNotebook("CLI kernel snapshot");
    const one = x.createDoc(nb, "/One", "One.");
    x.createDoc(nb, "/Two", "Two.");
    const s = scene(kb);
    const dir = tempDir("sisyphus-snap-");
    const first = await cli(s, ["snapshot", nb, "--out", dir, "--json"]);
    expect(first.code, first.stderr).toBe(0);
    expect((doc(first).result as unknown as Result).written.sort()).toEqual(["One.md", "Two.md"]);
    x.appendBlock(one, "One more.");
    const second = await cli(s, ["snapshot", nb, "--out", dir, "--json"]);
    const r = doc(second).result as unknown as Result;
    expect([r.written, r.removed, r.unchanged]).toEqual([["One.md"], [], 1]);
    expect(readFileSync(join(dir, "One.md"), "utf8")).toContain("One more.");
  });
});

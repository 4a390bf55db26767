/**
 * `sisyphus skill`: the shipped agent skill listed, read and installed into a host's skills folder;
 * an install replaces what it wrote itself, refuses a file someone changed unless --force, and
 * writes nothing when it refuses.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderSkill, SKILL_NAME } from "@sisyphus/mcp-tools";
import { describe, expect, it } from "vitest";
import { cli, doc, scene, tempDir } from "./harness.js";

const offline = () => scene({ url: "http://127.0.0.1:9", token: "t" });

describe("sisyphus skill", () => {
  it("lists and reads the skill this version ships", async () => {
    const s = offline();
    const list = await cli(s, ["skill", "list", "--json"]);
    expect(list.code).toBe(0);
    const files = doc(list).result["files"] as Array<{ path: string; sha256: string }>;
    expect(files.map((f) => f.path)).toEqual(["SKILL.md"]);
    expect(files[0]?.sha256).toBe(createHash("sha256").update(renderSkill()).digest("hex"));
    const read = await cli(s, ["skill", "read"]);
    expect(read.stdout.trimEnd()).toBe(renderSkill().trimEnd());
    expect((await cli(s, ["skill", "read", "NOPE.md"])).code).toBe(2);
  });

  it("installs, replaces its own files, and refuses a changed one unless --force", async () => {
    const s = offline();
    const target = tempDir("sisyphus-skills-");
    const file = join(target, SKILL_NAME, "SKILL.md");
    const first = await cli(s, ["skill", "install", "--target", target, "--json"]);
    expect(first.code, first.stderr).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(renderSkill());
    expect((doc(first).result["files"] as Array<{ action: string }>)[0]?.action).toBe("written");
    // Again: nothing to do.
    const again = await cli(s, ["skill", "install", "--target", target, "--json"]);
    expect((doc(again).result["files"] as Array<{ action: string }>)[0]?.action).toBe("unchanged");
    // An older version it wrote itself (the record names its digest): replaced.
    const older = "# an older skill\n";
    writeFileSync(file, older);
    const record = join(target, SKILL_NAME, ".sisyphus-skill.json");
    writeFileSync(
      record,
      JSON.stringify({
        name: SKILL_NAME,
        files: { "SKILL.md": createHash("sha256").update(older).digest("hex") },
      }),
    );
    const upgrade = await cli(s, ["skill", "install", "--target", target, "--json"]);
    expect((doc(upgrade).result["files"] as Array<{ action: string }>)[0]?.action).toBe("replaced");
    expect(readFileSync(file, "utf8")).toBe(renderSkill());
    // Edited by a person: refused, untouched; --force replaces it.
    writeFileSync(file, `${renderSkill()}\nMy own notes.\n`);
    const refused = await cli(s, ["skill", "install", "--target", target]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/changed since Sisyphus wrote it/);
    expect(readFileSync(file, "utf8")).toContain("My own notes.");
    const forced = await cli(s, ["skill", "install", "--target", target, "--force"]);
    expect(forced.code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(renderSkill());
    expect((await cli(s, ["skill", "install"])).code).toBe(2);
  });
});

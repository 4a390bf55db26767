/**
 * The skill siyuan-strict-writes served as MCP resources (issue 13), read with the official client
 * in both eras over HTTP and stdio: `resources/list` names SKILL.md and the manifest,
 * `resources/read` returns them, and the manifest's complete SHA-256 matches the text read.
 */
import { createHash } from "node:crypto";
import type { Client } from "@modelcontextprotocol/client";
import { renderSkill, SKILL_MANIFEST_URI, skillResourceUri } from "@sisyphus/mcp-tools";
import { describe, expect, it } from "vitest";
import { httpClient, sharedDemoAuthority, sharedStdioClient } from "./harness.js";

const shared = sharedDemoAuthority();
const SKILL_URI = skillResourceUri("SKILL.md");

function textOf(result: { contents: ReadonlyArray<Record<string, unknown>> }): string {
  expect(result.contents).toHaveLength(1);
  const text = result.contents[0]?.["text"];
  expect(typeof text).toBe("string");
  return text as string;
}

async function checkSkill(client: Client, label: string): Promise<void> {
  const listed = await client.listResources();
  const uris = listed.resources.map((r) => r.uri).sort();
  expect(uris, label).toEqual([SKILL_URI, SKILL_MANIFEST_URI].sort());
  const skill = textOf(await client.readResource({ uri: SKILL_URI }));
  expect(skill, label).toBe(renderSkill());
  const manifest = JSON.parse(textOf(await client.readResource({ uri: SKILL_MANIFEST_URI }))) as {
    name: string;
    files: Array<{ path: string; uri: string; sha256: string; size: number }>;
  };
  expect(manifest.name).toBe("siyuan-strict-writes");
  expect(manifest.files.map((f) => f.path)).toEqual(["SKILL.md"]);
  const entry = manifest.files[0];
  expect(entry?.uri).toBe(SKILL_URI);
  // complete, not an alias: 64 hex digits, equal to the digest of what resources/read returned
  expect(entry?.sha256, label).toMatch(/^[0-9a-f]{64}$/);
  expect(entry?.sha256, label).toBe(createHash("sha256").update(skill, "utf8").digest("hex"));
  expect(entry?.size).toBe(Buffer.byteLength(skill, "utf8"));
}

describe("skill resources", () => {
  it("are listed and read over HTTP in both eras", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const client = await httpClient(shared.authority.url, { era });
      expect(client.getProtocolEra()).toBe(era);
      await checkSkill(client, `http ${era}`);
      await client.close();
    }
  });

  it("are listed and read over stdio in both eras", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const client = await sharedStdioClient(shared, era);
      expect(client.getProtocolEra()).toBe(era);
      await checkSkill(client, `stdio ${era}`);
      await client.close();
    }
  });
});

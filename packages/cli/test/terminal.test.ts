/**
 * The command as a person sees it, in a real pseudo-terminal (util-linux `script` allocates one):
 * a destructive commit asks and runs only after "y", a refusal writes nothing, colour appears only
 * on a terminal and never with NO_COLOR.
 */
import { stripVTControlCharacters } from "node:util";
import { DEMO_IDS, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, doc, inTerminal, killAuthorities, scene, words } from "./harness.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ seed: "demo" });
});
afterAll(async () => {
  killAuthorities();
  await sb.stop();
});

const UPDATE = "/api/block/updateBlock";
const esc = "\u001b[";

describe("in a terminal", () => {
  it("asks before a destructive commit: 'n' writes nothing (exit 4), 'y' commits", async () => {
    const s = scene(sb);
    const id = DEMO_IDS.paragraphMilestones;
    const preflight = doc(
      await cli(s, ["block", "delete", "--id", id, "--validate-only", "--json"]),
    );
    const commit = words(preflight.next as string).slice(1, -1); // without --yes
    const declined = await inTerminal(s, commit, {
      prompt: /destructive action block delete/,
      answer: "n\r",
    });
    expect(declined.code).toBe(4);
    expect(declined.screen).toMatch(/Declined: nothing was run/);
    expect(sb.control.kramdown(id)).not.toBeNull();
    const accepted = await inTerminal(s, commit, {
      prompt: /destructive action block delete/,
      answer: "y\r",
    });
    expect(accepted.code, accepted.screen).toBe(0);
    expect(accepted.screen).toMatch(/status: committed/);
    await waitFor(() => sb.control.kramdown(id) === null, { what: "the block to be gone" });
  });

  it("shows what a destructive commit would lose: the block's first line and its document", async () => {
    const s = scene(sb);
    const id = DEMO_IDS.blockquoteMeeting;
    const preflight = doc(
      await cli(s, ["block", "delete", "--id", id, "--validate-only", "--json"]),
    );
    const commit = words(preflight.next as string).slice(1, -1); // without --yes
    const declined = await inTerminal(s, commit, {
      prompt: /blocks\)\?/,
      answer: "n\r",
    });
    expect(declined.code, declined.screen).toBe(4);
    // The screen as read: colours out, the prompt's wrapped lines and their frame joined.
    const read = stripVTControlCharacters(declined.screen).replace(/[\s│◆◇]+/g, " ");
    expect(read).toContain(
      `Run the destructive action block delete on "${id}": blockquote "Faithful beats fast, but ` +
        `both are nice." (2 blocks) in document "Meeting Notes" (/Meeting Notes, 3 blocks)?`,
    );
    expect(sb.control.kramdown(id)).not.toBeNull();
  });

  it("colours only on a terminal, not with NO_COLOR, and shows expiries as UTC times", async () => {
    const s = scene(sb);
    const args = [
      "block",
      "update",
      "--id",
      DEMO_IDS.paragraphJournal,
      "--data",
      "Journal (tty)",
      "--validate-only",
    ];
    const tty = await inTerminal(s, args);
    expect(tty.code, tty.screen).toBe(0);
    expect(tty.screen).toContain(`${esc}1mNext:`);
    // Expiries as a person reads them; --json keeps the epoch milliseconds the authority sent.
    expect(tty.screen).toMatch(/leaseExpiresAt: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/);
    expect(tty.screen).toMatch(/requestIdExpiresAt: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/);
    const json = doc(await cli(s, [...args, "--json"]));
    const answer = json.result as { leaseExpiresAt: unknown; requestIdExpiresAt: unknown };
    expect(Number.isInteger(answer.leaseExpiresAt)).toBe(true);
    expect(new Date(answer.requestIdExpiresAt as number).getTime()).toBeGreaterThan(Date.now());
    const plain = await inTerminal(s, args, undefined, { NO_COLOR: "1" });
    expect(plain.screen).toMatch(/Next: sisyphus block update/);
    expect(plain.screen).not.toContain(esc);
    const piped = await cli(s, args);
    expect(piped.stdout).toMatch(/Next: sisyphus block update/);
    expect(piped.stdout).not.toContain(esc);
    expect(sb.control.count(UPDATE)).toBe(0);
  });
});

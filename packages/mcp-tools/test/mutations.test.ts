/**
 * Every mutation, end to end against the sandbox kernel over loopback, through the real
 * coordinator: preflight → commit → replay (zero kernel writes) → same ID with other arguments;
 * an external edit between preflight and commit; a reset after the kernel applied the write; a
 * silent kernel failure.
 */
import { REPLAY_NOTES } from "@sisyphus/write-safety";
import { describe, expect, it } from "vitest";
import { errorCode, type Harness, useHarness } from "./harness.js";

interface Prepared {
  readonly args: Record<string, unknown>;
  /** Other business arguments for the idempotency-conflict check. */
  readonly otherArgs: Record<string, unknown>;
  /** The kernel endpoint the commit writes through (first write). */
  readonly endpoint: string;
  /** An edit made by someone else that must invalidate the preflight (absent for additive actions). */
  readonly drift?: () => void;
  /**
   * What a silent kernel failure yields. The sandbox answers a silently dropped write with
   * `data: null`; for endpoints whose reply must carry data (a new ID, the saved conf) that reply is
   * unreadable, so the honest answer is `outcome_unknown`, never a failure.
   */
  readonly silent?: "readback_mismatch" | "outcome_unknown";
}

interface Case {
  readonly tool: string;
  readonly action: string;
  readonly dangerous?: boolean;
  readonly prepare: (h: Harness, n: number) => Promise<Prepared>;
}

let seq = 0;
const unique = (s: string) => `${s} ${++seq}`;

/** A fresh document with three paragraphs; returns its ID and the paragraph IDs. */
async function fixtureDoc(h: Harness, title = unique("Fixture")) {
  const id = h.sandbox.control.external.createDoc(
    h.notebook,
    `/${title}`,
    "alpha **one**\n\nbeta *two*\n\ngamma #tagged# three",
  );
  await h.client.flush();
  const children = await h.client.block.getChildBlocks({ id });
  return { id, title, blocks: children.map((c) => c.id) };
}

async function fixtureTree(h: Harness) {
  const parentTitle = unique("Parent");
  const parent = h.sandbox.control.external.createDoc(h.notebook, `/${parentTitle}`, "parent");
  const a = h.sandbox.control.external.createDoc(h.notebook, `/${parentTitle}/A`, "a");
  const b = h.sandbox.control.external.createDoc(h.notebook, `/${parentTitle}/B`, "b");
  const c = h.sandbox.control.external.createDoc(h.notebook, `/${parentTitle}/C`, "c");
  await h.client.flush();
  return { parent, parentTitle, children: [a, b, c] };
}

async function notebookName(h: Harness, id: string) {
  const list = await h.client.notebook.lsNotebooks();
  return list.notebooks.find((n) => n.id === id)?.name as string;
}

async function freshNotebook(h: Harness) {
  const box = await h.client.notebook.createNotebook({ name: unique("NB") });
  return box.id;
}

const CASES: Case[] = [
  {
    tool: "block",
    action: "insert",
    prepare: async (h) => {
      const d = await fixtureDoc(h);
      return {
        args: { data: "inserted", previousID: d.blocks[0] },
        otherArgs: { data: "inserted differently", previousID: d.blocks[0] },
        endpoint: "/api/block/insertBlock",
      };
    },
  },
  {
    tool: "block",
    action: "prepend",
    prepare: async (h) => {
      const d = await fixtureDoc(h);
      return {
        args: { parentID: d.id, data: "first" },
        otherArgs: { parentID: d.id, data: "first!" },
        endpoint: "/api/block/prependBlock",
      };
    },
  },
  {
    tool: "block",
    action: "append",
    prepare: async (h) => {
      const d = await fixtureDoc(h);
      return {
        args: { parentID: d.id, data: "last" },
        otherArgs: { parentID: d.id, data: "last!" },
        endpoint: "/api/block/appendBlock",
      };
    },
  },
  {
    tool: "block",
    action: "update",
    prepare: async (h) => {
      const d = await fixtureDoc(h);
      const id = d.blocks[0] as string;
      return {
        args: { id, data: "alpha **changed**" },
        otherArgs: { id, data: "alpha *other*" },
        endpoint: "/api/block/updateBlock",
        drift: () => h.sandbox.control.external.updateBlock(id, "someone else wrote this"),
      };
    },
  },
  {
    tool: "block",
    action: "set_attrs",
    prepare: async (h) => {
      const d = await fixtureDoc(h);
      const id = d.blocks[1] as string;
      return {
        args: { id, attrs: { "custom-status": "done" } },
        otherArgs: { id, attrs: { "custom-status": "todo" } },
        endpoint: "/api/attr/setBlockAttrs",
        drift: () => h.sandbox.control.external.setBlockAttrs(id, { "custom-owner": "bob" }),
      };
    },
  },
  {
    tool: "block",
    action: "delete",
    dangerous: true,
    prepare: async (h) => {
      const d = await fixtureDoc(h);
      const id = d.blocks[2] as string;
      return {
        args: { id },
        otherArgs: { id: d.blocks[1] },
        endpoint: "/api/block/deleteBlock",
        drift: () => h.sandbox.control.external.updateBlock(id, "edited before delete"),
      };
    },
  },
  {
    tool: "block",
    action: "move",
    dangerous: true,
    prepare: async (h) => {
      const d = await fixtureDoc(h);
      return {
        args: { id: d.blocks[0], previousID: d.blocks[2] },
        otherArgs: { id: d.blocks[0], previousID: d.blocks[1] },
        endpoint: "/api/block/moveBlock",
        drift: () =>
          h.sandbox.control.external.insertBlock("interloper", {
            previousID: d.blocks[1] as string,
          }),
      };
    },
  },
  {
    tool: "document",
    action: "create",
    prepare: async (h) => ({
      args: { notebook: h.notebook, hpath: `/${unique("Created")}`, markdown: "hello" },
      otherArgs: { notebook: h.notebook, hpath: `/${unique("Created")}`, markdown: "other" },
      endpoint: "/api/filetree/createDocWithMd",
      silent: "outcome_unknown",
    }),
  },
  {
    tool: "document",
    action: "create_daily_note",
    prepare: async (h) => {
      // A fresh notebook each time: it has no daily note today.
      const fresh = () => h.sandbox.control.external.createNotebook(unique("Daily"));
      const notebook = fresh();
      const other = fresh();
      await h.sandbox.control.flush();
      return {
        args: { notebook },
        otherArgs: { notebook: other },
        endpoint: "/api/filetree/createDailyNote",
        silent: "outcome_unknown",
      };
    },
  },
  {
    tool: "document",
    action: "rename",
    prepare: async (h) => {
      const d = await fixtureDoc(h);
      return {
        args: { id: d.id, title: unique("Renamed") },
        otherArgs: { id: d.id, title: unique("Other") },
        endpoint: "/api/filetree/renameDocByID",
        drift: () => h.sandbox.control.external.renameDoc(d.id, unique("Drifted")),
      };
    },
  },
  {
    tool: "document",
    action: "set_attr",
    prepare: async (h) => {
      const d = await fixtureDoc(h);
      return {
        args: { id: d.id, attrs: { "custom-kind": "note" } },
        otherArgs: { id: d.id, attrs: { "custom-kind": "task" } },
        endpoint: "/api/attr/setBlockAttrs",
        drift: () => h.sandbox.control.external.setBlockAttrs(d.id, { "custom-kind": "memo" }),
      };
    },
  },
  {
    tool: "document",
    action: "remove",
    dangerous: true,
    prepare: async (h) => {
      const d = await fixtureDoc(h);
      const other = await fixtureDoc(h);
      return {
        args: { id: d.id },
        otherArgs: { id: other.id },
        endpoint: "/api/filetree/removeDocByID",
        drift: () => h.sandbox.control.external.setBlockAttrs(d.id, { "custom-touched": "yes" }),
      };
    },
  },
  {
    tool: "document",
    action: "move",
    dangerous: true,
    prepare: async (h) => {
      const d = await fixtureDoc(h);
      const target = await fixtureDoc(h);
      return {
        args: { ids: [d.id], toID: target.id },
        otherArgs: { ids: [d.id], toID: h.notebook },
        endpoint: "/api/filetree/moveDocsByID",
        drift: () =>
          h.sandbox.control.external.createDoc(h.notebook, `/${target.title}/Sneaky`, "x"),
      };
    },
  },
  {
    tool: "document",
    action: "reorder",
    prepare: async (h) => {
      const t = await fixtureTree(h);
      const reversed = [...t.children].reverse();
      return {
        args: { parentID: t.parent, orderedIDs: reversed },
        otherArgs: {
          parentID: t.parent,
          orderedIDs: [t.children[1], t.children[0], t.children[2]],
        },
        endpoint: "/api/filetree/changeSort",
        drift: () => h.sandbox.control.external.createDoc(h.notebook, `/${t.parentTitle}/D`, "d"),
      };
    },
  },
  {
    tool: "fs",
    action: "write",
    prepare: async (h) => {
      const name = await notebookName(h, h.notebook);
      return {
        args: { path: `/${name}/${unique("Fresh")}`, markdown: "fresh content" },
        otherArgs: { path: `/${name}/${unique("Fresh")}`, markdown: "other content" },
        endpoint: "/api/filetree/createDocWithMd",
        silent: "outcome_unknown",
      };
    },
  },
  {
    tool: "fs",
    action: "write(overwrite)",
    prepare: async (h) => {
      const d = await fixtureDoc(h);
      const path = `/${await notebookName(h, h.notebook)}/${d.title}`;
      return {
        args: { path, markdown: "replaced body", overwrite: true },
        otherArgs: { path, markdown: "replaced otherwise", overwrite: true },
        endpoint: "/api/block/updateBlock",
        drift: () =>
          h.sandbox.control.external.updateBlock(d.blocks[0] as string, "concurrent edit"),
      };
    },
  },
  {
    tool: "fs",
    action: "rm",
    dangerous: true,
    prepare: async (h) => {
      const d = await fixtureDoc(h);
      const other = await fixtureDoc(h);
      const name = await notebookName(h, h.notebook);
      return {
        args: { path: `/${name}/${d.title}` },
        otherArgs: { path: `/${name}/${other.title}` },
        endpoint: "/api/filetree/removeDocByID",
        drift: () => h.sandbox.control.external.updateBlock(d.blocks[1] as string, "late edit"),
      };
    },
  },
  {
    tool: "fs",
    action: "mv",
    dangerous: true,
    prepare: async (h) => {
      const d = await fixtureDoc(h);
      const name = await notebookName(h, h.notebook);
      return {
        args: { from: `/${name}/${d.title}`, to: `/${name}/${d.title} moved` },
        otherArgs: { from: `/${name}/${d.title}`, to: `/${name}/${d.title} elsewhere` },
        endpoint: "/api/filetree/renameDocByID",
        drift: () => h.sandbox.control.external.createDoc(h.notebook, `/${unique("Sibling")}`, "s"),
      };
    },
  },
  {
    tool: "fs",
    action: "reorder",
    prepare: async (h) => {
      const t = await fixtureTree(h);
      const name = await notebookName(h, h.notebook);
      return {
        args: { path: `/${name}/${t.parentTitle}`, order: ["C", "B", "A"] },
        otherArgs: { path: `/${name}/${t.parentTitle}`, order: ["B", "A", "C"] },
        endpoint: "/api/filetree/changeSort",
        drift: () =>
          h.sandbox.control.external.changeSort(h.notebook, [
            t.children[1],
            t.children[2],
            t.children[0],
          ] as string[]),
      };
    },
  },
  {
    tool: "notebook",
    action: "create",
    prepare: async () => ({
      args: { name: unique("Made") },
      otherArgs: { name: unique("Made") },
      endpoint: "/api/notebook/createNotebook",
      silent: "outcome_unknown",
    }),
  },
  {
    tool: "notebook",
    action: "rename",
    prepare: async (h) => {
      const nb = await freshNotebook(h);
      return {
        args: { notebook: nb, name: unique("Renamed NB") },
        otherArgs: { notebook: nb, name: unique("Other NB") },
        endpoint: "/api/notebook/renameNotebook",
        drift: () => h.sandbox.control.external.renameNotebook(nb, unique("Drift NB")),
      };
    },
  },
  {
    tool: "notebook",
    action: "set_conf",
    prepare: async (h) => {
      const nb = await freshNotebook(h);
      return {
        args: { notebook: nb, conf: { sortMode: 6 } },
        otherArgs: { notebook: nb, conf: { sortMode: 0 } },
        endpoint: "/api/notebook/setNotebookConf",
        silent: "outcome_unknown",
        drift: () =>
          h.sandbox.control.external.setNotebookConf(nb, { refCreateSavePath: "/elsewhere" }),
      };
    },
  },
  {
    tool: "notebook",
    action: "set_open_state",
    prepare: async (h) => {
      const nb = await freshNotebook(h);
      return {
        args: { notebook: nb, open: false },
        otherArgs: { notebook: nb, open: true },
        endpoint: "/api/notebook/closeNotebook",
        drift: () => h.sandbox.control.external.renameNotebook(nb, unique("Drift")),
      };
    },
  },
  {
    tool: "notebook",
    action: "remove",
    dangerous: true,
    prepare: async (h) => {
      const nb = await freshNotebook(h);
      const other = await freshNotebook(h);
      return {
        args: { notebook: nb },
        otherArgs: { notebook: other },
        endpoint: "/api/notebook/removeNotebook",
        drift: () => h.sandbox.control.external.renameNotebook(nb, unique("Drift")),
      };
    },
  },
  {
    tool: "tag",
    action: "rename",
    prepare: async (h) => {
      const label = `t${++seq}`;
      const d = await fixtureDoc(h);
      h.sandbox.control.external.updateBlock(d.blocks[2] as string, `gamma #${label}# three`);
      await h.client.flush();
      return {
        args: { oldLabel: label, newLabel: `${label}x` },
        otherArgs: { oldLabel: label, newLabel: `${label}y` },
        endpoint: "/api/block/updateBlock",
        drift: () =>
          h.sandbox.control.external.updateBlock(d.blocks[2] as string, `gamma #${label}# edited`),
      };
    },
  },
  {
    tool: "tag",
    action: "remove",
    dangerous: true,
    prepare: async (h) => {
      const label = `r${++seq}`;
      const d = await fixtureDoc(h);
      h.sandbox.control.external.updateBlock(d.blocks[0] as string, `alpha #${label}# one`);
      await h.client.flush();
      return {
        args: { label },
        otherArgs: { label: `${label}z` },
        endpoint: "/api/block/updateBlock",
        drift: () =>
          h.sandbox.control.external.updateBlock(d.blocks[0] as string, `alpha #${label}# edited`),
      };
    },
  },
];

const actionName = (c: Case) => c.action.replace(/\(.*\)$/, "");

const h = useHarness();

describe.each(CASES.map((c) => [`${c.tool}.${c.action}`, c] as const))("%s", (_name, c) => {
  const tool = c.tool;
  const action = actionName(c);
  const confirmed = c.dangerous === true;

  it("commits once, replays without writing, and refuses the ID for other arguments", async () => {
    const p = await c.prepare(h, 0);
    const args = { action, ...p.args };
    const before = h.writes(p.endpoint);
    const { preflight, commit } = await h.write(tool, args, confirmed);
    expect(preflight["writeAttempted"]).toBe(false);
    expect(typeof preflight["requestId"]).toBe("string");
    expect(commit.isError, JSON.stringify(commit.structuredContent)).toBeUndefined();
    expect(commit.structuredContent["status"]).toBe("committed");
    expect(commit.structuredContent["writeSafetyGuaranteed"]).toBe(true);
    expect(commit.structuredContent["executedNow"]).toBe(true);
    expect(commit.structuredContent).not.toHaveProperty("replayed");
    const written = h.writes(p.endpoint) - before;
    expect(written).toBeGreaterThanOrEqual(1);

    const replay = await h.call(tool, h.commitArgs(args, preflight), confirmed);
    expect(replay.structuredContent["replayed"]).toBe(true);
    // this call executed nothing; the rest of the receipt describes the original write
    expect(replay.structuredContent["executedNow"]).toBe(false);
    // The replay reads the target where it can compare (D-344): untouched since the commit, the
    // target still holds the result. An addition's, or a removal's gone target, is not read.
    const targetNow = replay.structuredContent["targetNow"];
    const compared = [
      "expectedStateHash",
      "expectedStructureHash",
      "expectedManifestHash",
    ].includes(String(preflight["preconditionField"]));
    if (!compared) expect(targetNow).toBeUndefined();
    // The written blocks as read back come with the commit that wrote them, never from the
    // ledger: a replay shows them only where it read them now and found the result (D-357,
    // D-359, D-360).
    const { current, ...stored } = commit.structuredContent;
    if (
      [
        "block.update",
        "block.append",
        "block.prepend",
        "block.insert",
        "block.replace",
        "block.set_attrs",
        "document.create",
      ].includes(`${tool}.${action}`)
    ) {
      expect(Object.keys(current as Record<string, string>).length).toBeGreaterThan(0);
    } else expect(current).toBeUndefined();
    const readNow = ["block.update", "block.replace", "block.set_attrs"].includes(
      `${tool}.${action}`,
    );
    expect(replay.structuredContent).toEqual({
      ...stored,
      ...(readNow ? { current } : {}),
      replayed: true,
      executedNow: false,
      ...(targetNow === undefined ? {} : { targetNow: "holds_result" }),
      replayNote: REPLAY_NOTES[targetNow === undefined ? "unchecked" : "holds_result"],
    });
    expect(replay.structuredContent["status"]).toBe("committed");
    expect(h.writes(p.endpoint) - before).toBe(written);

    const conflict = await h.call(
      tool,
      h.commitArgs({ action, ...p.otherArgs }, preflight),
      confirmed,
    );
    expect(errorCode(conflict)).toBe("idempotency_conflict");
    expect(h.writes(p.endpoint) - before).toBe(written);
  });

  it("answers outcome_unknown when the connection resets after the kernel applied the write, and never writes again", async () => {
    const p = await c.prepare(h, 1);
    const args = { action, ...p.args };
    const pre = await h.call(tool, { ...args, validateOnly: true }, confirmed);
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeUndefined();
    const before = h.writes(p.endpoint);
    h.sandbox.control.armFault({ endpoint: p.endpoint, kind: "resetAfterApply" });
    const first = await h.call(tool, h.commitArgs(args, pre.structuredContent), confirmed);
    expect(errorCode(first)).toBe("outcome_unknown");
    const retry = await h.call(tool, h.commitArgs(args, pre.structuredContent), confirmed);
    expect(errorCode(retry)).toBe("outcome_unknown");
    expect(h.writes(p.endpoint) - before).toBe(1);
    h.sandbox.control.clearFaults();
  });

  it("never reports success when the kernel says yes but applies nothing", async () => {
    const p = await c.prepare(h, 2);
    const args = { action, ...p.args };
    const pre = await h.call(tool, { ...args, validateOnly: true }, confirmed);
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeUndefined();
    h.sandbox.control.armFault({ endpoint: p.endpoint, kind: "silentDrop" });
    const r = await h.call(tool, h.commitArgs(args, pre.structuredContent), confirmed);
    h.sandbox.control.clearFaults();
    expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe(p.silent ?? "readback_mismatch");
  });

  if (
    // additive actions lease no state
    !c.action.startsWith("create") &&
    !(c.tool === "block" && ["insert", "prepend", "append"].includes(c.action)) &&
    !(c.tool === "fs" && c.action === "write")
  ) {
    it("refuses with state_changed and writes nothing when the target changed after preflight", async () => {
      const p = await c.prepare(h, 3);
      const args = { action, ...p.args };
      const pre = await h.call(tool, { ...args, validateOnly: true }, confirmed);
      expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeUndefined();
      expect(typeof pre.structuredContent["preconditionField"]).toBe("string");
      p.drift?.();
      await h.client.flush();
      const before = h.writes(p.endpoint);
      const r = await h.call(tool, h.commitArgs(args, pre.structuredContent), confirmed);
      expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("state_changed");
      expect(h.writes(p.endpoint)).toBe(before);
      // A block content or attribute write's answer carries the target as it is now, as
      // block.get_kramdown reads it (a move's precondition is the blocks' places, not content).
      const error = r.structuredContent["error"] as { details: Record<string, unknown> };
      const current = error.details["current"];
      if (c.tool === "block" && c.action !== "move") {
        const ids = Object.keys(current as Record<string, string>);
        expect(ids.length).toBeGreaterThan(0);
        for (const id of ids) {
          const read = await h.call("block", { action: "get_kramdown", id });
          expect((current as Record<string, string>)[id]).toBe(read.structuredContent["kramdown"]);
        }
      } else expect(current).toBeUndefined();
    });
  }
});

/**
 * Spec: a reorder's structure precondition covers every visible direct child, so "a concurrent
 * create, delete, move, or reorder invalidates the lease". Create and reorder are the drifts of the
 * cases above; these are delete and move, out of the parent and into it.
 */
describe("a sibling deleted or moved between a reorder's preflight and commit invalidates it", () => {
  type Tree = Awaited<ReturnType<typeof fixtureTree>>;
  type Drift = (t: Tree) => void;
  const DRIFTS: ReadonlyArray<readonly [string, Drift]> = [
    ["deleted", (t) => h.sandbox.control.external.removeDoc(t.children[2]!)],
    [
      "moved to another parent",
      (t) => h.sandbox.control.external.moveDoc(t.children[2]!, h.notebook, null),
    ],
    [
      "moved in from another parent",
      (t) => {
        const stray = h.sandbox.control.external.createDoc(h.notebook, `/${unique("Stray")}`, "s");
        h.sandbox.control.external.moveDoc(stray, h.notebook, t.parent);
      },
    ],
  ];

  /** Preflight, drift, flush, commit: the commit's answer and the reorder writes it made. */
  async function drifted(tool: string, args: (t: Tree) => Record<string, unknown>, drift: Drift) {
    const t = await fixtureTree(h);
    const call = { action: "reorder", ...args(t) };
    const pre = await h.call(tool, { ...call, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeUndefined();
    expect(pre.structuredContent["preconditionField"]).toBe("expectedStructureHash");
    drift(t);
    await h.client.flush();
    const before = h.writes("/api/filetree/changeSort");
    const r = await h.call(tool, h.commitArgs(call, pre.structuredContent));
    return { r, written: h.writes("/api/filetree/changeSort") - before };
  }

  for (const [what, drift] of DRIFTS) {
    it(`document.reorder: a sibling ${what} answers state_changed and writes nothing`, async () => {
      const { r, written } = await drifted(
        "document",
        (t) => ({ parentID: t.parent, orderedIDs: [...t.children].reverse() }),
        drift,
      );
      expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("state_changed");
      expect(written).toBe(0);
    });
  }

  it("fs.reorder: a sibling moved in answers state_changed and writes nothing", async () => {
    const name = await notebookName(h, h.notebook);
    const { r, written } = await drifted(
      "fs",
      (t) => ({ path: `/${name}/${t.parentTitle}`, order: ["C", "B", "A"] }),
      DRIFTS[2]![1],
    );
    expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("state_changed");
    expect(written).toBe(0);
  });

  // fs.reorder names children by title: one deleted or moved away no longer resolves, so the
  // commit is refused before its probe (not_found, naming the title), and nothing is written.
  for (const [what, drift] of DRIFTS.slice(0, 2)) {
    it(`fs.reorder: a sibling ${what} is refused (not_found) and writes nothing`, async () => {
      const name = await notebookName(h, h.notebook);
      const { r, written } = await drifted(
        "fs",
        (t) => ({ path: `/${name}/${t.parentTitle}`, order: ["C", "B", "A"] }),
        drift,
      );
      expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("not_found");
      expect(JSON.stringify(r.structuredContent)).toContain('"C"');
      expect(written).toBe(0);
    });
  }
});

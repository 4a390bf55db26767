/**
 * The Agent Skill `siyuan-strict-writes` (`skills/siyuan-strict-writes/SKILL.md` at the repository
 * root, and the MCP resources of the Node server), rendered from the same lines as
 * `system.bootstrap` (`bootstrapText(true)`: protocol lines with `CREDENTIAL_NOTE`, answer fields,
 * every error code with its hint, the SQL and upload guides) plus one worked
 * example per precondition kind, so the two cannot drift. Deterministic: no timestamps.
 *   pnpm --filter @sisyphus/mcp-tools gen:skill   (rewrites the committed file)
 */
import { sha256Hex } from "@sisyphus/core-hash";
import { findAction, type PreconditionKind, policyOf, preconditionFieldName } from "./catalog.js";
import { bootstrapText } from "./tools/system.js";

/** The skill's name (its directory and front-matter `name`). */
export const SKILL_NAME = "siyuan-strict-writes";

/** The front-matter `description`: what the skill does and when to use it. */
export const SKILL_DESCRIPTION =
  "Write to SiYuan notes through the Sisyphus MCP server (tools block, document, fs, file, av, notebook, " +
  "tag, search, history, system, extension, feedback) under Strict Safe Writes: each write is a validateOnly preflight, then a commit " +
  "with the returned requestId and precondition hash. Use before any SiYuan write.";

/** One worked example: a tool call's preflight, the answer's relevant fields and the commit. */
interface SkillExample {
  readonly kind: PreconditionKind;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly note: string;
  /** The credential the example's preflight answer returns (absent for additive actions). */
  readonly credential?: string;
  readonly requestId: string;
}

const DOC = "20260101120000-doc0001";
const A = "20260101120100-blk000a";
const B = "20260101120200-blk000b";

const EXAMPLES: readonly SkillExample[] = [
  {
    kind: "state",
    tool: "block",
    args: { action: "update", id: A, data: "New paragraph text" },
    note: "Edit one block's content (also set_attrs, rename, delete, rm, an overwrite).",
    credential: "3f9a",
    requestId: "c41e",
  },
  {
    kind: "structure",
    tool: "block",
    args: { action: "move", id: B, parentID: DOC },
    note: "Move a block to the top of its own document (parentID alone = first child; previousID = after it). Also document.move, reorder, fs.mv.",
    credential: "9b07e",
    requestId: "5d2a",
  },
  {
    kind: "manifest",
    tool: "tag",
    args: { action: "rename", oldLabel: "draft", newLabel: "review" },
    note: "Change a set the server hashes as a whole (tag.rename, tag.remove).",
    credential: "e81c",
    requestId: "07b3",
  },
  {
    kind: "source",
    tool: "file",
    args: { action: "upload_asset", localFilePath: "/home/me/diagram.png" },
    note: "Upload a file as an asset (localFilePath: absolute, on the server's host; or a staged uploadSource). The hash is the file's own SHA-256: a file changed after preflight answers state_changed. The receipt names assetPath.",
    credential: "b5d1",
    requestId: "e2c7",
  },
  {
    kind: "none",
    tool: "block",
    args: { action: "append", parentID: DOC, data: "A new last paragraph" },
    note: "Additive actions (append, prepend, insert, create, fs.write and file.create_template without overwrite) lease no hash: preconditionField is null, the commit adds requestId only.",
    requestId: "a6f0",
  },
];

function json(value: unknown): string {
  return JSON.stringify(value);
}

function renderExample(e: SkillExample): string {
  const surface = findAction(e.tool, e.args["action"]);
  const kind = surface ? policyOf(surface, e.args) : undefined;
  if (kind?.kind !== "mutation" || kind.precondition !== e.kind) {
    throw new Error(`skill example ${e.tool}.${String(e.args["action"])} is not a ${e.kind} write`);
  }
  const field = e.kind === "none" ? null : preconditionFieldName(e.kind);
  const answer: Record<string, unknown> = { requestId: e.requestId, preconditionField: field };
  if (field !== null) answer[field] = e.credential;
  const commit: Record<string, unknown> = { requestId: e.requestId };
  if (field !== null) commit[field] = e.credential;
  const title = field ?? "additive, no hash";
  return [
    `### ${title}: ${e.tool}.${String(e.args["action"])}`,
    "",
    e.note,
    "",
    `1. \`${e.tool}\` ${json({ ...e.args, validateOnly: true })}`,
    `2. Answer (abridged): ${json(answer)}`,
    `3. \`${e.tool}\`, the same arguments without validateOnly, plus ${json(commit)}`,
  ].join("\n");
}

/**
 * The bootstrap's protocol lines as Markdown: the numbered steps stay an ordered list (set off by
 * blank lines), the other lines are bullets.
 */
function protocolList(protocol: readonly string[]): string[] {
  const out: string[] = [];
  let numbered = false;
  for (const line of protocol) {
    const step = /^\d+\. /.test(line);
    if (out.length > 0 && step !== numbered) out.push("");
    out.push(step ? line : `- ${line}`);
    numbered = step;
  }
  return out;
}

/** The complete `SKILL.md`, front matter included (the Agent Skills format). */
export function renderSkill(): string {
  const boot = bootstrapText(true);
  const protocol = boot["writeProtocol"] as readonly string[];
  const lines = [
    "---",
    `name: ${SKILL_NAME}`,
    `description: ${json(SKILL_DESCRIPTION)}`,
    "---",
    "",
    "# SiYuan Strict Safe Writes",
    "",
    "Sisyphus is an MCP server for SiYuan, a local-first note app. This is the protocol `system.bootstrap` returns; calling it confirms that strictSafeWrites is on.",
    "",
    "## Protocol",
    "",
    ...protocolList(protocol),
    "",
    "## Addressing",
    "",
    String(boot["addressing"]),
    "",
    "## Answer fields",
    "",
    ...Object.entries(boot["answerFields"] as Record<string, string>).map(
      ([k, v]) => `- ${k}: ${v}`,
    ),
    "",
    "## Errors (every code; the hint names the next call)",
    "",
    ...Object.entries(boot["errors"] as Record<string, string>).map(([k, v]) => `- ${k}: ${v}`),
    "",
    "## Finding blocks",
    "",
    String(boot["sql"]),
    "",
    "## Uploads",
    "",
    String(boot["uploads"]),
    "",
    "## Examples (one per precondition kind)",
    "",
    "Values are illustrative: copy what your own answers return.",
    "",
    EXAMPLES.map(renderExample).join("\n\n"),
    "",
  ];
  return lines.join("\n");
}

/** One file of the skill, by its path inside the skill directory. */
export interface SkillFile {
  readonly path: string;
  readonly mimeType: string;
  readonly text: string;
}

/** The skill's files (today only `SKILL.md`). */
export function skillFiles(): readonly SkillFile[] {
  return [{ path: "SKILL.md", mimeType: "text/markdown", text: renderSkill() }];
}

/** The manifest: each file with its complete SHA-256 (64 hex digits) of the UTF-8 text. */
export interface SkillManifest {
  readonly name: string;
  readonly description: string;
  readonly files: ReadonlyArray<{
    readonly path: string;
    readonly sha256: string;
    readonly size: number;
  }>;
}

/** The skill's manifest (digests are full, for comparison across processes). */
export function skillManifest(): SkillManifest {
  return {
    name: SKILL_NAME,
    description: SKILL_DESCRIPTION,
    files: skillFiles().map((f) => ({
      path: f.path,
      sha256: sha256Hex(f.text),
      size: new TextEncoder().encode(f.text).length,
    })),
  };
}

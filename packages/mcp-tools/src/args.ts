/**
 * Zod schemas of the business arguments actions share (IDs, attribute maps, paths, icons, sort
 * modes). The split of a call's raw arguments into business arguments and safety fields is the
 * parse's (`parsed-call.ts`).
 */
import { NODE_ID_PATTERN } from "@sisyphus/siyuan-api/kernel";
import { z } from "zod";
import { attrNameProblem } from "./attr-names.js";

/** A node ID (block, document, or notebook). */
export const nodeId = z
  .string()
  .regex(NODE_ID_PATTERN, "must be a SiYuan ID like 20260101120000-abc1234");

/**
 * A notebook argument: always the notebook's ID, never its name (names are not unique). The
 * message names where IDs come from, since an agent often has only the name.
 */
export const notebookId = z
  .string()
  .regex(
    NODE_ID_PATTERN,
    "must be a notebook ID like 20260101120000-abc1234, not a name: notebook.list gives each notebook's ID",
  );

/** Markdown by default; `dom` sends block DOM HTML as the kernel accepts it. */
export const dataType = z.enum(["markdown", "dom"]).default("markdown");

/**
 * An attribute map; `null` or "" deletes an attribute (as the kernel does). Every name must pass
 * {@link attrNameProblem} (the kernel's name rule, minus the names the kernel manages itself), so a
 * name the kernel would refuse or that would overwrite kernel-managed state never reaches a lease.
 */
export const attrMap = z
  .record(z.string().min(1), z.string().nullable())
  .refine((m) => Object.keys(m).length > 0, "must name at least one attribute")
  .superRefine((m, ctx) => {
    for (const name of Object.keys(m)) {
      const problem = attrNameProblem(name);
      if (problem !== undefined) ctx.addIssue({ code: "custom", path: [name], message: problem });
    }
  });

/** A path of the fs tool: `/<notebook name>/<title>/<title>…`. */
export const fsPath = z
  .string()
  .regex(/^\/[^/]+(\/[^/]+)*\/?$/, "must look like /<notebook name>/<doc title>/…");

/** An icon as SiYuan's emoji picker stores it: an emoji's code points in hex, `-` between. */
const HEX_ICON = /^[0-9a-f]{2,6}(?:-[0-9a-f]{2,6})*$/;
/** A custom emoji's file under data/emojis, in characters SiYuan's file-name filter keeps. */
const EMOJI_FILE = /^[A-Za-z0-9_-]+(?:[ /][A-Za-z0-9_-]+|\.[A-Za-z0-9_-]+)*\.[A-Za-z0-9]{1,8}$/;
/** Code point ranges of emoji (pictographs, symbols, dingbats, regional indicators, skin tones). */
const EMOJI_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0xa9, 0xa9],
  [0xae, 0xae],
  [0x203c, 0x203c],
  [0x2049, 0x2049],
  [0x2100, 0x21ff],
  [0x2300, 0x23ff],
  [0x24c2, 0x24c2],
  [0x25a0, 0x27bf],
  [0x2900, 0x297f],
  [0x2b00, 0x2bff],
  [0x3030, 0x3030],
  [0x303d, 0x303d],
  [0x3297, 0x3299],
  [0x1f000, 0x1faff],
];
/** What joins or modifies emoji in a sequence: ZWJ, variation selector 16, keycap, tag characters. */
const EMOJI_JOINERS: ReadonlyArray<readonly [number, number]> = [
  [0x23, 0x23],
  [0x2a, 0x2a],
  [0x30, 0x39],
  [0x200d, 0x200d],
  [0xfe0f, 0xfe0f],
  [0x20e3, 0x20e3],
  [0xe0020, 0xe007f],
];
const inRanges = (p: number, ranges: ReadonlyArray<readonly [number, number]>) =>
  ranges.some(([lo, hi]) => p >= lo && p <= hi);

/**
 * One emoji: up to 16 code points, each an emoji or a joiner, at least one an emoji. Code point
 * ranges rather than `\p{…}`: the kernel plugin's runtime (goja) has no Unicode property escapes.
 */
function isEmoji(s: string): boolean {
  const points = [...s].map((c) => c.codePointAt(0) as number);
  return (
    points.length <= 16 &&
    points.some((p) => inRanges(p, EMOJI_RANGES)) &&
    points.every((p) => inRanges(p, EMOJI_RANGES) || inRanges(p, EMOJI_JOINERS))
  );
}

/**
 * An icon argument: an emoji, its hex code points (`1f4d4`), a custom emoji file (`folder/x.png`),
 * or "" to clear. Other text is refused: SiYuan would store it, and show nothing or a changed name.
 */
export const iconArg = z
  .string()
  .max(128)
  .refine(
    (s) => s === "" || HEX_ICON.test(s) || EMOJI_FILE.test(s) || isEmoji(s),
    'must be an emoji, its hex code points like 1f4d4, a custom emoji file like "folder/x.png", or "" to clear',
  );

/**
 * The icon as the kernel stores a document's (`model.normalizeIconValue`): an emoji becomes its
 * code points in hex joined by `-` (`📔` → `1f4d4`); hex codes and file names stay as given.
 */
export function normalizeIcon(icon: string): string {
  const points = [...icon].map((c) => c.codePointAt(0) as number);
  if (/[./]/.test(icon) || points.every((p) => p < 0x80)) return icon;
  return points.map((p) => p.toString(16)).join("-");
}

/** A sort-mode number as the kernel uses them (0–15). */
export const sortMode = z.number().int().min(0).max(15);

/** SiYuan's sort modes (`util.SortMode*`), by number; 15 defers to the workspace's `fileTree.sort`. */
export const SORT_MODE_NAMES = [
  "name_asc",
  "name_desc",
  "updated_asc",
  "updated_desc",
  "natural_asc",
  "natural_desc",
  "custom",
  "ref_count_asc",
  "ref_count_desc",
  "created_asc",
  "created_desc",
  "size_asc",
  "size_desc",
  "sub_doc_count_asc",
  "sub_doc_count_desc",
  "workspace",
] as const;

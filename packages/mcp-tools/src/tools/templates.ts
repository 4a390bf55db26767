/**
 * file: create_template and save_doc_as_template (additive; a state precondition with
 * `overwrite`), update_template and delete_template (state): one Markdown file in SiYuan's
 * templates folder, `data/templates/<name>`.
 *
 * The probe first checks the body against the template budget (settings' `templateBudgetBytes`,
 * plus 64 KiB of multipart overhead for the request), before any kernel call, then reads the file
 * (`getFile`): missing, or present with the SHA-256 of its bytes. The commit writes the body once
 * (`putFile` multipart), and the readback reads the file again and compares its SHA-256 with the
 * body's: only equal digests are `committed`.
 */
import { hashChunked, utf8Decode, utf8Encode } from "@sisyphus/core-hash";
import { encodeMultipart } from "@sisyphus/siyuan-api/kernel";
import { notFound, ToolError } from "../errors.js";
import type {
  ArgsOf,
  MutationHandler,
  Probed,
  ReadbackResult,
  ToolContext,
  WriteContext,
} from "../handler.js";
import { requirePermission } from "../permissions.js";

/** SiYuan's templates folder, as a workspace path for `getFile`/`putFile`. */
export const TEMPLATES_DIR = "/data/templates/";
/** What the `putFile` request may add to the template body: its multipart fields and boundaries. */
export const TEMPLATE_MULTIPART_OVERHEAD_BYTES = 64 * 1024;
/** The length of siyuan-api's multipart boundaries (`----sisyphus` and 24 random characters). */
const BOUNDARY_LENGTH = 36;

type CreateArgs = ArgsOf<"file", "create_template">;
type UpdateArgs = ArgsOf<"file", "update_template">;
type DeleteArgs = ArgsOf<"file", "delete_template">;
type SaveDocArgs = ArgsOf<"file", "save_doc_as_template">;

/** What the probe read and what the commit sends. Never hashed or stored. */
interface TemplateSeen {
  readonly path: string;
  readonly bytes: Uint8Array;
  /** The body's SHA-256, 64 lowercase hex digits. */
  readonly sha256: string;
  /** The SHA-256 of the file the probe found, `null` when there was none. */
  readonly before: string | null;
}

/** The size in bytes of the `putFile` request that carries `size` body bytes to `path`. */
function putFileRequestSize(path: string, size: number): number {
  const filename = path.slice(path.lastIndexOf("/") + 1);
  const empty = encodeMultipart(
    [
      { name: "path", value: path },
      { name: "file", filename, bytes: new Uint8Array(0) },
    ],
    "-".repeat(BOUNDARY_LENGTH),
  );
  return empty.body.length + size;
}

/**
 * Refuses a template over budget (`invalid_arguments`, `reason: template_budget`): its UTF-8 body
 * over `budget` bytes, or its `putFile` request over `budget` plus the multipart overhead.
 */
export function checkTemplateBudget(bodySize: number, requestSize: number, budget: number): void {
  if (bodySize > budget) {
    throw new ToolError(
      "invalid_arguments",
      `the template body is ${bodySize} bytes, over the template budget of ${budget} bytes (settings: options.templateBudgetBytes, at most 32 MiB)`,
      { reason: "template_budget", measure: "body", limit: budget, size: bodySize },
    );
  }
  const limit = budget + TEMPLATE_MULTIPART_OVERHEAD_BYTES;
  if (requestSize > limit) {
    throw new ToolError(
      "invalid_arguments",
      `the template's putFile request would be ${requestSize} bytes, over the template budget plus multipart overhead (${limit} bytes)`,
      { reason: "template_budget", measure: "request", limit, size: requestSize },
    );
  }
}

/** The template file's state: missing, or the SHA-256 and size of its bytes. */
async function templateState(ctx: ToolContext, path: string) {
  // A read that fails throws: the runtime answers it, never a guess.
  const bytes = await ctx.kernel.getFile(path);
  if (bytes === null) return { path, exists: false, sha256: null };
  const sha256 = await hashChunked(bytes);
  return { path, exists: true, sha256, size: bytes.length };
}

/**
 * The probe both actions share: the budget (no kernel call before it), then the file's state.
 * `existing` says what the action needs there: `absent` (create), `present` (update) or `any`
 * (create with overwrite).
 */
async function probeTemplate(
  ctx: ToolContext,
  name: string,
  content: string,
  existing: "absent" | "present" | "any",
): Promise<Probed<TemplateSeen>> {
  const path = `${TEMPLATES_DIR}${name}`;
  const bytes = utf8Encode(content);
  checkTemplateBudget(
    bytes.length,
    putFileRequestSize(path, bytes.length),
    ctx.templateBudgetBytes,
  );
  const state = await templateState(ctx, path);
  if (existing === "absent" && state.exists) {
    throw new ToolError(
      "already_exists",
      `template ${name} exists: preflight file.update_template, or file.create_template with overwrite:true, to replace it`,
      { id: path },
    );
  }
  if (existing === "present" && !state.exists) throw notFound("template", name);
  const sha256 = await hashChunked(bytes);
  return {
    state,
    // Templates live in the workspace, outside every notebook: the default permission decides.
    notebooks: [],
    snapshot: { path, bytes, sha256, before: state.sha256 },
    preflightNotes: { templatePath: path, size: bytes.length, replaces: state.exists },
  };
}

async function execute(ctx: WriteContext, before: Probed<TemplateSeen>): Promise<string> {
  await ctx.write.putFile(before.snapshot.path, before.snapshot.bytes);
  return before.snapshot.path;
}

async function readback(ctx: ToolContext, before: Probed<TemplateSeen>): Promise<ReadbackResult> {
  const wanted = before.snapshot;
  const state = await templateState(ctx, wanted.path);
  if (!state.exists) {
    return { state, verdict: "mismatch", reason: `the kernel has no file at ${wanted.path}` };
  }
  if (state.sha256 !== wanted.sha256) {
    return {
      state,
      verdict: "mismatch",
      reason: `${wanted.path} holds ${state.size} bytes whose SHA-256 differs from the template body's`,
    };
  }
  return {
    state,
    // Decided from the request and the before-state: the same body written again changes nothing.
    verdict: wanted.before === wanted.sha256 ? "unchanged" : "applied",
    receipt: { templatePath: wanted.path, size: state.size, sha256: state.sha256 },
  };
}

/** file.create_template: a new template, or with `overwrite` the one there replaced. */
export const createTemplate: MutationHandler<CreateArgs, TemplateSeen, string> = {
  targets: (a) => [`${TEMPLATES_DIR}${a.name}`],
  probe: (ctx, a) => probeTemplate(ctx, a.name, a.content, a.overwrite ? "any" : "absent"),
  execute: (ctx, _a, before) => execute(ctx, before),
  readback: (ctx, _a, before) => readback(ctx, before),
};

/** file.update_template: the content of an existing template replaced. */
export const updateTemplate: MutationHandler<UpdateArgs, TemplateSeen, string> = {
  targets: (a) => [`${TEMPLATES_DIR}${a.name}`],
  probe: (ctx, a) => probeTemplate(ctx, a.name, a.content, "present"),
  execute: (ctx, _a, before) => execute(ctx, before),
  readback: (ctx, _a, before) => readback(ctx, before),
};

/**
 * file.delete_template: removes `data/templates/<name>` (`/api/file/removeFile`, as SiYuan's own
 * template removal deletes the file). The state is the file's SHA-256, so a template edited after
 * the preflight answers `state_changed`; the readback proves the file gone. SiYuan keeps no copy.
 */
export const deleteTemplate: MutationHandler<DeleteArgs, { path: string }, void> = {
  targets: (a) => [`${TEMPLATES_DIR}${a.name}`],
  async probe(ctx, a) {
    const path = `${TEMPLATES_DIR}${a.name}`;
    const state = await templateState(ctx, path);
    if (!state.exists) throw notFound("template", a.name);
    return {
      state,
      notebooks: [],
      snapshot: { path },
      preflightNotes: { templatePath: path, size: state.size },
    };
  },
  async execute(ctx, _a, before) {
    await ctx.write.removeFile(before.snapshot.path);
  },
  async readback(ctx, _a, before): Promise<ReadbackResult> {
    const state = await templateState(ctx, before.snapshot.path);
    if (state.exists) {
      return { state, verdict: "mismatch", reason: `${before.snapshot.path} is still there` };
    }
    return { state, verdict: "applied", receipt: { templatePath: before.snapshot.path } };
  },
};

/** The longest template name SiYuan keeps as given (`TruncateLenFileName` cuts at 189 bytes). */
export const KERNEL_TEMPLATE_NAME_MAX_BYTES = 189;

/**
 * Refuses a name the kernel would save under another one (`FilterFileName`: `'` and invisible
 * characters replaced or dropped, spaces and a final `.` trimmed; long names cut), so the readback
 * reads the file the kernel wrote.
 */
function checkKernelTemplateName(name: string): void {
  const stem = name.slice(0, -".md".length);
  const kept =
    !stem.includes("'") &&
    stem === stem.trim() &&
    !stem.endsWith(".") &&
    !/[\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ue000-\uf8ff]/.test(stem) &&
    utf8Encode(name).length <= KERNEL_TEMPLATE_NAME_MAX_BYTES;
  if (!kept) {
    throw new ToolError(
      "invalid_arguments",
      `SiYuan would save ${JSON.stringify(name)} under another name: no ' or invisible characters, no space or . at the end of the name, at most ${KERNEL_TEMPLATE_NAME_MAX_BYTES} bytes`,
      { name },
    );
  }
}

interface SavedDoc {
  readonly path: string;
  readonly id: string;
  /** The SHA-256 of the template the probe found, `null` when there was none. */
  readonly before: string | null;
}

/**
 * file.save_doc_as_template: a document saved as a template by SiYuan (`docSaveAsTemplate`: its
 * Markdown with each block's IAL, `updated` dropped, `template` code blocks as text, the document's
 * IAL last). Only a document's ID (another block would give a fragment under the document's IAL).
 * Additive: an existing template is refused unless `overwrite`, which makes it a state write on
 * that template's SHA-256, so a person's template edited after the preflight is kept
 * (`state_changed`). The kernel is told `overwrite` as given, so without it the kernel itself also
 * refuses a template made in between. The readback proves the file there and that it is this
 * document's (its last line is the document's IAL with its ID).
 */
export const saveDocAsTemplate: MutationHandler<SaveDocArgs, SavedDoc, boolean> = {
  targets: (a) => [a.id, `${TEMPLATES_DIR}${a.name}`],
  async probe(ctx, a) {
    checkKernelTemplateName(a.name);
    const info = await ctx.kernel.getBlockInfo(a.id);
    if (info === null) throw notFound("document", a.id);
    if (info.rootID !== a.id) {
      throw new ToolError(
        "invalid_arguments",
        `${a.id} is a block inside document ${info.rootID}; save_doc_as_template saves whole documents: pass ${info.rootID}`,
        { id: a.id, docID: info.rootID },
      );
    }
    // The document is only read; the template is the workspace's (the default permission).
    requirePermission(ctx.permissions, [info.box], "read");
    const path = `${TEMPLATES_DIR}${a.name}`;
    const state = await templateState(ctx, path);
    if (state.exists && !a.overwrite) {
      throw new ToolError(
        "already_exists",
        `template ${a.name} exists: pass overwrite:true to replace it, or choose another name`,
        { id: path },
      );
    }
    return {
      state,
      notebooks: [],
      snapshot: { path, id: a.id, before: state.sha256 },
      preflightNotes: { templatePath: path, replaces: state.exists },
    };
  },
  execute: (ctx, a) =>
    ctx.write.docSaveAsTemplate(a.id, a.name.slice(0, -".md".length), a.overwrite),
  async readback(ctx, _a, before, saved): Promise<ReadbackResult> {
    const wanted = before.snapshot;
    const bytes = await ctx.kernel.getFile(wanted.path);
    if (bytes === null) {
      return {
        state: { path: wanted.path, exists: false },
        verdict: "mismatch",
        reason: saved
          ? `the kernel has no file at ${wanted.path}`
          : `the kernel refused: a template ${wanted.path} appeared after the preflight`,
      };
    }
    const sha256 = await hashChunked(bytes);
    const state = { path: wanted.path, exists: true, sha256, size: bytes.length };
    const lines = utf8Decode(bytes).trimEnd().split("\n");
    const last = lines[lines.length - 1] ?? "";
    if (!saved || !last.startsWith(`{: id="${wanted.id}"`)) {
      return {
        state,
        verdict: "mismatch",
        reason: saved
          ? `${wanted.path} does not end with the IAL of document ${wanted.id}`
          : `the kernel refused: a template ${wanted.path} appeared after the preflight`,
      };
    }
    return {
      state,
      verdict: wanted.before === sha256 ? "unchanged" : "applied",
      receipt: { templatePath: wanted.path, size: bytes.length, sha256 },
    };
  },
};

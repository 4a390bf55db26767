/**
 * file: create_template (additive; a state precondition with `overwrite`), update_template and
 * delete_template (state): one Markdown file in SiYuan's templates folder, `data/templates/<name>`.
 *
 * The probe first checks the body against the template budget (settings' `templateBudgetBytes`,
 * plus 64 KiB of multipart overhead for the request), before any kernel call, then reads the file
 * (`getFile`): missing, or present with the SHA-256 of its bytes. The commit writes the body once
 * (`putFile` multipart), and the readback reads the file again and compares its SHA-256 with the
 * body's: only equal digests are `committed`.
 */
import { hashChunked, utf8Encode } from "@sisyphus/core-hash";
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

/** SiYuan's templates folder, as a workspace path for `getFile`/`putFile`. */
export const TEMPLATES_DIR = "/data/templates/";
/** What the `putFile` request may add to the template body: its multipart fields and boundaries. */
export const TEMPLATE_MULTIPART_OVERHEAD_BYTES = 64 * 1024;
/** The length of siyuan-api's multipart boundaries (`----sisyphus` and 24 random characters). */
const BOUNDARY_LENGTH = 36;

type CreateArgs = ArgsOf<"file", "create_template">;
type UpdateArgs = ArgsOf<"file", "update_template">;
type DeleteArgs = ArgsOf<"file", "delete_template">;

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

/**
 * file reads: list_templates (SiYuan's template search, names only), read_template (one
 * template's Markdown), doc_assets (the asset links of a document), list_unused_assets (the assets
 * no document links), export_md (a document as Markdown) and render_template (a template run for a
 * block, as Markdown).
 */
import { notFound, ToolError } from "../errors.js";
import { readAction } from "../handler.js";
import { grantsEverywhere, notebooksOfBlocks, permissionOf } from "../permissions.js";
import {
  canonicalForm,
  type FormBlock,
  formOfDom,
  formOfMarkdown,
  markdownOfForm,
} from "../state/content-form.js";
import { decodeEntities, pageOf } from "./listing.js";
import { TEMPLATES_DIR } from "./templates.js";

/** The most unused assets SiYuan 3.7.3 lists (it shows the user a toast when there are more). */
export const KERNEL_UNUSED_ASSETS_MAX = 512;

/**
 * file.list_templates: the paths under `data/templates/` (`weekly.md`, `folder/x.md`) whose path
 * holds every word of the keyword, as `searchTemplate` ranks them. The kernel's absolute paths
 * (of its host) and its marked-up titles are left out. Templates belong to the workspace, not to
 * a notebook: no notebook permission applies (as `file.create_template`).
 */
export const listTemplates = readAction({
  run: async (ctx, a: { keyword: string }) => {
    const hits = await ctx.kernel.searchTemplate(a.keyword);
    return { templates: hits.map((h) => h.path) };
  },
});

/**
 * file.read_template: the file `data/templates/<name>` as it is stored (UTF-8 Markdown, its
 * `.action{…}` template actions not rendered); `not_found` when there is none. Templates belong
 * to the workspace: no notebook permission applies (as `file.list_templates`).
 */
export const readTemplate = readAction({
  run: async (ctx, a: { name: string }) => {
    const bytes = await ctx.kernel.getFile(`${TEMPLATES_DIR}${a.name}`);
    if (bytes === null) throw notFound("template", a.name);
    return { name: a.name, content: new TextDecoder().decode(bytes) };
  },
});

const formKey = (form: readonly FormBlock[]) => canonicalForm(form, { ownAttrs: "compare" });

/**
 * file.render_template: the template `data/templates/<name>` run by SiYuan for block `id`
 * (`/api/template/render` with `preview: true`: its Go template actions evaluated with the block's
 * `.title` — a document's title, another block's name —, `.id`, `.name`, `.alias`; fresh block IDs;
 * nothing saved), as Markdown the agent can hand to block.append or document.create. `exact` says
 * whether that Markdown parses back to the blocks SiYuan rendered; when it does not, `dom` carries
 * the kernel's editor DOM too. A missing template or block is `not_found`; a template that does not
 * parse or run is `kernel_error` with Go's message. A template's SQL functions (`querySQL`,
 * `queryBlocks`) read every notebook, so the call needs read on all of them.
 */
export const renderTemplate = readAction({
  run: async (ctx, a: { name: string; id: string }) => {
    const r = await ctx.kernel.renderTemplate(`${TEMPLATES_DIR}${a.name}`, a.id);
    switch (r.kind) {
      case "no_template":
        throw notFound("template", a.name);
      case "no_block":
        throw notFound("block", a.id);
      case "template_error":
        throw new ToolError(
          "kernel_error",
          `SiYuan cannot run template ${a.name}: ${decodeEntities(r.message)}; read it with file.read_template`,
          { kernelCode: -1, name: a.name },
        );
      case "rendered": {
        const form = formOfDom(r.dom);
        const markdown = markdownOfForm(form);
        const exact = formKey(formOfMarkdown(markdown)) === formKey(form);
        return { name: a.name, id: a.id, markdown, exact, ...(exact ? {} : { dom: r.dom }) };
      }
    }
  },
  notebooks: async (ctx) =>
    grantsEverywhere(ctx.permissions, ctx.needs)
      ? []
      : (await ctx.kernel.lsNotebooks()).map((n) => n.id),
});

/**
 * file.export_md: a document as SiYuan exports it to Markdown (`exportMdContent`: YAML front
 * matter, the title as a heading, references as their text, no IALs) and its human path. Only a
 * document's ID: SiYuan 3.7.3 answers another block's ID with that block alone under the
 * document's title, which would read as the whole document (`invalid_arguments`).
 */
export const exportMd = readAction({
  run: async (ctx, a: { id: string }) => {
    const info = await ctx.kernel.getBlockInfo(a.id);
    if (info === null) throw notFound("document", a.id);
    if (info.rootID !== a.id) {
      throw new ToolError(
        "invalid_arguments",
        `${a.id} is a block inside document ${info.rootID}; export_md exports whole documents: pass ${info.rootID}`,
        { id: a.id, docID: info.rootID },
      );
    }
    const doc = await ctx.kernel.exportMdContent(a.id);
    if (doc === null) throw notFound("block", a.id);
    return { id: a.id, hpath: doc.hPath, markdown: doc.content };
  },
  notebooks: (ctx, a) => notebooksOfBlocks(ctx, [a.id]),
});

/**
 * file.doc_assets: the `assets/…` paths the block's document links (links, images, the
 * `custom-data-assets` attributes, an HTML block's `src`), each once, in document order. Any block
 * ID names its document, as the kernel reads it.
 */
export const docAssets = readAction({
  run: async (ctx, a: { id: string }) => {
    const assets = await ctx.kernel.getDocAssets(a.id);
    if (assets === null) throw notFound("block", a.id);
    return { id: a.id, assets };
  },
  notebooks: (ctx, a) => notebooksOfBlocks(ctx, [a.id]),
});

/**
 * file.list_unused_assets: the asset files and folders no document, title image or database
 * links, as SiYuan lists them (newest first, at most 512), one page of them. A notebook's asset
 * (`<notebook>/assets/…`) needs read on that notebook, one under `data/assets/` the default
 * permission (the workspace's, as `file.upload_asset`); the others are withheld.
 */
export const listUnusedAssets = readAction({
  run: async (ctx, a: { page: number; pageSize: number }) => {
    const found = await ctx.kernel.getUnusedAssets();
    const readable = (path: string): boolean => {
      const box = /^(\d{14}-[a-z0-9]{7})\/assets\//.exec(path)?.[1];
      return (
        (box === undefined ? ctx.permissions.default : permissionOf(ctx.permissions, box)) !==
        "none"
      );
    };
    const kept = found.filter((x) => readable(x.path));
    const withheld = found.length - kept.length;
    const { items, ...paging } = pageOf(kept, a.page, a.pageSize);
    return {
      assets: items,
      ...paging,
      ...(found.length >= KERNEL_UNUSED_ASSETS_MAX ? { capped: true } : {}),
      ...(withheld > 0 ? { withheld, withheldReason: "assets of notebooks you may not read" } : {}),
    };
  },
});

/**
 * This server's actions beside the reference implementation's and SiYuan 3.7.3's own `/mcp`, action
 * by action, for `docs/comparison.md` (written by `pnpm --filter @sisyphus/mcp-tools gen:readme`;
 * `test/comparison.test.ts` fails when the committed page differs, when a catalog action has no row,
 * or when an action of the other two lists is missing or named twice).
 *
 * The reference's actions are those of `../shared/reference-implementation-notes.md` §1 (its 14 tools;
 * `av.render` counts once per class there, so its creating form is listed as `av.render+create`).
 * SiYuan's are the `action` enums of `kernel/mcp/tools/*.go` at tag v3.7.3 (a tool without actions is
 * listed by its name alone).
 */
import { ACTIONS } from "../src/catalog.js";
import { markdownTable } from "../src/tools-table.js";

/** The reference implementation's actions, by tool. */
export const REFERENCE_ACTIONS: Readonly<Record<string, string>> = {
  fs: "ls tree read search write replace rm mv reorder",
  notebook:
    "list get_conf get_permissions get_child_docs create set_open_state remove rename set_conf set_icon set_permission",
  document:
    "lookup get_child_blocks get_child_docs get_child_sort_mode list_tree search_docs get_doc get_outline create create_daily_note duplicate rename remove move reorder set_child_sort_mode set_attr heading_to_doc doc_to_heading",
  block:
    "get_kramdown batch_kramdown get_children get_attrs info breadcrumb dom recent_updated word_count docs_info insert prepend append add_to_daily_note update replace delete move set_fold_state set_attrs transfer_references",
  av: "get get_attribute_view_keys get_attribute_view_filter_sort search get_primary_key_values render render+create add_rows rename add_column remove_column duplicate remove_rows set_cells",
  file: "list_templates read_template render export_md list_unused_assets get_doc_assets get_image_ocr_text resolve_project_source read_project_source list_project_sources upload_asset register_project_source scan_project_manifest create_template update_template save_doc_as_template delete_template rename_asset delete_asset remove_unused_assets export_resources extract_doc",
  search:
    "fulltext semantic knowledge check_anchor query_sql get_backlinks search_refs search_assets fulltext_asset_content list_invalid_refs find_replace",
  tag: "list rename remove",
  timeline:
    "list_nodes compare_node compare_recent create_node delete_node rollback_document rollback_block",
  system:
    "workspace_info network conf changelog get_version get_current_time bootstrap audit_environment validate_source_audit list_packages search_bazaar get_bazaar_package read_bazaar_readme get_plugin list_plugin_updates list_snippets list_plugin_storage read_plugin_storage inspect_plugin list_control_changes get_control_change plan_change apply_change rollback_change discard_change_plan notify perform_sync",
  flashcard: "list_cards get_decks get_cards create_card review_card remove_card",
  extension: "list <dynamic>",
  mascot: "get_balance shop buy",
  feedback: "submit",
};

/** SiYuan 3.7.3's own `/mcp` actions, by tool. */
export const SIYUAN_MCP_ACTIONS: Readonly<Record<string, string>> = {
  asset: "upload unused clean stat",
  attr: "get set batch-get",
  block:
    "get get_kramdown get_children tree_stat dom insert append prepend update delete move breadcrumb batch_get batch_kramdown",
  bookmark: "list labels remove rename",
  dailynote: "create append prepend",
  database:
    "search get render keys key_add key_remove item_add item_remove item_update unused clean",
  document: "get create list delete rename move duplicate search_docs info",
  export: "md html preview docx sy md-zip data",
  file: "list read write delete rename copy grep find stat",
  frontend: "open_setting focus_block open_document open_search",
  history: "list search get rollback clear",
  http_request: "",
  image: "list analyze generate",
  import: "md sy data",
  inbox: "list get convert",
  notebook: "list open close create rename remove set_icon random_icon",
  outline: "get",
  question: "",
  ref: "backlinks mentions refresh",
  repo: "list create tag untag checkout diff search purge file_get file_rollback file_open file_export",
  search: "fulltext semantic asset getasset",
  skill: "load save install remove rename list",
  sql: "query",
  sync: "perform upload download status",
  system: "version current_time workspace",
  tag: "list rename remove",
  template: "search get remove render save_as create",
  todo_write: "",
  unzip: "",
  web_fetch: "",
  web_search: "",
  workspace: "list info",
};

/**
 * One row: this server's action (`""`: none), the reference's and SiYuan's counterparts (space
 * separated `tool.action`, `""`: none) and, for a row without ours, what we plan.
 */
type Row = readonly [ours: string, reference: string, siyuan: string, note?: string];

const AGENT_RUNTIME = "not planned: an agent runtime's own tool, not the notes";
const NOT_PLANNED_REF =
  "not planned: the reference's mascot/shop, control-plane plans, project sources and plugin marketplace";

export const ROWS: readonly Row[] = [
  // block
  ["block.get_kramdown", "block.get_kramdown", "block.get_kramdown"],
  ["block.get_attrs", "block.get_attrs", "attr.get attr.batch-get"],
  ["block.get_children", "block.get_children document.get_child_blocks", "block.get_children"],
  ["block.info", "block.info block.docs_info", "block.get block.batch_get"],
  ["block.dom", "block.dom", "block.dom"],
  ["block.backlinks", "search.get_backlinks", "ref.backlinks"],
  ["block.backmentions", "", "ref.mentions"],
  ["block.breadcrumb", "block.breadcrumb", "block.breadcrumb"],
  ["block.batch_kramdown", "block.batch_kramdown", "block.batch_kramdown"],
  ["block.word_count", "block.word_count", "block.tree_stat"],
  ["block.recent_updated", "block.recent_updated", ""],
  ["block.insert", "block.insert", "block.insert"],
  ["block.prepend", "block.prepend", "block.prepend"],
  ["block.append", "block.append", "block.append"],
  ["block.update", "block.update", "block.update"],
  ["block.set_attrs", "block.set_attrs", "attr.set"],
  ["block.delete", "block.delete", "block.delete"],
  ["block.move", "block.move", "block.move"],
  ["block.replace", "block.replace", ""],
  ["block.find_replace", "search.find_replace", ""],
  ["block.set_fold_state", "block.set_fold_state", ""],
  ["block.transfer_references", "block.transfer_references", ""],
  ["block.add_to_daily_note", "block.add_to_daily_note", "dailynote.append dailynote.prepend"],
  // document
  ["document.get", "document.get_doc", "document.get"],
  ["document.list_tree", "document.list_tree", "document.list"],
  ["document.find", "document.search_docs", "document.search_docs"],
  ["document.lookup", "document.lookup", "document.info"],
  ["document.outline", "document.get_outline", "outline.get"],
  ["document.recent", "", ""],
  ["document.daily_note", "", ""],
  ["document.snapshot", "", ""],
  ["document.create", "document.create", "document.create"],
  ["document.create_daily_note", "document.create_daily_note", "dailynote.create"],
  ["document.rename", "document.rename", "document.rename"],
  ["document.set_attrs", "document.set_attr", ""],
  ["document.remove", "document.remove", "document.delete"],
  ["document.move", "document.move", "document.move"],
  ["document.reorder", "document.reorder", ""],
  ["document.duplicate", "document.duplicate", "document.duplicate"],
  ["document.child_sort_mode", "document.get_child_sort_mode", ""],
  ["document.set_child_sort_mode", "document.set_child_sort_mode", ""],
  ["document.set_icon", "", ""],
  ["document.heading_to_doc", "document.heading_to_doc", ""],
  ["document.doc_to_heading", "document.doc_to_heading", ""],
  // fs
  ["fs.ls", "fs.ls document.get_child_docs notebook.get_child_docs", ""],
  ["fs.read", "fs.read", ""],
  ["fs.tree", "fs.tree", ""],
  ["fs.write", "fs.write", ""],
  ["fs.rm", "fs.rm", ""],
  ["fs.mv", "fs.mv", ""],
  ["fs.reorder", "fs.reorder", ""],
  ["fs.search", "fs.search", ""],
  ["fs.replace", "fs.replace", ""],
  // file
  ["file.upload_asset", "file.upload_asset", "asset.upload"],
  ["file.create_template", "file.create_template", "template.create"],
  ["file.update_template", "file.update_template", ""],
  ["file.export_resources", "file.export_resources", "export.md-zip export.data"],
  ["file.extract_doc", "file.extract_doc", "export.md export.sy"],
  ["file.list_templates", "file.list_templates", "template.search"],
  ["file.doc_assets", "file.get_doc_assets", ""],
  ["file.list_unused_assets", "file.list_unused_assets", "asset.unused"],
  ["file.read_template", "file.read_template", "template.get"],
  ["file.render_template", "file.render", "template.render"],
  ["file.export_md", "file.export_md", "export.preview"],
  ["file.save_doc_as_template", "file.save_doc_as_template", "template.save_as"],
  ["file.delete_template", "file.delete_template", "template.remove"],
  ["file.delete_asset", "file.delete_asset", ""],
  ["file.rename_asset", "file.rename_asset", ""],
  ["file.remove_unused_assets", "file.remove_unused_assets", "asset.clean"],
  ["", "file.get_image_ocr_text", "image.list image.analyze", "not planned: needs a vision model"],
  [
    "",
    "file.resolve_project_source file.read_project_source file.list_project_sources file.register_project_source file.scan_project_manifest",
    "",
    NOT_PLANNED_REF,
  ],
  // notebook
  ["notebook.list", "notebook.list", "notebook.list"],
  ["notebook.get_conf", "notebook.get_conf", ""],
  ["notebook.create", "notebook.create", "notebook.create"],
  ["notebook.rename", "notebook.rename", "notebook.rename"],
  ["notebook.set_conf", "notebook.set_conf", ""],
  ["notebook.set_open_state", "notebook.set_open_state", "notebook.open notebook.close"],
  ["notebook.remove", "notebook.remove", "notebook.remove"],
  ["notebook.set_icon", "notebook.set_icon", "notebook.set_icon notebook.random_icon"],
  [
    "",
    "notebook.get_permissions notebook.set_permission",
    "",
    "by design: permissions are the person's, set in the plugin's settings panel, never by an agent",
  ],
  // search
  ["search.sql", "search.query_sql", "sql.query"],
  ["search.fulltext", "search.fulltext", "search.fulltext"],
  ["search.semantic", "search.semantic", "search.semantic"],
  [
    "",
    "search.knowledge",
    "",
    "not planned: SiYuan 3.7.3 has no such endpoint and the reference names no more than the action; search.semantic and search.fulltext answer it",
  ],
  ["search.invalid_refs", "search.list_invalid_refs", ""],
  ["search.assets", "search.search_assets", ""],
  ["search.refs", "search.search_refs", ""],
  ["search.asset_content", "search.fulltext_asset_content", "search.asset"],
  ["", "", "search.getasset", "not planned: search.asset_content answers an asset's indexed text"],
  ["", "search.check_anchor", "", "not planned: document.lookup answers a path or ID"],
  // tag
  ["tag.list", "tag.list", "tag.list"],
  ["tag.rename", "tag.rename", "tag.rename"],
  ["tag.remove", "tag.remove", "tag.remove"],
  // av
  ["av.get", "av.get", "database.get"],
  ["av.render", "av.render", "database.render"],
  ["av.keys", "av.get_attribute_view_keys", "database.keys"],
  ["av.create", "av.render+create", ""],
  ["av.add_rows", "av.add_rows", "database.item_add"],
  ["av.remove_rows", "av.remove_rows", "database.item_remove"],
  ["av.set_cells", "av.set_cells", "database.item_update"],
  ["av.add_column", "av.add_column", "database.key_add"],
  ["av.remove_column", "av.remove_column", "database.key_remove"],
  ["av.filter_sort", "av.get_attribute_view_filter_sort", ""],
  ["av.search", "av.search", "database.search"],
  ["av.primary_key_values", "av.get_primary_key_values", ""],
  ["av.rename", "av.rename", ""],
  ["av.duplicate", "av.duplicate", ""],
  ["", "", "database.unused database.clean", "not planned: removes databases no block shows"],
  // history
  ["history.list", "timeline.list_nodes", "history.list history.search"],
  ["history.get", "timeline.compare_node timeline.compare_recent", "history.get"],
  ["history.create_point", "timeline.create_node", ""],
  ["history.rollback_document", "timeline.rollback_document", "history.rollback"],
  [
    "",
    "timeline.delete_node timeline.rollback_block",
    "history.clear",
    "not planned (D-321): 3.7.3's history API can neither delete one point nor roll back one block; the reference builds both on the repo API (removeRepoTagSnapshot, a block written back from a repo file), and we write no block back from repo files",
  ],
  ["history.snapshot_list", "", "repo.list"],
  ["history.snapshot_create", "", "repo.create"],
  ["history.snapshot_diff", "", "repo.diff"],
  [
    "",
    "",
    "repo.tag repo.untag repo.checkout repo.search repo.purge repo.file_get repo.file_rollback repo.file_open repo.file_export",
    "not planned: whole-workspace repository operations",
  ],
  // flashcard
  ["flashcard.decks", "flashcard.get_decks", ""],
  ["flashcard.cards", "flashcard.get_cards", ""],
  ["flashcard.due", "flashcard.list_cards", ""],
  ["flashcard.add_cards", "flashcard.create_card", ""],
  ["flashcard.remove_cards", "flashcard.remove_card", ""],
  ["flashcard.review", "flashcard.review_card", ""],
  // system
  ["system.bootstrap", "system.bootstrap", ""],
  ["system.version", "system.get_version", "system.version"],
  ["system.current_time", "system.get_current_time", "system.current_time"],
  ["system.health", "", ""],
  ["system.notify", "system.notify", ""],
  ["system.sync", "system.perform_sync", "sync.perform"],
  ["system.conf", "system.conf", ""],
  [
    "",
    "system.workspace_info",
    "system.workspace workspace.info",
    "not planned: it answers the host's workspace path, which no answer of ours carries (the reference asks to confirm and ships it off); system.conf and system.version answer the rest",
  ],
  [
    "",
    "system.network system.changelog system.audit_environment system.validate_source_audit",
    "",
    "not planned: about the reference's own host",
  ],
  [
    "",
    "system.list_packages system.search_bazaar system.get_bazaar_package system.read_bazaar_readme system.get_plugin system.list_plugin_updates system.list_snippets system.list_plugin_storage system.read_plugin_storage system.inspect_plugin system.list_control_changes system.get_control_change system.plan_change system.apply_change system.rollback_change system.discard_change_plan",
    "",
    NOT_PLANNED_REF,
  ],
  ["", "mascot.get_balance mascot.shop mascot.buy", "", NOT_PLANNED_REF],
  // extension, feedback
  ["extension.list", "extension.list", ""],
  ["extension.call", "extension.<dynamic>", ""],
  ["feedback.submit", "feedback.submit", ""],
  // SiYuan's own tools with no counterpart here
  [
    "",
    "",
    "workspace.list sync.upload sync.download sync.status",
    "not planned: workspace and cloud-sync administration",
  ],
  [
    "",
    "",
    "bookmark.list bookmark.labels bookmark.remove bookmark.rename",
    "not planned: bookmarks are block attributes (block.set_attrs)",
  ],
  [
    "",
    "",
    "file.list file.read file.write file.delete file.rename file.copy file.grep file.find file.stat asset.stat unzip",
    "not planned: raw workspace files bypass the block model every guarantee is about",
  ],
  [
    "",
    "",
    "import.md import.sy import.data export.html export.docx inbox.list inbox.get inbox.convert ref.refresh",
    "not planned",
  ],
  [
    "",
    "",
    "frontend.open_setting frontend.focus_block frontend.open_document frontend.open_search question skill.load skill.save skill.install skill.remove skill.rename skill.list todo_write web_fetch web_search http_request image.generate",
    AGENT_RUNTIME,
  ],
];

/** Every `tool.action` of a by-tool list (a tool without actions counts by its name). */
export function actionsOf(list: Readonly<Record<string, string>>): string[] {
  return Object.entries(list).flatMap(([tool, actions]) =>
    actions === "" ? [tool] : actions.split(" ").map((a) => `${tool}.${a}`),
  );
}

function names(cell: string): string[] {
  return cell === "" ? [] : cell.split(" ");
}

/** `docs/comparison.md`, generated. */
export function comparisonPage(): string {
  const ours = ACTIONS.length;
  const reference = actionsOf(REFERENCE_ACTIONS).length;
  const siyuan = actionsOf(SIYUAN_MCP_ACTIONS).length;
  const code = (cell: string) =>
    names(cell)
      .map((n) => `\`${n}\``)
      .join(" ");
  const rows = ROWS.map(([o, r, s, note]) => [
    o === "" ? "—" : code(o),
    r === "" ? "—" : code(r),
    s === "" ? "—" : code(s),
    note ?? "",
  ]);
  const header = [
    "Sisyphus",
    "reference implementation",
    "SiYuan 3.7.3 `/mcp`",
    "where Sisyphus has none",
  ];
  return [
    "# Sisyphus, the reference implementation and SiYuan's own MCP, action by action",
    "",
    "<!-- generated by `pnpm --filter @sisyphus/mcp-tools gen:readme` from packages/mcp-tools/scripts/comparison.ts; do not edit -->",
    "",
    `Sisyphus: ${ours} actions, every mutation under Strict Safe Writes (the catalog). The reference`,
    `implementation: ${reference} entries from its notes (\`../shared/reference-implementation-notes.md\` §1: its 154`,
    "static actions, with `av.render`'s creating form apart and the dynamic extension forwards as one).",
    `SiYuan 3.7.3's own \`/mcp\`: ${siyuan} actions (the \`action\` enums of \`kernel/mcp/tools\`; a tool`,
    "without actions by its name), none of them under a write guarantee. A row names the counterparts",
    "of one capability; a row without a Sisyphus action says what we plan.",
    "",
    ...markdownTable(header, rows),
    "",
  ].join("\n");
}

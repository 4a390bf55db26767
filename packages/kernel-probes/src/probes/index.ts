/** The one list of probes, in the order they run (later probes may reuse the probe plugin). */
import type { Probe } from "../probe.js";
import { assetProbes } from "./assets.js";
import { attrProbes } from "./attr.js";
import { avProbes } from "./av.js";
import { avSearchProbes } from "./av-search.js";
import { blockProbes } from "./block.js";
import { exportMiscProbes } from "./export-misc.js";
import { fileProbes } from "./files.js";
import { filetreeProbes } from "./filetree.js";
import { historyProbes } from "./history.js";
import { mcpProbes } from "./mcp.js";
import { navProbes } from "./nav.js";
import { notebookProbes } from "./notebook.js";
import { pluginProbes } from "./plugin.js";
import { readProbes } from "./reads.js";
import { repoProbes } from "./repo.js";
import { riffProbes } from "./riff.js";
import { sqlProbes } from "./sql.js";
import { systemProbes } from "./system.js";
import { templateProbes } from "./template.js";

/** Every probe of the suite. IDs are unique; the recording is keyed by them. */
export const PROBES: readonly Probe[] = [
  ...systemProbes,
  ...notebookProbes,
  ...filetreeProbes,
  ...blockProbes,
  ...attrProbes,
  ...sqlProbes,
  ...avProbes,
  ...fileProbes,
  ...templateProbes,
  ...exportMiscProbes,
  ...navProbes,
  ...readProbes,
  ...historyProbes,
  ...riffProbes,
  ...avSearchProbes,
  ...pluginProbes,
  ...mcpProbes,
  ...assetProbes,
  // last: repo.snapshots leaves the workspace with a data repo key
  ...repoProbes,
];

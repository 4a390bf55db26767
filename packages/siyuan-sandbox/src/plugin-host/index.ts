/** The kernel-plugin host (contract Part 2): see docs/plugin-host.md. */

export { readZip, writeZip } from "../zip.js";
export { withPluginControl } from "./control.js";
export type { PluginEngineKind } from "./engine.js";
export {
  DEFAULT_KERNEL_RESTART_DOWN_MS,
  type PluginClientCall,
  type PluginClientInterceptor,
  PluginHost,
  type PluginHostControl,
  type PluginHostOptions,
  type PluginSource,
  type PluginStatus,
  pluginFiles,
} from "./host.js";
export { checkLanguageLevel, type LanguageViolation } from "./language.js";
export { type PluginLogLine, type PluginManifest, PluginState } from "./runtime.js";

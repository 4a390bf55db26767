/**
 * @sisyphus/siyuan-api: the typed SiYuan kernel client. One factory (`createSiyuanClient`) over a
 * transport port (`undiciTransport` for Node, `kernelFetchTransport` inside the kernel plugin
 * runtime); single-attempt writes, retried reads, and one error class whose codes separate
 * "not dispatched" from "outcome unknown" from "the kernel said no".
 *
 * This entry is `./kernel` (the Node-free surface, listed name by name there) plus the undici
 * transport. The one `export *` in the project: it re-exports a sibling entry whose names are
 * already explicit, so the two entries cannot drift apart (the public-surface test pins both).
 */
export * from "./kernel.js";
export type { UndiciTransportOptions } from "./transport/undici-transport.js";
export { classifyUndiciError, undiciTransport } from "./transport/undici-transport.js";

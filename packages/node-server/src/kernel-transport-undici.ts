/** Split point for `lazyKernelTransport`: the only static import of the undici transport. */
export { undiciTransport } from "@sisyphus/siyuan-api";

/** @sisyphus/siyuan-sandbox: A faithful in-memory SiYuan kernel (HTTP API) with fault injection, for tests and the demo. */
export const PACKAGE_NAME = "@sisyphus/siyuan-sandbox";

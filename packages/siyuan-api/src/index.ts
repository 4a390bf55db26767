/** @sisyphus/siyuan-api: Typed SiYuan kernel client: single-attempt writes, retried reads, honest failure classes. */
export const PACKAGE_NAME = "@sisyphus/siyuan-api";

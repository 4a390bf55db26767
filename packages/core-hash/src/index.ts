/** @sisyphus/core-hash: Canonical JSON, versioned SHA-256 (portable + Node fast path), credential parsing, alias pool and request-ID issuing. Pure. */
export const PACKAGE_NAME = "@sisyphus/core-hash";

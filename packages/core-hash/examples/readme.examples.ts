/**
 * The README's example, compiled by `typecheck` (tsconfig includes `examples`); never run. The
 * `readme` region must equal the README's ```ts block (`test/readme-example.test.ts`); the names it
 * leaves unused are exported after it, so the linter sees them used.
 */
//#region readme
import { randomInt } from "node:crypto";
import { AliasPool, parseCredential, RequestIdIssuer, stateHash } from "@sisyphus/core-hash";
import { installNodeSha256 } from "@sisyphus/core-hash/node";

installNodeSha256(); // once at start in Node runtimes: same digests, faster
const digest = stateHash({ id: "2024…", kramdown: "# Title", attrs: { b: "1", a: "2" } });
const alias = new AliasPool().aliasFor(digest); // e.g. "3f9a"; longer if another digest holds it
const cred = parseCredential("SHA256:V1:3F9A"); // { ok: true, hex: "3f9a" }
const random = { nextInt: (n: number) => randomInt(n) }; // seededRandomSource(seed) in tests
const id = new RequestIdIssuer({ random, reservations: new Set<string>() }).issue(); // e.g. "b72f"

//#endregion

export { alias, cred, id };

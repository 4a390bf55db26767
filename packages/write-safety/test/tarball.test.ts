/**
 * `@sisyphus/write-safety` (with `@sisyphus/core-hash`) as a user's TypeScript project meets it:
 * both packed with `pnpm pack`, installed from the tarballs into a scratch project outside the
 * workspace (strict, `moduleResolution: NodeNext`, library declarations checked), which compiles
 * the README's example — an in-memory coordinator's preflight and commit — and runs it on Node.
 * Builds come from `turbo run build`.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  INSTALL_TIMEOUT_MS,
  npmInstall,
  type Packed,
  pack,
  removeTemp,
  run,
  STRICT_NODENEXT,
  tarballProblems,
  tempDir,
  workspaceVersion,
} from "../../../test-support/tarballs.js";

const PUBLISHED = ["@sisyphus/write-safety", "@sisyphus/core-hash"];
const TSCONFIG = {
  compilerOptions: { ...STRICT_NODENEXT, rootDir: "src", outDir: "dist" },
  include: ["src"],
};

// The example's `receipt`, printed; a misuse the declarations must reject (an untyped `any`
// import would accept it, and the unused directive would fail the check); core-hash's `./node`.
const MAIN = `import { nodeSha256Hex } from "@sisyphus/core-hash/node";
import { mutationPolicy } from "@sisyphus/write-safety";
import { receipt } from "./example.js";

// @ts-expect-error a policy's precondition is one of the kinds the declarations name
mutationPolicy("whatever");
process.stdout.write(\`\${JSON.stringify({ ...receipt, abc: nodeSha256Hex("abc") })}\\n\`);
`;

let work: string | undefined;
let project: string;
let packed: Packed[];

beforeAll(async () => {
  work = tempDir("sisyphus-write-safety-tarball-");
  project = join(work, "scratch");
  packed = [await pack("write-safety", work), await pack("core-hash", work)];
  mkdirSync(join(project, "src"), { recursive: true });
  writeFileSync(
    join(project, "package.json"),
    `${JSON.stringify({ name: "scratch", private: true, type: "module" })}\n`,
  );
  writeFileSync(join(project, "tsconfig.json"), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  writeFileSync(
    join(project, "src", "example.ts"),
    readFileSync(join(import.meta.dirname, "..", "examples", "readme.examples.ts"), "utf8"),
  );
  writeFileSync(join(project, "src", "main.ts"), MAIN);
  await npmInstall(project, [
    ...packed.map((p) => p.file),
    `typescript@${workspaceVersion("typescript")}`,
    `@types/node@${workspaceVersion("@types/node")}`,
  ]);
}, INSTALL_TIMEOUT_MS + 60_000);

afterAll(() => removeTemp(work));

describe("the packed write-safety and core-hash", () => {
  it("carry no workspace ranges, source exports or dev-only files", () => {
    expect(packed.flatMap((p) => tarballProblems(p, PUBLISHED))).toEqual([]);
    for (const p of packed) expect(p.files).toContain("dist/index.d.ts");
  });

  it("type-check in a strict NodeNext project and run a preflight and commit", async () => {
    const tsc = join(project, "node_modules", "typescript", "bin", "tsc");
    const check = await run(process.execPath, [tsc, "-p", project], { cwd: project });
    expect(check.code, check.stdout + check.stderr).toBe(0);
    const ran = await run(process.execPath, [join(project, "dist", "main.js")], { cwd: project });
    expect(ran.code, ran.stderr).toBe(0);
    const out = JSON.parse(ran.stdout);
    expect(out).toMatchObject({ status: "committed", targetCount: 1 });
    expect(out.requestId).toEqual(expect.any(String));
    expect(out.resultHash).not.toBe(out.previousHash);
    expect(out.abc).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  }, 120_000);
});

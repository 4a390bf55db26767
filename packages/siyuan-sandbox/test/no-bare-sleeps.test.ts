/**
 * "Tests wait on events, not on time" (issue 31 §5), enforced: no test file of any package sleeps.
 * A wait goes through `waitFor` (a deadline and a message) or, when a test checks that something
 * does not happen for a while, `observeQuietFor`, both in `../src/testing.ts`.
 */
import { describe, expect, it } from "vitest";
import { bareSleepsIn, findBareSleeps, isTestFile } from "../../../test-support/bare-sleeps.js";

describe("no bare sleeps in test files", () => {
  it("finds none in any package (each offender is listed as file:line)", () => {
    const offenders = findBareSleeps().map((s) => `${s.file}:${s.line}: ${s.text}`);
    expect(
      offenders,
      `sleeps in test files; wait with waitFor/observeQuietFor instead:\n${offenders.join("\n")}`,
    ).toEqual([]);
  });

  it("recognises each form of sleep, and not a timer that does work", () => {
    // Assembled, so this file does not hold the forms it checks for.
    const timeout = ["set", "Timeout("].join("");
    const source = [
      `await new Promise((r) => ${timeout}r, 10));`,
      `await new Promise((resolve) =>\n  ${timeout}\n    resolve, 5));`,
      `await ${["sl", "eep("].join("")}250);`,
      `import { setTimeout as wait } from "node:${["timers", "promises"].join("/")}";`,
      `const t = ${timeout}() => child.kill(), 5_000);`,
      `${timeout}function () { order.push("timer"); }, 300);`,
    ].join("\n");
    expect(bareSleepsIn("x.test.ts", source).map((s) => s.line)).toEqual([1, 3, 5, 6]);
  });

  it("scans test, suite and setup files and everything under test/, not product code", () => {
    expect(isTestFile("packages/a/src/x.test.ts")).toBe(true);
    expect(isTestFile("packages/a/test/plugin-host.suite.ts")).toBe(true);
    expect(isTestFile("packages/a/test/support/harness.ts")).toBe(true);
    expect(isTestFile("packages/a/src/testing.ts")).toBe(false);
    expect(isTestFile("packages/a/src/x.ts")).toBe(false);
  });
});

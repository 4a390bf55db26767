/** The README's ```ts block is the compiled `readme` region of `examples/readme.examples.ts`. */
import { expect, it } from "vitest";
import { readmeExample } from "../../../test-support/readme-example.js";

it("the README example is the one typecheck compiles", () => {
  const { readme, examples } = readmeExample(new URL("../", import.meta.url));
  expect(readme).toBe(examples);
});

/**
 * The sandbox kernel of a suite that spawns Node authorities: seeded with the demo notebook before
 * the suite; after it, every authority it spawned is killed before the kernel they write to stops.
 */
import { type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll } from "vitest";
import { killAll } from "../../../node-server/test/harness.js";

/** The suite's kernel, in `current` once the suite has started. */
export function useDemoKernel(): { readonly current: Sandbox } {
  const box = {} as { current: Sandbox };
  beforeAll(async () => {
    box.current = await startSandbox({ seed: "demo" });
  });
  afterAll(async () => {
    await killAll();
    await box.current?.stop();
  });
  return box;
}

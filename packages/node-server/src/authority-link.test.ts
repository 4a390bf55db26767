import { describe, expect, it } from "vitest";
import { AuthorityLink, type AuthorityLinkOptions } from "./authority-link.js";
import { KernelAuthorityLink } from "./kernel-authority-link.js";
import { NodeAuthorityLink } from "./node-authority-link.js";

const KERNEL = { siyuanUrl: "http://127.0.0.1:1" };
const AUTOSTART = {
  launcher: "/nowhere/bin.cjs",
  siyuanUrl: KERNEL.siyuanUrl,
  strict: true,
  idleStopMs: 60_000,
};

describe("AuthorityLink.open", () => {
  it("opens the kernel link for `kernel`, else the Node link", async () => {
    const kernel = await AuthorityLink.open({ kernel: KERNEL });
    const node = await AuthorityLink.open({ dataDir: "/nowhere", autostart: AUTOSTART });
    expect(kernel).toBeInstanceOf(KernelAuthorityLink);
    expect(kernel.kind).toBe("kernel");
    expect(node).toBeInstanceOf(NodeAuthorityLink);
    expect(node.kind).toBe("node-http");
    // The Node authority has no /tasks: nothing to ask, nothing thrown.
    await expect(node.task("t", "status")).resolves.toBeUndefined();
    await Promise.all([kernel.close(), node.close()]);
  });

  it("does not type-check options that combine `kernel` with the Node link's", () => {
    const options: AuthorityLinkOptions[] = [
      // @ts-expect-error the kernel authority is never started by a delegate
      { kernel: KERNEL, autostart: AUTOSTART },
      // @ts-expect-error a kernel link reads no authority.json
      { kernel: KERNEL, dataDir: "/nowhere" },
      // @ts-expect-error nor presents a Node authority's bearer
      { kernel: KERNEL, authToken: "secret" },
    ];
    // @ts-expect-error the same on the kernel link's own constructor
    const _link = () => new KernelAuthorityLink({ kernel: KERNEL, autostart: AUTOSTART });
    expect(options).toHaveLength(3);
  });
});

/**
 * The shared gateway as the gateway tests drive it: over a harness's runtime, called directly (no
 * transport: a fresh abort signal, no `_meta`, one local principal) with the settings snapshot the
 * test gives.
 */
import type { ServerContext } from "@modelcontextprotocol/server";
import {
  type Admission,
  ConfirmationBook,
  createGateway,
  type GatewayOptions,
} from "../../src/shell/index.js";
import type { Harness } from "../harness.js";

/** A call through a gateway over `h`'s runtime, admitted by `admission`. */
export function gatewayCall(
  h: Harness,
  admission: Admission,
  snapshot: NonNullable<GatewayOptions["snapshot"]>,
) {
  const gateway = createGateway({
    runtime: h.runtime,
    admission,
    confirmations: new ConfirmationBook({ random: { nextInt: () => 7 } }),
    role: { kind: "local", epoch: "test-epoch" },
    snapshot,
  });
  const ctx = {
    mcpReq: { signal: new AbortController().signal, _meta: {}, requestState: () => undefined },
  } as unknown as ServerContext;
  const conn = { principal: "test", legacyCapabilities: () => undefined };
  return (tool: string, args: Record<string, unknown>) => gateway(tool, args, ctx, conn);
}

export const sc = (r: { structuredContent?: unknown }) =>
  r.structuredContent as Record<string, unknown>;

/** Every request `h`'s sandbox kernel received so far. */
export const kernelRequests = (h: Harness) =>
  Object.values(h.sandbox.control.counts()).reduce((n, c) => n + (c as number), 0);

/**
 * Test helpers over `@sisyphus/siyuan-sandbox`: start a seeded sandbox, build clients for it, arm its
 * faults by meaning (the one place that knows the sandbox's fault vocabulary).
 */
import { type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll } from "vitest";
import {
  createSiyuanClient,
  kernelFetchTransport,
  type SiyuanClient,
  undiciTransport,
} from "../../src/index.js";
import { instantSleep } from "./failure.js";
import { fakeSiyuanClient } from "./fake-siyuan-client.js";

export { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
export { failure, instantSleep } from "./failure.js";

/** A well-formed ID that no seed uses. */
export const UNKNOWN_ID = "20991231235959-zzzzzzz";
/** Not a node ID at all. */
export const MALFORMED_ID = "not-an-id";

/** Starts a sandbox with the demo seed (kernel-exact replies: block writes flush before answering). */
export function startDemoSandbox(): Promise<Sandbox> {
  return startSandbox({ seed: "demo", flushBeforeReply: true });
}

/** A client on the undici transport for `sb`. */
export function undiciClientFor(
  sb: Sandbox,
  opts: { timeoutMs?: number; token?: string } = {},
): SiyuanClient {
  return createSiyuanClient({
    transport: undiciTransport({
      baseUrl: sb.url,
      token: opts.token ?? sb.token,
      timeoutMs: opts.timeoutMs ?? 10_000,
    }),
    sleep: instantSleep,
  });
}

/** A client on the kernel-fetch transport (fake `siyuan.client` over loopback) for `sb`. */
export function kernelClientFor(sb: Sandbox): SiyuanClient {
  return createSiyuanClient({
    transport: kernelFetchTransport(fakeSiyuanClient(sb.url, sb.token)),
    sleep: instantSleep,
  });
}

/** What `sharedDemoClient` starts; read its fields inside tests (they are set in `beforeAll`). */
export interface SharedDemoClient {
  readonly sb: Sandbox;
  readonly client: SiyuanClient;
}

/**
 * The fixture most files share: a demo sandbox and a client for it (undici unless `clientFor` says
 * otherwise), started before the file's tests and closed after them.
 */
export function sharedDemoClient(
  clientFor: (sb: Sandbox) => SiyuanClient = undiciClientFor,
): SharedDemoClient {
  const shared = {} as { sb: Sandbox; client: SiyuanClient };
  beforeAll(async () => {
    shared.sb = await startDemoSandbox();
    shared.client = clientFor(shared.sb);
  });
  afterAll(async () => {
    await shared.client.close();
    await shared.sb.stop();
  });
  return shared;
}

/** Fault meanings used by these tests. */
export type FaultMeaning =
  | "http_5xx_before_apply"
  | "drop_before_apply"
  | "reset_after_apply"
  | "delay";

const SANDBOX_KIND: Record<FaultMeaning, string> = {
  http_5xx_before_apply: "http5xx",
  drop_before_apply: "refuse",
  reset_after_apply: "resetAfterApply",
  delay: "delay",
};

/** Arms one fault on the next matching request(s). */
export function armFault(
  sb: Sandbox,
  endpoint: string,
  meaning: FaultMeaning,
  opts: { times?: number; status?: number; delayMs?: number } = {},
): void {
  sb.control.armFault({
    endpoint,
    kind: SANDBOX_KIND[meaning] as never,
    times: opts.times ?? 1,
    ...(opts.status === undefined ? {} : { status: opts.status }),
    ...(opts.delayMs === undefined ? {} : { delayMs: opts.delayMs }),
  });
}

/**
 * A tool runtime over an empty sandbox whose transport a test wraps, for what the sandbox does not
 * do itself but a real SiYuan 3.7.3 was seen to (an index holding rows twice, a notebook closed
 * before it is unindexed) or for reading the requests off the wire. Loopback HTTP all the same.
 */
import {
  createSiyuanClient,
  type Transport,
  type TransportRequest,
  undiciTransport,
} from "@sisyphus/siyuan-api";
import { type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { createToolRuntime, type ToolRuntime } from "../src/index.js";

export type { Transport, TransportRequest };

export async function startWrappedRuntime(
  wrap: (inner: Transport) => Transport,
): Promise<{ sandbox: Sandbox; runtime: ToolRuntime }> {
  const sandbox = await startSandbox({ seed: "empty", flushIntervalMs: 5 });
  const client = createSiyuanClient({
    transport: wrap(
      undiciTransport({ baseUrl: sandbox.url, token: sandbox.token, timeoutMs: 5000 }),
    ),
  });
  return { sandbox, runtime: createToolRuntime({ client }) };
}

/** A kernel answer, its JSON `data` changed in place by `edit` on the way back (other answers pass). */
export async function editedAnswer(
  response: ReturnType<Transport["send"]>,
  edit: (data: Record<string, unknown>) => void,
): ReturnType<Transport["send"]> {
  const res = await response;
  if (res.type !== "text") return res;
  const envelope = JSON.parse(res.text) as { data?: unknown };
  if (typeof envelope.data !== "object" || envelope.data === null) return res;
  edit(envelope.data as Record<string, unknown>);
  const text = JSON.stringify(envelope);
  return { ...res, text, byteLength: Buffer.byteLength(text) };
}

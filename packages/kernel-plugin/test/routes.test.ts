/**
 * The plugin's routes as the kernel host serves them: `/health` (authenticated by the kernel's
 * route guard, aggregate counts only), `GET /mcp` refused (a stream would block the path), and the
 * host's per-path serialisation of `/mcp`, shown on a host that serialises and on one that does not.
 */
import { DEMO_IDS, type Sandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, describe, expect, it } from "vitest";
import { kernelClient, PLUGIN_NAME, routeOf, sandboxWithPlugin, sc } from "./harness.js";

const UPDATE = "/api/block/updateBlock";
const MCP_PATH = `/plugin/private/${PLUGIN_NAME}/mcp`;
const started: Sandbox[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

async function sandbox(serialisePaths = true): Promise<Sandbox> {
  const sb = await sandboxWithPlugin({ serialisePaths });
  started.push(sb);
  return sb;
}

describe("the plugin's routes", () => {
  it("answers /health with aggregate counts, behind the kernel's auth; GET /mcp 405; others 404", async () => {
    const sb = await sandbox();
    const auth = { authorization: `Token ${sb.token}` };
    const health = await fetch(routeOf(sb, "/health"), { headers: auth });
    expect(health.status).toBe(200);
    const body = (await health.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      ok: true,
      authority: "kernel",
      strict: true,
      running: 0,
      callsInFlight: 0,
      readsRunning: 0,
      readsQueued: 0,
      readsCancelledRunning: 0,
      taskResults: 0,
      readBudgetReads: 0,
      readBudgetExceededCalls: 0,
      readBudgetExceededBytes: 0,
    });
    expect(JSON.stringify(body)).not.toContain(sb.token);
    // Aggregates only: numbers and booleans, the authority's kind the one word.
    for (const [k, v] of Object.entries(body)) {
      if (k !== "authority") expect(["number", "boolean"], k).toContain(typeof v);
    }
    expect((await fetch(routeOf(sb, "/health"))).status).toBe(401);
    const get = await fetch(routeOf(sb, "/mcp"), {
      headers: { ...auth, accept: "application/json" },
    });
    expect(get.status).toBe(405);
    expect((await fetch(routeOf(sb, "/nowhere"), { headers: auth })).status).toBe(404);
  });

  for (const serialisePaths of [true, false]) {
    it(`${serialisePaths ? "waits" : "does not wait"} for a held commit before answering another /mcp request on a host that ${serialisePaths ? "serialises" : "does not serialise"} the path`, async () => {
      const sb = await sandbox(serialisePaths);
      const writer = await kernelClient(sb);
      const reader = await kernelClient(sb);
      const args = {
        action: "update",
        id: DEMO_IDS.paragraphDecision,
        dataType: "markdown",
        data: "Decision: held in the kernel",
      };
      const pre = sc(
        await writer.callTool({ name: "block", arguments: { ...args, validateOnly: true } }),
      );
      const field = pre["preconditionField"] as string;
      const before = sb.control.count(UPDATE);
      sb.control.armFault({ endpoint: UPDATE, kind: "hold" });
      const order: string[] = [];
      const commit = writer
        .callTool({
          name: "block",
          arguments: { ...args, requestId: pre["requestId"], [field]: pre[field] },
        })
        .then((r) => {
          order.push("commit");
          return r;
        });
      await waitFor(() => sb.control.count(UPDATE) > before && sb.control.held() === 1, {
        what: "the commit's write held at the kernel",
      });
      const mcpPosts = () =>
        sb.control.log().filter((e) => e.method === "POST" && e.path === MCP_PATH).length;
      const posts = mcpPosts();
      const listed = reader.listTools().then(() => order.push("list"));
      await waitFor(() => mcpPosts() > posts, { what: "the listing to reach the host" });
      // Where the host does not serialise the path, the listing answers while the commit is held.
      if (!serialisePaths) await waitFor(() => order.includes("list"), { what: "the listing" });
      expect(sb.control.releaseHeld()).toBe(1);
      await listed;
      expect(sc(await commit)["status"]).toBe("committed");
      expect(order).toEqual(serialisePaths ? ["commit", "list"] : ["list", "commit"]);
      await Promise.all([writer.close(), reader.close()]);
    });
  }
});

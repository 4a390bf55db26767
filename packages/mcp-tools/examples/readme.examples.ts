/**
 * The README's example, compiled by `typecheck` (tsconfig includes `examples`); never run. The
 * `readme` region must equal the README's ```ts block (`test/readme-example.test.ts`). What the
 * example takes as given is declared after the region.
 */
//#region readme
import { createToolRuntime, registerTools } from "@sisyphus/mcp-tools";

const runtime = createToolRuntime({ client, coordinator, config: { loadPermissions } });
await runtime.callTool("block", { action: "update", id, data: "New", validateOnly: true });
registerTools(mcpServer, runtime, route); // route: the shell's delegation/confirmation path

//#endregion

import type { McpServer } from "@modelcontextprotocol/server";
import type { CallRoute, PermissionMap } from "@sisyphus/mcp-tools";
import type { SiyuanClient } from "@sisyphus/siyuan-api/kernel";
import type { WriteCoordinator } from "@sisyphus/write-safety";

declare const client: SiyuanClient; // from @sisyphus/siyuan-api
declare const coordinator: WriteCoordinator; // @sisyphus/write-safety's, in the authority
declare const loadPermissions: () => Promise<PermissionMap>; // loaded fresh for every call
declare const mcpServer: McpServer;
declare const route: CallRoute;
declare const id: string;

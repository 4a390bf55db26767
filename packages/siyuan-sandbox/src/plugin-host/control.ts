/** The plugin part of the `/__sandbox/*` control route. */
import type { PluginHostControl } from "./host.js";

/**
 * Adds `plugins/list`, `plugins/status` {name}, `plugins/install` {path}, `plugins/reload` {name},
 * `plugins/logs` {name?} and `kernel/restart` {downMs?} (answered before the listener goes away) to a control-route handler.
 */
export function withPluginControl(
  next: (path: string, body: Record<string, unknown>) => Promise<unknown>,
  host: PluginHostControl,
): (path: string, body: Record<string, unknown>) => Promise<unknown> {
  return async (path, body) => {
    const name = typeof body.name === "string" ? body.name : "";
    switch (path.slice("/__sandbox/".length)) {
      case "plugins/list":
        return host.list();
      case "plugins/status":
        return host.status(name);
      case "plugins/install":
        return { name: await host.install(String(body.path)) };
      case "plugins/reload":
        await host.reload(name);
        return host.status(name);
      case "plugins/logs":
        return host.logs(name || undefined);
      case "kernel/restart": {
        // answered first: the restart takes the listener (and this connection) away
        const downMs = typeof body.downMs === "number" ? body.downMs : undefined;
        setTimeout(() => void host.restartKernel(downMs).catch(() => undefined), 20);
        return { restarting: true };
      }
      default:
        return next(path, body);
    }
  };
}

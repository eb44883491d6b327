/**
 * The WebSocket engines a server can listen with (`WS_ENGINE`): `ws` (npm `ws` on `node:http`,
 * the default: it refuses an oversized frame from its header, before buffering it) and `deno`
 * (`Deno.serve` + `Deno.upgradeWebSocket`). Both hand the Hono app the same `ServerEnv`
 * (`ws_types.ts`), so routes never know which one carries them.
 */
import { listenDeno } from "./ws_deno.ts";
import { listenNode } from "./ws_node.ts";
import { ConnectionGuard } from "./conn_guard.ts";
import { raiseFdLimit } from "./fd_limit.ts";
import type { FetchHandler, Listener, ListenOptions, WsEngine } from "./ws_types.ts";

export {
  type FetchHandler,
  type Listener,
  type ListenOptions,
  type ServerEnv,
  type Upgrade,
  WS_ENGINES,
  type WsEngine,
} from "./ws_types.ts";

/**
 * Starts listening with `engine`, after raising the open-file limit as far as allowed and logging
 * it with the connection caps that follow from it.
 */
export async function listen(
  engine: WsEngine,
  fetch: FetchHandler,
  options: ListenOptions,
): Promise<Listener> {
  const { limit, line } = await raiseFdLimit();
  const guard = options.guard ?? new ConnectionGuard(
    options.maxConnections ?? Infinity,
    options.maxConnectionsPerAddress ?? Infinity,
    limit.soft,
  );
  options.log(`${line}; connections at most ${guard.total}, ${guard.perAddress} per address`);
  const withGuard = { ...options, guard };
  return engine === "deno" ? listenDeno(fetch, withGuard) : listenNode(fetch, withGuard);
}

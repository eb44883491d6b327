/**
 * A hostile client as its own process, so its writing does not share the test's event loop (where
 * the observer times heartbeats): `deno run -A testing/flooder.ts PORT MS`. For MS ms it
 * upgrades at `/s/flood-N/ws`, never says hello and never reads, and writes tiny binary frames
 * until the server cuts it off, then reconnects. Prints one JSON line: connections, bytes, cut.
 */
import { BINARY, floodUntilClosed, maskedFrame, rawUpgrade, repeated } from "./raw_ws.ts";
import { runNicedChild } from "./niced_child.ts";

/** Runs the flood against `port` for `ms`; what it managed. */
export async function flood(
  port: number,
  ms: number,
): Promise<{ connections: number; bytes: number; cut: number }> {
  const batch = repeated(maskedFrame(BINARY, new Uint8Array([1, 2])), 8192);
  const until = performance.now() + ms;
  let connections = 0;
  let bytes = 0;
  let cut = 0;
  while (performance.now() < until) {
    const conn = await rawUpgrade(port, `flood-${connections % 3}`);
    connections++;
    const result = await floodUntilClosed(conn, batch, until);
    bytes += result.bytes;
    if (result.cut) cut++;
    try {
      conn.close();
    } catch {
      // Already reset.
    }
  }
  return { connections, bytes, cut };
}

/** Runs `flood` in a child process; resolves with its result. */
export async function floodInChild(
  port: number,
  ms: number,
): Promise<{ connections: number; bytes: number; cut: number }> {
  // At the lowest CPU priority (see niced_child.ts).
  return await runNicedChild(new URL(import.meta.url), [String(port), String(ms)], "flooder");
}

if (import.meta.main) {
  const [port, ms] = Deno.args.map(Number);
  console.log(JSON.stringify(await flood(port, ms)));
}

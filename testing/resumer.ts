/**
 * Hostile resumers as their own process: `deno run -A testing/resumer.ts PORT SCENE N MS`. Opens N
 * WebSockets to SCENE, each says `hello` with `lastSeq` 1, and none ever reads; they are held MS
 * ms, then closed. Prints one JSON line: how many opened, how many the server refused.
 */
import { maskedFrame, rawUpgrade, TEXT } from "./raw_ws.ts";
import { runNicedChild } from "./niced_child.ts";

/** Opens the resumers, holds them `ms`, closes them; what happened. */
export async function resumeFlood(
  port: number,
  scene: string,
  count: number,
  ms: number,
): Promise<{ opened: number; refused: number }> {
  const hello = maskedFrame(TEXT, new TextEncoder().encode('{"t":"hello","lastSeq":1}'));
  const held: Deno.TcpConn[] = [];
  let refused = 0;
  const until = performance.now() + ms;
  for (let i = 0; i < count; i++) {
    try {
      const conn = await rawUpgrade(port, scene);
      await conn.write(hello);
      held.push(conn);
    } catch {
      refused++;
    }
  }
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - performance.now())));
  for (const conn of held) {
    try {
      conn.close();
    } catch {
      // Already reset by the server.
    }
  }
  return { opened: held.length, refused };
}

/** Runs `resumeFlood` in a child process at the lowest CPU priority. */
export async function resumeFloodInChild(
  port: number,
  scene: string,
  count: number,
  ms: number,
): Promise<{ opened: number; refused: number }> {
  return await runNicedChild(new URL(import.meta.url), [
    String(port),
    scene,
    String(count),
    String(ms),
  ], "resumer");
}

if (import.meta.main) {
  const [port, scene, count, ms] = Deno.args;
  console.log(
    JSON.stringify(await resumeFlood(Number(port), scene, Number(count), Number(ms))),
  );
}

/**
 * A crowd reacting in one scene, as its own process (so its sockets do not share the test's event
 * loop): `deno run -A testing/reactor.ts URL SCENE SOCKETS ADDRESSES EVERY_MS MS IDLE_MS`. It
 * opens SOCKETS WebSockets to SCENE from ADDRESSES loopback source addresses (127.0.0.2 onwards,
 * round robin; Linux routes all of 127/8 to loopback) and says hello on each; once all are in, the
 * crowd sits IDLE_MS, then each socket sends a quick reaction every EVERY_MS for MS ms, then the
 * crowd sits IDLE_MS again before it leaves; it reads everything the server sends throughout. Prints one JSON
 * line: sockets welcomed, reactions sent, frames received (and of those, reaction frames: counted
 * after the crowd is in, as `reaction` or `reactions`).
 */
import WebSocket from "ws";
import { runNicedChild } from "./niced_child.ts";

/** What a crowd managed. */
export interface CrowdResult {
  welcomed: number;
  sent: number;
  received: number;
  /** `reactions` frames received (one per reaction per socket before they were gathered). */
  reactionFrames: number;
}

/** The `i`-th source address: 127.0.0.2, 127.0.0.3, … (then 127.0.1.x past 250). */
export function loopbackAddress(i: number): string {
  return `127.0.${Math.floor(i / 250)}.${2 + (i % 250)}`;
}

/** Runs the crowd; resolves with what it managed. */
export async function react(
  url: string,
  scene: string,
  sockets: number,
  addresses: number,
  everyMs: number,
  ms: number,
  idleMs = 0,
): Promise<CrowdResult> {
  const result: CrowdResult = { welcomed: 0, sent: 0, received: 0, reactionFrames: 0 };
  const wsUrl = `${url.replace(/^http/, "ws")}/s/${scene}/ws`;
  const open: WebSocket[] = [];
  /** Reaction frames count only while the crowd reacts. */
  let reacting = false;
  await Promise.all(Array.from({ length: sockets }, (_, i) =>
    new Promise<void>((resolve) => {
      const socket = new WebSocket(wsUrl, {
        localAddress: loopbackAddress(i % addresses),
        headers: { origin: url },
      });
      open.push(socket);
      socket.on("open", () => socket.send(JSON.stringify({ t: "hello", name: `crowd ${i}` })));
      socket.on("message", (data: unknown) => {
        result.received++;
        const text = String(data);
        if (reacting && text.startsWith('{"t":"reaction')) result.reactionFrames++;
        if (text.startsWith('{"t":"welcome"')) {
          result.welcomed++;
          resolve();
        }
      });
      socket.on("error", () => resolve());
      socket.on("close", () => resolve());
    })));
  const emoji = ["🎉", "❤️", "😮", "👏", "✨"];
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  reacting = true;
  const until = performance.now() + ms;
  const timers = open.map((socket, i) =>
    setTimeout(function tick() {
      if (performance.now() >= until) return;
      if (socket.readyState === WebSocket.OPEN) {
        socket.send(JSON.stringify({ t: "react", emoji: emoji[i % emoji.length] }));
        result.sent++;
      }
      timers[i] = setTimeout(tick, everyMs);
    }, (everyMs * i) / open.length)
  );
  await new Promise((resolve) => setTimeout(resolve, ms));
  for (const timer of timers) clearTimeout(timer);
  reacting = false;
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  await Promise.all(open.map((socket) =>
    new Promise<void>((resolve) => {
      if (socket.readyState === WebSocket.CLOSED) return resolve();
      socket.on("close", () => resolve());
      socket.terminate();
    })
  ));
  return result;
}

/** Runs `react` in a child process at the lowest CPU priority; resolves with its result. */
export async function reactInChild(
  url: string,
  scene: string,
  sockets: number,
  addresses: number,
  everyMs: number,
  ms: number,
  idleMs = 0,
): Promise<CrowdResult> {
  return await runNicedChild(
    new URL(import.meta.url),
    [url, scene, ...[sockets, addresses, everyMs, ms, idleMs].map(String)],
    "reactor",
  );
}

if (import.meta.main) {
  const [url, scene, ...numbers] = Deno.args;
  const [sockets, addresses, everyMs, ms, idleMs] = numbers.map(Number);
  console.log(JSON.stringify(await react(url, scene, sockets, addresses, everyMs, ms, idleMs)));
}

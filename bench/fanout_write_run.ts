/**
 * `deno run -A bench/fanout_write_run.ts [--runs=3] [--peers=1000] [--passes=500] [--period=20]`:
 * the write path of a fan-out alone, over real loopback sockets. A server child accepts `--peers`
 * WebSockets from a client child (another process, so the server's CPU is its own), then every
 * `--period` ms writes one heartbeat-sized text frame to each, `--passes` times after a fifth as
 * many to warm up, and reports its process CPU per frame sent (`/proc/self/stat`, all threads),
 * and the user part of it (the JavaScript and the runtime; the rest is the kernel's TCP path).
 * The modes run alternately, run for run:
 *
 * - `raw`: `Deno.serve` + `Deno.upgradeWebSocket`, `socket.send(text)` (the load test's baseline);
 * - `shared`: `node:http` + npm `ws`, the frame's bytes built once (`textFrame`) and written to
 *   each TCP socket (what the `ws` engine's `sendShared` does);
 * - `shared-timeout`: the same, on sockets that had a `socket.setTimeout` before the upgrade
 *   (what the front did until 2026-12-04: `ws` sets 0, but the cleared timer is refreshed on every
 *   write);
 * - `ws-send`: `ws.send(text)` per socket (encoding and framing per peer).
 *
 * The load test (`deno task loadtest --scenario b`) measures the whole server; this isolates the
 * write path, where the load test's rounds move by ±10 % with the kernel's share.
 */
import http from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { textFrame } from "../server/ws/text_frame.ts";

const MODES = ["raw", "shared", "shared-timeout", "ws-send"] as const;
type Mode = typeof MODES[number];

function flag(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  const found = Deno.args.find((arg) => arg.startsWith(prefix));
  return found ? found.slice(prefix.length) : fallback;
}

/** This process's CPU time in ms: [user + system, user]. */
function cpuMs(): [number, number] {
  const fields = Deno.readTextFileSync("/proc/self/stat").split(") ")[1].split(" ");
  const user = Number(fields[11]) * 10;
  return [user + Number(fields[12]) * 10, user];
}

/** The server child: accepts `peers` sockets, runs the passes, prints one RESULT line. */
async function serve(mode: Mode, peers: number, passes: number, periodMs: number) {
  const senders: ((text: string, wire: Uint8Array) => void)[] = [];
  let port: number;
  let stop: () => Promise<void>;
  if (mode === "raw") {
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (req) => {
      const { socket, response } = Deno.upgradeWebSocket(req);
      socket.onopen = () => senders.push((text) => socket.send(text));
      return response;
    });
    port = server.addr.port;
    stop = () => server.shutdown();
  } else {
    const server = http.createServer();
    const wss = new WebSocketServer({ noServer: true });
    if (mode === "shared-timeout") {
      server.on("connection", (socket) => socket.setTimeout(30_000, () => socket.destroy()));
    }
    server.on("upgrade", (req, tcp: Duplex, head) => {
      wss.handleUpgrade(req, tcp, head, (ws) => {
        senders.push(mode === "ws-send" ? (text) => ws.send(text) : (_, wire) => tcp.write(wire));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
    stop = () => {
      for (const ws of wss.clients) ws.terminate();
      return new Promise((resolve) => server.close(() => resolve()));
    };
  }
  console.log(`PORT ${port}`);
  while (senders.length < peers) await new Promise((resolve) => setTimeout(resolve, 20));
  const warm = Math.ceil(passes / 5);
  let start: [number, number] = [0, 0];
  let next = performance.now();
  for (let pass = 0; pass < warm + passes; pass++) {
    if (pass === warm) start = cpuMs();
    const text = `{"t":"tick","n":${1_000_000 + pass}}`;
    const wire = textFrame(text);
    for (const send of senders) send(text, wire);
    next += periodMs;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
  }
  const [total, user] = cpuMs();
  const frames = passes * peers;
  console.log(
    `RESULT ${(1000 * (total - start[0]) / frames).toFixed(2)} ${
      (1000 * (user - start[1]) / frames).toFixed(2)
    }`,
  );
  await stop();
}

/** The client child: `peers` WebSockets that read and count until the server closes them. */
async function read(port: number, peers: number) {
  let open = 0;
  for (let i = 0; i < peers; i++) {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
    socket.onopen = () => open++;
    socket.onerror = () => {};
    socket.onclose = () => {
      if (--open === 0) Deno.exit(0);
    };
    // Open in batches: a burst of 1000 handshakes overflows the accept backlog.
    if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One measured run of `mode`: [µs per frame, user µs per frame]. */
async function run(mode: Mode, peers: number, passes: number, periodMs: number) {
  const self = new URL(import.meta.url).pathname;
  const server = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      self,
      "--serve",
      `--mode=${mode}`,
      `--peers=${peers}`,
      `--passes=${passes}`,
      `--period=${periodMs}`,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let client: Deno.ChildProcess | undefined;
  let result: [number, number] | undefined;
  while (result === undefined) {
    const { value, done } = await lines.read();
    if (done) break;
    buffered += value;
    const port = /PORT (\d+)/.exec(buffered);
    if (port && !client) {
      client = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", self, "--read", `--port=${port[1]}`, `--peers=${peers}`],
        stdout: "null",
      }).spawn();
    }
    const found = /RESULT ([\d.]+) ([\d.]+)/.exec(buffered);
    if (found) result = [Number(found[1]), Number(found[2])];
  }
  await lines.cancel();
  await server.status;
  if (client) {
    try {
      client.kill();
    } catch {
      // Already gone: it exits when the server closes its sockets.
    }
    await client.status;
  }
  if (!result) throw new Error(`${mode}: the server child printed no result`);
  return result;
}

const peers = Number(flag("peers", "1000"));
const passes = Number(flag("passes", "500"));
const periodMs = Number(flag("period", "20"));
if (Deno.args.includes("--serve")) {
  await serve(flag("mode", "raw") as Mode, peers, passes, periodMs);
  Deno.exit(0);
} else if (Deno.args.includes("--read")) {
  await read(Number(flag("port", "0")), peers);
} else {
  const runs = Number(flag("runs", "3"));
  const results = new Map<Mode, [number, number][]>(MODES.map((mode) => [mode, []]));
  for (let i = 0; i < runs; i++) {
    for (const mode of MODES) {
      const [total, user] = await run(mode, peers, passes, periodMs);
      results.get(mode)!.push([total, user]);
      console.log(`run ${i + 1} ${mode}: ${total} µs per frame (user ${user})`);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
  console.log(`\n${peers} peers, ${passes} passes every ${periodMs} ms; median of ${runs} runs:`);
  for (const [mode, rows] of results) {
    const total = median(rows.map((row) => row[0]));
    const user = median(rows.map((row) => row[1]));
    console.log(`${mode.padEnd(15)} ${total.toFixed(2)} µs per frame, user ${user.toFixed(2)}`);
  }
}

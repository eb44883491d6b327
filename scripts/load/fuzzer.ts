/**
 * A fuzzing load process for `hostile.ts`: `deno run -A scripts/load/fuzzer.ts PORT RATE MS CONNS`.
 * Keeps CONNS connections (each says hello in its own scene, then sends a mix of bad frames and
 * pings), RATE frames per second in total, for MS ms; a connection the server closes is replaced
 * at once. Prints one JSON line: frames sent, connections opened, closes by code.
 */

/** What the fuzz frames are made of: each kind of refusal, plus valid pings. */
const FUZZ: (string | Uint8Array)[] = [
  "{not json",
  "{}",
  JSON.stringify({ t: "dance" }),
  JSON.stringify({ t: "submit", body: { type: "launch", x: 999, z: 0 } }),
  JSON.stringify({ t: "hash", tick: 61, h: "x" }),
  new Uint8Array([1, 2, 3]),
  JSON.stringify({ t: "ping", id: 1, ct: 0 }),
  JSON.stringify({ t: "ping", id: 2, ct: 0 }),
];

/** Runs the fuzz; resolves with what was sent. */
export async function fuzz(
  port: number,
  rate: number,
  ms: number,
  conns: number,
): Promise<{ sent: number; opened: number; closes: Record<string, number> }> {
  let sent = 0;
  let opened = 0;
  const closes: Record<string, number> = {};
  const open: WebSocket[] = [];
  let stopping = false;
  const connect = (slot: number) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/s/fuzz-${slot}/ws`);
    opened++;
    socket.onopen = () => socket.send('{"t":"hello","name":"fuzz"}');
    socket.onmessage = () => {};
    socket.onerror = () => {};
    socket.onclose = (e) => {
      closes[e.code] = (closes[e.code] ?? 0) + 1;
      if (!stopping) open[slot] = connect(slot);
    };
    return socket;
  };
  for (let i = 0; i < conns; i++) open.push(connect(i));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const tickMs = 10;
  const started = performance.now();
  let owed = 0;
  let k = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      owed += rate * tickMs / 1000;
      while (owed >= 1) {
        owed--;
        const socket = open[k++ % conns];
        if (socket.readyState !== WebSocket.OPEN) continue;
        socket.send(FUZZ[k % FUZZ.length]);
        sent++;
      }
      if (performance.now() - started >= ms) {
        clearInterval(timer);
        resolve();
      }
    }, tickMs);
  });
  stopping = true;
  await Promise.all(open.map((socket) =>
    new Promise<void>((resolve) => {
      if (socket.readyState === WebSocket.CLOSED) return resolve();
      socket.addEventListener("close", () => resolve());
      socket.close(1000, "done");
    })
  ));
  return { sent, opened, closes };
}

if (import.meta.main) {
  const [port, rate, ms, conns] = Deno.args.map(Number);
  console.log(JSON.stringify(await fuzz(port, rate, ms, conns)));
}

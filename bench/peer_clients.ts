/**
 * The far end of `server_room_bench.ts`: a separate process holding N real WebSocket clients of
 * one scene, each saying hello once it is open and then reading every frame. It prints
 * `open N` once all are open and exits when its stdin closes (the bench ends).
 *
 * Run: `deno run -A bench/peer_clients.ts ws://127.0.0.1:PORT/s/bench/ws 1000`
 */
const [url, countText] = Deno.args;
const count = Number(countText);
let open = 0;
let frames = 0;
const sockets: WebSocket[] = [];
// At most 50 handshakes in flight: a thousand at once overflow the listener's backlog.
for (let i = 0; i < count; i += 50) {
  const batch: Promise<void>[] = [];
  for (let j = i; j < Math.min(count, i + 50); j++) {
    const ws = new WebSocket(url);
    sockets.push(ws);
    ws.onmessage = () => void frames++;
    batch.push(
      new Promise((resolve, reject) => {
        ws.onopen = () => {
          open++;
          ws.send('{"t":"hello"}');
          resolve();
        };
        ws.onerror = () => reject(new Error(`peer_clients: client ${j} could not connect`));
      }),
    );
  }
  await Promise.all(batch);
}
console.log(`open ${open}`);
// The bench closes our stdin when it ends (or dies).
for await (const _ of Deno.stdin.readable) { /* nothing is sent on stdin */ }
console.log(`frames ${frames}`);
Deno.exit(0);

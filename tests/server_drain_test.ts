/** The slow-reader budget also watches what a socket does not drain, not only how much it holds. */
import assert from "node:assert/strict";
import { DEFAULT_RATE_LIMITS } from "../server/config.ts";
import {
  CLOSE_SLOW_CONSUMER,
  DRAIN_DEADLINE_MS,
  DRAIN_FLOOR_BYTES,
  Peer,
} from "../server/scene/peer.ts";

function fakePeer(bufferedAmount: number) {
  let nowMs = 0;
  const closes: number[] = [];
  const socket = {
    readyState: 1,
    bufferedAmount,
    sent: [] as string[],
    send(data: string) {
      this.sent.push(data);
    },
    close(code: number) {
      closes.push(code);
    },
  };
  const stats = { messagesSent: 0, slowConsumersDropped: 0 };
  const peer = new Peer({
    id: "p1",
    name: "Still Stoat",
    color: "#ffffff",
    socket,
    limits: DEFAULT_RATE_LIMITS,
    maxBufferedBytes: 1 << 20,
    stats,
    monotonic: () => nowMs,
  });
  return { peer, socket, closes, stats, at: (ms: number) => nowMs = ms };
}

Deno.test("a socket that keeps a backlog under the cap past the drain deadline is closed 1013", () => {
  const { peer, socket, closes, stats, at } = fakePeer(DRAIN_FLOOR_BYTES + 1);
  peer.sendChecked("welcome");
  at(DRAIN_DEADLINE_MS - 1);
  peer.sendChecked("tick");
  assert.deepEqual(closes, [], "still within the deadline");
  at(DRAIN_DEADLINE_MS);
  peer.sendChecked("tick");
  assert.deepEqual(closes, [CLOSE_SLOW_CONSUMER]);
  assert.equal(stats.slowConsumersDropped, 1);
  assert.deepEqual(socket.sent, ["welcome", "tick"]);
});

Deno.test("a socket that drains in time is never closed", () => {
  const { peer, socket, closes, at } = fakePeer(DRAIN_FLOOR_BYTES + 1);
  peer.sendChecked("welcome");
  at(DRAIN_DEADLINE_MS / 2);
  socket.bufferedAmount = 0;
  peer.sendChecked("tick");
  socket.bufferedAmount = DRAIN_FLOOR_BYTES + 1;
  at(DRAIN_DEADLINE_MS);
  peer.sendChecked("tick");
  at(DRAIN_DEADLINE_MS * 1.4);
  peer.sendChecked("tick");
  assert.deepEqual(closes, [], "the clock restarted when it drained");
});

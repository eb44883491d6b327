/**
 * A scene's fan-out budgets on the relay alone (fake sockets, injected clock): whatever the number
 * of people, their reactions reach each of them as at most one `reactions` frame a quarter second,
 * and joins and renames go to everyone at the scene's presence rate, the rest in turn.
 */
import assert from "node:assert/strict";
import type { ServerMessage } from "../../shared/protocol.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { DEFAULT_RATE_LIMITS } from "../../server/config.ts";
import { ServerClock } from "../../server/scene/clock.ts";
import { EventWindow } from "../../server/scene/event_window.ts";
import { Peer } from "../../server/scene/peer.ts";
import { REACTION_FRAME_MS, REACTION_NAMED } from "../../server/scene/reaction_tally.ts";
import { SceneRelay } from "../../server/scene/relay.ts";

class Socket {
  readonly sent: ServerMessage[] = [];
  readyState = 1;
  bufferedAmount = 0;
  send(text: string): void {
    this.sent.push(JSON.parse(text));
  }
  close(): void {
    this.readyState = 3;
  }
}

function peer(id: string): Peer & { socket: Socket } {
  return new Peer({
    id,
    name: id,
    color: "#fff",
    socket: new Socket(),
    limits: DEFAULT_RATE_LIMITS,
    maxBufferedBytes: 1 << 20,
    stats: { messagesSent: 0, slowConsumersDropped: 0 },
  }) as Peer & { socket: Socket };
}

function setup(people: number) {
  const window = new EventWindow(initialSnapshot({ show: false }));
  const source = {
    seed: 9,
    horizon: 0,
    get lastSeq() {
      return window.lastSeq;
    },
    welcomeWindow: (afterSeq: number | undefined) => window.welcome(source.horizon, afterSeq),
    exactTick: () => 0,
    get rules() {
      return window.rules;
    },
  };
  const clock = { ms: 1000 };
  const relay = new SceneRelay({
    scene: "budget-1",
    skyCap: 1000,
    maxPeers: 1000,
    presenceLimit: 1000,
    presencePace: { perSecond: 2, burst: 4 },
    clock: new ServerClock(() => clock.ms, () => clock.ms),
    stats: { historyLost: 0, desyncs: 0, desyncDisconnects: 0 },
    log: () => {},
    onHash: () => {},
  }, source);
  const peers = Array.from({ length: people }, (_, i) => peer(`p${i}`));
  return { relay, peers, clock };
}

const of = (p: { socket: Socket }, t: string) => p.socket.sent.filter((m) => m.t === t);

Deno.test("reactions reach each person as one frame a quarter second, whatever the crowd", () => {
  const { relay, peers, clock } = setup(200);
  for (const p of peers) {
    relay.admit(p);
    relay.hello(p, undefined, undefined);
  }
  // Everyone reacts within one quarter second: the first goes at once, the rest in one frame.
  for (const [i, p] of peers.entries()) {
    clock.ms = 2000 + i;
    assert.equal(relay.react(p, i % 2 ? "🎉" : "✨"), null);
  }
  assert.equal(of(peers[0], "reactions").length, 1, "the first reaction into a quiet scene");
  relay.flush();
  assert.equal(of(peers[0], "reactions").length, 1, "the rest wait for the frame's end");
  clock.ms = 2000 + REACTION_FRAME_MS;
  relay.flush();
  for (const p of peers) assert.equal(of(p, "reactions").length, 2, "two frames in all");
  const frame = of(peers[7], "reactions")[1] as Extract<ServerMessage, { t: "reactions" }>;
  assert.equal(frame.by.length, REACTION_NAMED);
  assert.deepEqual(frame.by[0], { by: "p1", emoji: "🎉" });
  const named = 1 + REACTION_NAMED;
  const counted = frame.more!.reduce((a, b) => a + b, 0);
  assert.equal(named + counted, 200, "every reaction is named or counted");
  clock.ms += 10 * REACTION_FRAME_MS;
  relay.flush();
  assert.equal(of(peers[0], "reactions").length, 2, "nothing more to send");
});

Deno.test("joins and renames reach everyone at the scene's presence rate, the rest in turn", () => {
  const { relay, peers, clock } = setup(8);
  for (const p of peers) {
    relay.admit(p);
    relay.hello(p, undefined, undefined);
  }
  const joins = (p: { socket: Socket }) =>
    of(p, "presence").filter((m) => m.t === "presence" && m.kind === "join").length;
  // A burst of 4: p0 (its join goes to nobody else), p1, p2, p3; the others wait.
  assert.equal(joins(peers[0]), 3);
  const welcome = of(peers[7], "welcome")[0] as Extract<ServerMessage, { t: "welcome" }>;
  assert.equal(welcome.peers.length, 4, "a waiting newcomer is welcomed at once");
  clock.ms += 1000;
  relay.flush();
  assert.equal(joins(peers[0]), 5, "two a second");
  clock.ms += 1000;
  relay.flush();
  assert.equal(joins(peers[0]), 7, "every newcomer announced in turn");
  // Renames share the budget: p1's owner hears at once, the others when a token is back.
  relay.rename(peers[1], "Ana", false);
  relay.rename(peers[2], "Bo", false);
  const renames = (p: { socket: Socket }) =>
    of(p, "presence").filter((m) => m.t === "presence" && m.kind === "rename").length;
  assert.equal(renames(peers[1]), 1, "the owner hears its new name at once");
  assert.equal(renames(peers[2]), 1);
  assert.equal(renames(peers[0]), 0, "the others wait for the budget");
  clock.ms += 500;
  relay.flush();
  assert.equal(renames(peers[0]), 1);
  clock.ms += 500;
  relay.flush();
  assert.equal(renames(peers[0]), 2);
  assert.equal(renames(peers[1]), 2, "its own once (at once), and Bo's");
  // A newcomer that left while waiting is never announced, nor its leave.
  const late = peer("late");
  relay.admit(late);
  relay.hello(late, undefined, undefined);
  relay.leave(late);
  clock.ms += 5000;
  relay.flush();
  assert.equal(
    of(peers[0], "presence").some((m) => m.t === "presence" && m.peer.id === "late"),
    false,
  );
});

/**
 * The relay on its own (fake sockets, injected clock, a stub source): what the single node's room
 * and a cluster edge do alike for their connections.
 */
import assert from "node:assert/strict";
import { CHECKPOINT_TICKS, TICK_RATE } from "../../shared/constants.ts";
import type { PeerInfo, ServerMessage } from "../../shared/protocol.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { DEFAULT_RATE_LIMITS } from "../../server/config.ts";
import { ServerClock } from "../../server/scene/clock.ts";
import { EventWindow } from "../../server/scene/event_window.ts";
import { Peer } from "../../server/scene/peer.ts";
import {
  CLOSE_WRONG_HASHES,
  HASH_MAX_AGE_TICKS,
  type RelayDeps,
  SceneRelay,
} from "../../server/scene/relay.ts";

class Socket {
  readonly sent: ServerMessage[] = [];
  closed: number | undefined;
  readyState = 1;
  bufferedAmount = 0;
  send(text: string): void {
    this.sent.push(JSON.parse(text));
  }
  close(code?: number): void {
    this.closed = code;
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

function setup(overrides: Partial<RelayDeps> = {}) {
  const window = new EventWindow(initialSnapshot({ show: false }));
  const source = {
    seed: 9,
    horizon: 0,
    get lastSeq() {
      return window.lastSeq;
    },
    welcomeWindow: (afterSeq: number | undefined) => window.welcome(source.horizon, afterSeq),
    exactTick: () => source.horizon + 0.5,
    get rules() {
      return window.rules;
    },
  };
  const hashes: [string, number, string][] = [];
  const left: [string, boolean][] = [];
  const logged: string[] = [];
  const stats = { historyLost: 0, desyncs: 0, desyncDisconnects: 0 };
  const relay = new SceneRelay({
    scene: "relay-1",
    skyCap: 1000,
    maxPeers: 3,
    presenceLimit: 2,
    clock: new ServerClock(() => 0, () => 0),
    stats,
    log: (msg) => logged.push(msg),
    onHash: (p, tick, hash) => hashes.push([p.id, tick, hash]),
    onLeave: (p, announced) => left.push([p.id, announced]),
    ...overrides,
  }, source);
  const push = (seq: number, tick: number) =>
    window.push({ seq, tick, by: "x", body: { type: "settings", settings: {} } } as SceneEvent);
  return { relay, source, push, hashes, left, logged, stats };
}

const kinds = (p: { socket: Socket }) =>
  p.socket.sent.map((m) =>
    m.t === "presence" ? `${m.kind} ${m.peer.id}` : m.t === "error" ? `error ${m.code}` : m.t
  );

Deno.test("relay admits up to its limit and welcomes, resumed while the seq is held", () => {
  const { relay, source, push } = setup();
  const [a, b, c, d] = ["a", "b", "c", "d"].map(peer);
  for (const p of [a, b, c]) assert.equal(relay.admit(p), null);
  assert.equal(relay.admit(d)?.code, "room_full");
  push(1, 10);
  push(2, 20);
  source.horizon = 30;
  relay.hello(a, "Ana", undefined);
  const welcome = a.socket.sent[0] as Extract<ServerMessage, { t: "welcome" }>;
  assert.equal(welcome.t, "welcome");
  assert.equal(welcome.horizon, 30);
  assert.equal(welcome.you.name, "Ana");
  assert.deepEqual(welcome.events.map((e) => e.seq), [1, 2]);
  assert.equal(a.joinHorizon, 30);
  relay.hello(b, undefined, 1);
  const resumed = b.socket.sent[0] as Extract<ServerMessage, { t: "welcome" }>;
  assert.equal(resumed.resumed, true);
  assert.deepEqual(resumed.events.map((e) => e.seq), [2]);
  assert.equal(relay.hello(b, undefined, undefined)?.code, "bad_message", "one hello only");
});

Deno.test("relay tells a client the history it remembers is lost, then welcomes it", () => {
  const { relay, push, stats, logged } = setup();
  push(1, 10);
  const a = peer("a");
  relay.admit(a);
  relay.hello(a, undefined, 7);
  assert.deepEqual(kinds(a), ["error history_lost", "welcome"]);
  assert.equal(stats.historyLost, 1);
  assert.match(logged[0], /remembers seq 7 but storage has events up to seq 1/);
});

Deno.test("relay announces within the presence limit, counting people on other nodes", () => {
  const others: PeerInfo[] = [{ id: "far", name: "far", color: "#000" }];
  const { relay, left } = setup({ others: { size: 1, list: () => others } });
  const [a, b, c] = ["a", "b", "c"].map(peer);
  for (const p of [a, b, c]) relay.admit(p);
  relay.hello(a, undefined, undefined);
  relay.hello(b, undefined, undefined);
  const welcomeB = b.socket.sent[0] as Extract<ServerMessage, { t: "welcome" }>;
  assert.deepEqual(welcomeB.peers.map((p) => p.id), ["a", "far"], "limit 2: b is not announced");
  assert.deepEqual(kinds(a), ["welcome"], "nobody told of b");
  relay.leave(a);
  relay.leave(b);
  assert.deepEqual(left, [["a", true], ["b", false]]);
  assert.equal(relay.emptySinceMs, null, "c is still here");
});

Deno.test("relay checks hash reports: checkpoints only, not ahead, not too old", () => {
  const { relay, source, hashes } = setup();
  const a = peer("a");
  relay.admit(a);
  source.horizon = 60 * TICK_RATE;
  relay.hello(a, undefined, undefined);
  a.joinHorizon = 0;
  assert.equal(relay.reportHash(a, CHECKPOINT_TICKS + 1, "h")?.code, "bad_message");
  assert.match(relay.reportHash(a, source.horizon + CHECKPOINT_TICKS, "h")!.message, /future/);
  const old = source.horizon - HASH_MAX_AGE_TICKS - CHECKPOINT_TICKS;
  assert.equal(relay.reportHash(a, old, "h"), null, "ignored, not refused");
  a.joinHorizon = source.horizon;
  assert.equal(relay.reportHash(a, source.horizon - CHECKPOINT_TICKS, "h"), null);
  assert.deepEqual(hashes, [], "too old, or before its welcome: nothing handed on");
  assert.equal(relay.reportHash(a, source.horizon, "h"), null);
  assert.deepEqual(hashes, [["a", source.horizon, "h"]]);
});

Deno.test("relay carries out verdicts: resync with a fresh welcome, or close with 1008", () => {
  const { relay, stats, logged } = setup();
  const [a, b] = ["a", "b"].map(peer);
  for (const p of [a, b]) {
    relay.admit(p);
    relay.hello(p, undefined, undefined);
  }
  relay.act([
    { kind: "resync", peer: "a", tick: 60 },
    { kind: "disconnect", peer: "b", tick: 60, strikes: 3 },
    { kind: "resync", peer: "elsewhere", tick: 60 },
  ]);
  assert.deepEqual(kinds(a).slice(-3), ["resync", "welcome", "leave b"]);
  assert.equal(b.socket.closed, CLOSE_WRONG_HASHES);
  assert.equal(relay.peers.has("b"), false);
  assert.deepEqual(stats, { historyLost: 0, desyncs: 1, desyncDisconnects: 1 });
  assert.match(logged[0], /peer b disconnected: 3 wrong state hashes/);
});

Deno.test("relay sends its status after every welcome and to everyone when it changes", () => {
  const { relay } = setup();
  const [a, b] = ["a", "b"].map(peer);
  relay.admit(a);
  relay.hello(a, undefined, undefined);
  relay.status(JSON.stringify({ t: "status", sky: "paused", message: "paused" }));
  relay.admit(b);
  relay.hello(b, undefined, undefined);
  relay.heartbeat(5);
  assert.deepEqual(kinds(a), ["welcome", "status", "join b", "tick"]);
  assert.deepEqual(kinds(b), ["welcome", "status", "tick"]);
});

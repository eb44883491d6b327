/**
 * Cluster fault test 3: one of the three NATS servers dies (kill -9) while clients on two Snowfire
 * nodes launch into one scene. No event a client saw (the sender's echo is its acknowledgement) is
 * lost from the log, every client sees the same gap-free stream, no event arrives below a horizon
 * already given, and the scene goes on: launches sent after the kill are stamped and heartbeats
 * keep coming. Real processes on loopback (see tests/helpers/nats_cluster.ts).
 */
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import type { ServerMessage } from "../shared/protocol.ts";
import { eventually, sleep, TestClient } from "./helpers/server_harness.ts";
import {
  requireNats,
  type SnowfireNode,
  startNatsCluster,
  startSnowfireNode,
} from "./helpers/nats_cluster.ts";

type EventMessage = Extract<ServerMessage, { t: "event" }>;

const NAME = "cluster: killing one of three NATS servers under traffic loses no acknowledged event";
const SCENE = "natskill";
/** Per client; the default per-connection limit is 4/s with a burst of 8. */
const LAUNCH_EVERY_MS = 400;
const BEFORE_KILL_MS = 2500;
const AFTER_KILL_MS = 6000;

/** A client that launches on a timer and remembers which of its launches came back stamped. */
class Launcher {
  readonly client: TestClient;
  readonly id: string;
  readonly index: number;
  /** (x, z) keys sent, with the time sent. */
  readonly sent = new Map<string, number>();
  /** Largest heartbeat seen before each received event, for the horizon check. */
  readonly horizonViolations: string[] = [];
  #timer: ReturnType<typeof setInterval> | undefined;
  #count = 0;
  #horizon = 0;

  constructor(client: TestClient, id: string, index: number, horizon: number) {
    this.client = client;
    this.id = id;
    this.index = index;
    this.#horizon = horizon;
    client.socket.addEventListener("message", (e) => {
      const m = JSON.parse(e.data as string) as ServerMessage;
      if (m.t === "tick") this.#horizon = Math.max(this.#horizon, m.n);
      if (m.t === "event" && m.tick < this.#horizon) {
        this.horizonViolations.push(`seq ${m.seq} tick ${m.tick} after heartbeat ${this.#horizon}`);
      }
    });
  }

  start(): void {
    this.#timer = setInterval(() => {
      // A unique point per launch: x by client, z by count (0.25 m apart).
      const x = -40 + this.index * 10;
      const z = -44 + this.#count++ * 0.25;
      this.sent.set(key(x, z), performance.now());
      this.client.send({ t: "launch", x, z });
    }, LAUNCH_EVERY_MS);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Keys of this client's launches that came back as events (acknowledged). */
  acknowledged(): Set<string> {
    const keys = new Set<string>();
    for (const e of this.client.events()) {
      if (e.by === this.id && e.body.type === "launch") keys.add(key(e.body.x, e.body.z));
    }
    return keys;
  }
}

function key(x: number, z: number): string {
  return `${x.toFixed(2)},${z.toFixed(2)}`;
}

function summary(e: EventMessage): string {
  return JSON.stringify([e.seq, e.tick, e.by, e.body]);
}

async function readLog(node: SnowfireNode, scene: string): Promise<EventMessage[]> {
  const events: EventMessage[] = [];
  let from: number | null = 1;
  while (from !== null) {
    const response: Response = await fetch(
      `${node.url}/api/scenes/${scene}/log?from=${from}&limit=5000`,
    );
    assert.equal(response.status, 200);
    const page = await response.json() as { events: EventMessage[]; next: number | null };
    events.push(...page.events);
    from = page.next;
  }
  return events;
}

Deno.test({ name: NAME, ignore: !requireNats(NAME) }, async (t) => {
  const nats = await startNatsCluster({ size: 3 });
  const nodes: SnowfireNode[] = [];
  const launchers: Launcher[] = [];
  try {
    for (const nodeId of ["kill-a", "kill-b"]) {
      nodes.push(
        await startSnowfireNode({
          natsUrls: nats.urls,
          nodeId,
          env: { NATS_REPLICAS: "3", LEASE_TTL_MS: "2000" },
        }),
      );
    }
    for (let i = 0; i < 4; i++) {
      const node = nodes[i % 2];
      const { client, welcome } = await TestClient.join(node.url, SCENE, { name: `c${i}` });
      if (i === 0) client.send({ t: "settings", settings: { show: false } });
      launchers.push(new Launcher(client, welcome.you.id, i, welcome.horizon));
    }

    // The stream leader is the hardest server to lose: JetStream elects a new one.
    const nc = await connect({ servers: nats.urls });
    let victim: number;
    try {
      const jsm = await jetstreamManager(nc);
      const streams = await jsm.streams.list().next();
      const log = streams.find((s) => s.config.subjects?.some((x) => x.startsWith("snowfire.log")));
      assert.ok(log, "the nodes created their log stream");
      const leader = log.cluster?.leader;
      victim = nats.servers.findIndex((s) => s.name === leader);
      assert.ok(victim >= 0, `stream leader ${leader} is one of the three servers`);
    } finally {
      await nc.close();
    }

    for (const launcher of launchers) launcher.start();
    await sleep(BEFORE_KILL_MS);
    const seenBeforeKill = Math.max(
      ...launchers.map((l) => l.client.events().at(-1)?.seq ?? 0),
    );
    const ticksBeforeKill = launchers[0].client.messages.filter((m) => m.t === "tick").length;
    await nats.kill(victim, "SIGKILL");
    const killedAt = performance.now();
    await sleep(AFTER_KILL_MS);
    for (const launcher of launchers) launcher.stop();

    await t.step("launches before the kill were acknowledged", () => {
      assert.ok(seenBeforeKill >= 8, `only ${seenBeforeKill} events before the kill`);
    });

    await t.step(
      "the scene goes on after the kill: new launches stamped, heartbeats flow",
      async () => {
        await eventually(
          "a launch sent after the kill comes back",
          () =>
            launchers.some((l) =>
              [...l.acknowledged()].some((k) => (l.sent.get(k) ?? 0) > killedAt + 500)
            ),
          15_000,
        );
        const ticksNow = launchers[0].client.messages.filter((m) => m.t === "tick").length;
        assert.ok(ticksNow > ticksBeforeKill + 20, `heartbeats ${ticksBeforeKill} -> ${ticksNow}`);
      },
    );

    // Every launch is answered: stamped (echoed to everyone) or refused to its sender.
    const sentTotal = launchers.reduce((n, l) => n + l.sent.size, 0);
    await eventually(
      "every launch is acknowledged or refused",
      () => launchers.every((l) => l.acknowledged().size + l.client.errors().length >= l.sent.size),
      20_000,
    ).catch(() => {});
    const lastSeq = Math.max(...launchers.map((l) => l.client.events().at(-1)?.seq ?? 0));
    await eventually(
      `every client has every event up to seq ${lastSeq}`,
      () => launchers.every((l) => (l.client.events().at(-1)?.seq ?? 0) >= lastSeq),
      15_000,
    );

    await t.step("every client saw the same gap-free stream, never below a given horizon", () => {
      const reference = launchers[0].client.events();
      assert.deepEqual(reference.map((e) => e.seq), reference.map((_, i) => i + 1));
      for (const l of launchers) {
        assert.deepEqual(l.client.events().map(summary), reference.map(summary));
        assert.deepEqual(l.horizonViolations, []);
      }
    });

    await t.step("every acknowledged launch is in the log, on either node", async () => {
      const seen = launchers[0].client.events();
      for (const node of nodes) {
        const log = await readLog(node, SCENE);
        assert.deepEqual(
          log.slice(0, seen.length).map(summary),
          seen.map(summary),
          `log on ${node.nodeId}`,
        );
      }
      const acknowledged = launchers.reduce((n, l) => n + l.acknowledged().size, 0);
      const refused = launchers.reduce((n, l) => n + l.client.errors().length, 0);
      assert.equal(acknowledged + refused, sentTotal, "every launch was answered");
      // One NATS server of three is lost, a majority is left: the sky pauses at most briefly.
      assert.ok(acknowledged >= sentTotal * 0.5, `${acknowledged} of ${sentTotal} stamped`);
    });
  } finally {
    for (const launcher of launchers) {
      launcher.stop();
      await launcher.client.close();
    }
    for (const node of nodes) await node.stop();
    await nats.stop();
  }
});

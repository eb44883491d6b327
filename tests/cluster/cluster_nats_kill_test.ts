/**
 * Cluster fault test 3: one of the three NATS servers dies (kill -9) while clients on two Snowfire
 * nodes launch into one scene. No event a client saw (the sender's echo is its acknowledgement) is
 * lost from the log, every client sees the same gap-free stream, no event arrives below a horizon
 * already given, and the scene goes on: launches sent after the kill are stamped and heartbeats
 * keep coming. Real processes on loopback (see testing/nats_cluster.ts).
 */
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import { TICK_RATE } from "../../shared/constants.ts";
import type { ServerMessage } from "../../shared/protocol.ts";
import {
  requireNats,
  type SnowfireNode,
  startNatsCluster,
  startSnowfireNode,
} from "../../testing/nats_cluster.ts";
import { TestClient } from "../../testing/test_client.ts";
import { eventually } from "../../testing/wait.ts";
import { SkyGaps } from "../../testing/sky_gaps.ts";

type EventMessage = Extract<ServerMessage, { t: "event" }>;

const NAME = "cluster: killing one of three NATS servers under traffic loses no acknowledged event";
const SCENE = "natskill";
/** Per client; the default per-connection limit is 4/s with a burst of 8. */
const LAUNCH_EVERY_MS = 400;
/** Events every client has before the kill (the traffic is flowing through the cluster). */
const EVENTS_BEFORE_KILL = 8;
/**
 * Takeover after a lost stream leader: JetStream elects new stream and KV leaders (measured 5–15 s
 * on this 2-core machine under other load) and some consumer creations time out meanwhile.
 */
const RECOVERY_MS = 30_000;
/**
 * The leader is stopped (SIGSTOP) this long before its kill, so appends sent to it meanwhile are
 * in flight at the kill (their outcome in doubt until JetStream elects a new leader): at ten
 * launches a second, spread over the interval, 500 ms holds about five. `NATS_KILL_STOP_MS=0` kills at once (an append is
 * then in flight only by chance: 3 runs in 22 before the journal).
 */
const STOP_BEFORE_KILL_MS = Number(Deno.env.get("NATS_KILL_STOP_MS") ?? 500);
/** The longest a surviving client's sky may stand still, from the leader's stop (issue 33). */
const MAX_PAUSE_MS = 2000;

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
  #start: ReturnType<typeof setTimeout> | undefined;
  #count = 0;
  #horizon = 0;

  /** Largest heartbeat seen. */
  get horizon(): number {
    return this.#horizon;
  }

  /** Seq of the last event received (0 when none). */
  lastSeq(): number {
    return this.stream().at(-1)?.seq ?? 0;
  }

  /** Every event this client has: its welcome's, then those relayed live (by seq, no repeats). */
  stream(): EventMessage[] {
    const bySeq = new Map<number, EventMessage>();
    for (const e of [...this.welcomed, ...this.client.events()]) {
      if (!bySeq.has(e.seq)) bySeq.set(e.seq, e);
    }
    return [...bySeq.values()];
  }

  /** True once a launch this client sent after `time` came back stamped. */
  acknowledgedAfter(time: number): boolean {
    for (const k of this.acknowledged()) if ((this.sent.get(k) ?? 0) > time) return true;
    return false;
  }

  constructor(
    client: TestClient,
    id: string,
    index: number,
    horizon: number,
    readonly welcomed: EventMessage[],
  ) {
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
    // Staggered: the clients' launches spread over the interval, not all at one instant (a stop
    // of the leader shorter than the interval then held none, or all of them).
    this.#start = setTimeout(() => this.#launchEvery(), this.index * (LAUNCH_EVERY_MS / 4));
  }

  #launchEvery(): void {
    this.#timer = setInterval(() => {
      // A unique point per launch: x by client, z by count (0.25 m apart).
      const x = -40 + this.index * 10;
      const z = -44 + this.#count++ * 0.25;
      this.sent.set(key(x, z), performance.now());
      this.client.submit({ type: "launch", x, z });
    }, LAUNCH_EVERY_MS);
  }

  stop(): void {
    clearTimeout(this.#start);
    clearInterval(this.#timer);
  }

  /**
   * Sends one more launch (after `stop`); true from when it came back stamped or refused. A
   * client's submits are stamped in the order sent, so by then none of its earlier ones is still
   * in flight.
   */
  sendLast(): () => boolean {
    const x = -40 + this.index * 10;
    const z = -44 + this.#count++ * 0.25;
    const refusedBefore = this.client.errors().length;
    this.sent.set(key(x, z), performance.now());
    this.client.submit({ type: "launch", x, z });
    return () => this.acknowledged().has(key(x, z)) || this.client.errors().length > refusedBefore;
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
    const url = `${node.url}/api/scenes/${scene}/log?from=${from}&limit=5000`;
    let response: Response = await fetch(url);
    // Right after a server is lost a JetStream request may still time out (an error status):
    // the route may fail then, but never answer wrongly. Asked again while JetStream may still
    // be electing leaders (RECOVERY_MS; CI once saw timeouts for 12 s after the traffic ended).
    if (response.status !== 200) {
      await eventually("the log route answers 200", async () => {
        await response.body?.cancel();
        response = await fetch(url);
        return response.status === 200;
      }, RECOVERY_MS).catch(() => {}); // the status is asserted below
    }
    if (response.status !== 200) assert.fail(`${response.status}: ${await response.text()}`);
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
  const gaps: SkyGaps[] = [];
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
      const welcomed = welcome.events.map((e) => ({ t: "event" as const, ...e }));
      launchers.push(new Launcher(client, welcome.you.id, i, welcome.horizon, welcomed));
      gaps.push(new SkyGaps(client));
    }

    // Only the test's launches: the show off (retried until the owner is there to stamp it, at
    // most twice a second: faster, a slow round trip under load spends the settings budget and
    // the refusals are rate_limited, not paused).
    let askedMs = -Infinity;
    await eventually("the show is turned off", () => {
      const settings = launchers[0].stream().some((e) => e.body.type === "settings");
      if (!settings && performance.now() - askedMs >= 500) {
        askedMs = performance.now();
        launchers[0].client.submit({ type: "settings", settings: { show: false } });
      }
      return settings;
    }, 15_000).catch(() => {});

    // The stream leader is the hardest server to lose: JetStream elects a new one.
    const nc = await connect({ servers: nats.urls, ...nats.auth });
    let victim: number;
    try {
      const jsm = await jetstreamManager(nc);
      const streams = await jsm.streams.list().next();
      const log = streams.find((s) => s.config.subjects?.some((x) => x.startsWith("snowfire.log")));
      assert.ok(log, "the nodes created their log stream");
      const leader = log.cluster?.leader;
      victim = nats.servers.findIndex((s) => s.name === leader);
      console.log(
        `leaders: ${streams.map((s) => `${s.config.name} ${s.cluster?.leader}`).join(", ")}; ` +
          `killing ${leader} (port ${nats.servers[victim]?.port})`,
      );
      assert.ok(victim >= 0, `stream leader ${leader} is one of the three servers`);
    } finally {
      await nc.close();
    }

    let failed = false;
    const step = async (name: string, fn: () => void | Promise<void>) => {
      if (!(await t.step(name, fn))) failed = true;
    };
    try {
      for (const launcher of launchers) launcher.start();
      await eventually(
        `${EVENTS_BEFORE_KILL} events stamped before the kill`,
        () => launchers.every((l) => l.lastSeq() >= EVENTS_BEFORE_KILL),
        15_000,
      ).catch(() => {}); // the step below says how many there were
      const seenBeforeKill = Math.max(...launchers.map((l) => l.lastSeq()));
      const horizonsAtKill = launchers.map((l) => l.horizon);
      const stoppedAt = performance.now();
      if (STOP_BEFORE_KILL_MS > 0) {
        await nats.kill(victim, "SIGSTOP");
        // Stopped until as many launches went to it as the traffic sends in STOP_BEFORE_KILL_MS.
        const held = Math.max(
          1,
          Math.floor(STOP_BEFORE_KILL_MS * launchers.length / LAUNCH_EVERY_MS),
        );
        const sentSinceStop = () =>
          launchers.reduce(
            (n, l) => n + [...l.sent.values()].filter((at) => at >= stoppedAt).length,
            0,
          );
        await eventually(
          `${held} launches sent to the stopped leader`,
          () => sentSinceStop() >= held,
        );
      }
      await nats.kill(victim, "SIGKILL");
      const killedAt = performance.now();

      const during = launchers.flatMap((l) =>
        [...l.sent].filter(([, at]) => at >= stoppedAt && at < killedAt).map(([k]) =>
          [l, k] as const
        )
      );
      const stampedDuring = () => during.filter(([l, k]) => l.acknowledged().has(k)).length;
      await step("launches before the kill were acknowledged", () => {
        assert.ok(
          seenBeforeKill >= EVENTS_BEFORE_KILL,
          `only ${seenBeforeKill} events before the kill`,
        );
      });

      await step("the scene goes on: launches sent after the kill are stamped", async () => {
        await eventually(
          "every client got back a launch it sent after the kill",
          () => launchers.every((l) => l.acknowledgedAfter(killedAt)),
          RECOVERY_MS,
        );
        const pauses = gaps.map((g) => Math.round(g.longest(stoppedAt - 1000, performance.now())));
        console.log(
          `launches sent while the leader was stopped: ${during.length}, stamped ${stampedDuring()}; ` +
            `sky live again ${Math.round(performance.now() - killedAt)} ms after the kill ` +
            `(stopped ${STOP_BEFORE_KILL_MS} ms before it); each client's sky stood still at ` +
            `most ${pauses.join(", ")} ms`,
        );
        assert.ok(Math.max(...pauses) <= MAX_PAUSE_MS, `sky paused ${Math.max(...pauses)} ms`);
      });
      // A little more traffic on the recovered cluster, then quiet.
      const recovered = performance.now();
      await eventually(
        "every client got back a launch it sent on the recovered cluster",
        () => launchers.every((l) => l.acknowledgedAfter(recovered)),
        RECOVERY_MS,
      );
      for (const launcher of launchers) launcher.stop();
      // Submits still in flight (an edge waits up to 2.5 s for the owner) land or fail before
      // each client's last one is answered.
      const answered = launchers.map((l) => l.sendLast());
      await eventually(
        "every client's last launch was stamped or refused",
        () => answered.every((done) => done()),
        10_000,
      );

      await step("heartbeats flow again on both nodes", async () => {
        await eventually(
          "every client's horizon moved on by a second past its value at the kill",
          () => launchers.every((l, i) => l.horizon > horizonsAtKill[i] + TICK_RATE),
          RECOVERY_MS,
        );
      });

      const lastSeq = Math.max(...launchers.map((l) => l.lastSeq()));
      await eventually(
        `every client has every event up to seq ${lastSeq}`,
        () => launchers.every((l) => l.lastSeq() >= lastSeq),
        10_000,
      ).catch(() => {});

      await step("every client saw the same gap-free stream, never below a given horizon", () => {
        const reference = launchers[0].stream();
        assert.deepEqual(reference.map((e) => e.seq), reference.map((_, i) => i + 1));
        for (const l of launchers) {
          assert.deepEqual(l.stream().map(summary), reference.map(summary));
          assert.deepEqual(l.horizonViolations, []);
        }
      });

      await step("the log on either node holds exactly the events clients got", async () => {
        const seen = launchers[0].stream().map(summary);
        for (const node of nodes) {
          assert.deepEqual(
            (await readLog(node, SCENE)).map(summary),
            seen,
            `log on ${node.nodeId}`,
          );
        }
      });

      await step("launches not stamped were refused as paused or sky_full (nothing else)", () => {
        // Refusals are coalesced per connection (one notice per interval, "and N more"), so they
        // cannot be counted one by one; what matters is that no stamped launch went missing
        // (the steps above) and that the refusals say why: the outage (`paused`), or the sky's
        // fair share (five places at 2.5 launches a second each come near their fifth of the
        // sky; a CI run beside other cluster tests saw `sky_full`).
        for (const l of launchers) {
          for (const e of l.client.errors()) {
            assert.ok(e.code === "paused" || e.code === "sky_full", `${e.code}: ${e.message}`);
          }
        }
      });
    } catch (e) {
      failed = true;
      throw e;
    } finally {
      // Real processes: what they printed is the only clue when this fails in CI.
      if (failed || Deno.env.get("KILL_DEBUG")) {
        for (const node of nodes) console.log(`--- ${node.nodeId}:\n${node.output().slice(-4000)}`);
      }
    }
  } finally {
    for (const launcher of launchers) {
      launcher.stop();
      await launcher.client.close();
    }
    for (const node of nodes) await node.stop();
    await nats.stop();
  }
});

/**
 * Cluster fault test: the owner dies while its appends are in doubt. The NATS server leading the
 * log stream stops (SIGSTOP: appends sent to it hang, unanswered), so the owner writes them into
 * the scene record and its clients see them (`JetStreamSceneLog.journal`); then the owner's node
 * and the stopped server are killed. The node taking the scene over must append those events from
 * the record before anything else: every event a surviving client saw is in the log exactly once,
 * at its seq, and the scene goes on without a gap. Real processes on loopback
 * (testing/nats_cluster.ts).
 */
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import type { ServerMessage } from "../../shared/protocol.ts";
import type { SceneEvent } from "../../shared/types.ts";
import {
  requireNats,
  type SnowfireNode,
  startNatsCluster,
  startSnowfireNode,
} from "../../testing/nats_cluster.ts";
import { TestClient } from "../../testing/test_client.ts";
import { auditStream, eventsOf } from "../../testing/cluster_streams.ts";
import { eventually } from "../../testing/wait.ts";

const NAME = "cluster: an owner killed with appends in doubt leaves them to its successor";
const SCENE = "doubt";
const LAUNCH_EVERY_MS = 300;

type Welcome = Extract<ServerMessage, { t: "welcome" }>;

/** The scene's log as `node` serves it, once it answers 200 (it may refuse while settling). */
async function logOf(node: SnowfireNode): Promise<SceneEvent[]> {
  const url = `${node.url}/api/scenes/${SCENE}/log?from=1&limit=5000`;
  let events: SceneEvent[] | undefined;
  let status = 0;
  try {
    await eventually("the log answers 200", async () => {
      const response = await fetch(url);
      status = response.status;
      if (response.status !== 200) {
        await response.body?.cancel();
        return false;
      }
      events = (await response.json() as { events: SceneEvent[] }).events;
      return true;
    }, 10_000);
  } catch {
    assert.fail(`log: ${status}`);
  }
  return events!;
}

Deno.test({ name: NAME, ignore: !requireNats(NAME) }, async (t) => {
  const nats = await startNatsCluster({ size: 3 });
  const nodes: SnowfireNode[] = [];
  const clients: { client: TestClient; welcome: Welcome }[] = [];
  const timers: ReturnType<typeof setInterval>[] = [];
  let failed = false;
  try {
    const env = { NATS_REPLICAS: "3", LEASE_TTL_MS: "2000" };
    // Node m (all servers) makes the log stream; node a, the owner, and node b, the survivor
    // that holds the launchers, talk only to the two servers that do not lead it, so the
    // leader's stop leaves their connections untouched: a's appends simply go unanswered (it
    // finds them in doubt by their age) while b's launches still reach it. (With b on all
    // servers, CI once had b's own connection on the stopped server: no launch reached a.)
    const maker = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "doubt-m", env });
    nodes.push(maker);
    const logLeader = async () => {
      const nc = await connect({ servers: nats.urls, ...nats.auth });
      try {
        const streams = await (await jetstreamManager(nc)).streams.list().next();
        return streams.find((s) => s.config.subjects?.some((x) => x.startsWith("snowfire.log")))
          ?.cluster?.leader;
      } finally {
        await nc.close();
      }
    };
    const leader = await logLeader();
    const victim = nats.servers.findIndex((s) => s.name === leader);
    assert.ok(victim >= 0, "the log stream has a leader");
    const others = nats.urls.filter((_, i) => i !== victim);
    const owner = await startSnowfireNode({ natsUrls: others, nodeId: "doubt-a", env });
    nodes.push(owner);
    const survivor = await startSnowfireNode({ natsUrls: others, nodeId: "doubt-b", env });
    nodes.push(survivor);
    // The first viewer makes node a the owner; the launchers are on node b, which survives.
    // (A cluster this young may still move a bucket's leader, failing a first open: join again.)
    const join = async (url: string, name?: string) => {
      for (let attempt = 0;; attempt++) {
        try {
          return await TestClient.join(url, SCENE, name ? { name } : {});
        } catch (e) {
          if (attempt === 2) throw e;
        }
      }
    };
    clients.push(await join(owner.url, "host"));
    await eventually("node a owns the scene", () => owner.output().includes("owns doubt"), 15_000);
    const launchers: { client: TestClient; welcome: Welcome }[] = [];
    for (let i = 0; i < 3; i++) launchers.push(await join(survivor.url));
    clients.push(...launchers);
    clients[0].client.submit({ type: "settings", settings: { show: false } });

    launchers.forEach(({ client }, i) => {
      let n = 0;
      timers.push(setInterval(() => {
        client.submit({ type: "launch", x: -30 + i * 10, z: -40 + n++ * 0.25 });
      }, LAUNCH_EVERY_MS));
    });
    const stamped = () =>
      Math.max(...launchers.map(({ client, welcome }) => eventsOf(welcome, client).length));
    await eventually("launches are stamped before the stop", () => stamped() > 2, 10_000).catch(
      () =>
        assert.fail(
          `launches stamped before the stop: ${stamped()}; ` +
            JSON.stringify(launchers.flatMap(({ client }) => client.errors()).slice(0, 3)),
        ),
    );
    assert.equal(await logLeader(), nats.servers[victim].name, "the log's leader stayed");
    await nats.kill(victim, "SIGSTOP");
    await eventually(
      "the owner wrote appends in doubt to the record",
      () => owner.output().includes("in doubt; writing them to the record"),
      10_000,
    );
    // Its clients get the events in doubt once written (a heartbeat or two later): wait until
    // they have the first one the owner found in doubt.
    const firstInDoubt = Number(
      owner.output().match(/appends from seq (\d+) in doubt; writing them to the record/)?.[1],
    );
    assert.ok(firstInDoubt > 0, "the owner said which seq is the first in doubt");
    await eventually(
      `the clients got seq ${firstInDoubt}, the first in doubt`,
      () =>
        launchers.every(({ client, welcome }) =>
          (eventsOf(welcome, client).at(-1)?.seq ?? 0) >= firstInDoubt
        ),
      10_000,
    );
    const seenBefore = Math.max(
      ...launchers.map(({ client, welcome }) => eventsOf(welcome, client).at(-1)?.seq ?? 0),
    );
    await owner.kill("SIGKILL");
    await nats.kill(victim, "SIGKILL");

    const step = async (name: string, fn: () => void | Promise<void>) => {
      if (!(await t.step(name, fn))) failed = true;
    };
    await step("the successor appends the record's pending events", async () => {
      await eventually(
        "node b appended pending events from the record",
        () => survivor.output().includes("appended pending seq"),
        30_000,
      );
    });
    await step("the scene goes on past the events in doubt", async () => {
      await eventually(
        "every surviving client got events stamped by the successor",
        () =>
          launchers.every(({ client, welcome }) =>
            eventsOf(welcome, client).length > seenBefore + 3
          ),
        20_000,
      );
    });
    for (const timer of timers) clearInterval(timer);
    // Nothing else stores events (the show is off), and each person's submits are stamped in
    // order: once every client has every launcher's last launch, made after its timer stopped,
    // no launch is in flight. The log then has to reach the last seq the clients saw.
    launchers.forEach(({ client }, i) => client.submit({ type: "launch", x: 40 + i, z: 40 }));
    const isLast = (e: SceneEvent, i: number) =>
      e.body.type === "launch" && e.body.x === 40 + i && e.body.z === 40;
    await eventually(
      "every client has every launcher's last launch",
      () =>
        launchers.every(({ client, welcome }) => {
          const seen = eventsOf(welcome, client);
          return launchers.every((_, i) => seen.some((e) => isLast(e, i)));
        }),
      10_000,
    );
    const seenLast = Math.max(
      ...launchers.map(({ client, welcome }) => eventsOf(welcome, client).at(-1)?.seq ?? 0),
    );

    await step("every event a client saw is in the log once, at its seq", async () => {
      let log: SceneEvent[] = [];
      await eventually(`the log reaches seq ${seenLast}`, async () => {
        log = await logOf(survivor);
        return (log.at(-1)?.seq ?? 0) >= seenLast;
      }, 10_000);
      assert.deepEqual(log.map((e) => e.seq), log.map((_, i) => i + 1), "log seqs gap-free");
      const logged = new Map(log.map((e) => [e.seq, JSON.stringify(e)]));
      for (const { client, welcome } of launchers) {
        const seen = eventsOf(welcome, client);
        for (const e of seen) assert.equal(logged.get(e.seq), JSON.stringify(e), `seq ${e.seq}`);
        assert.deepEqual(auditStream(client.messages).violations, []);
      }
      const launches = log.filter((e) => e.body.type === "launch").map((e) =>
        JSON.stringify(e.body)
      );
      assert.equal(new Set(launches).size, launches.length, "no launch stored twice");
      assert.ok(seenBefore > 0 && log.length > seenBefore, `${log.length} events in the log`);
    });
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    for (const timer of timers) clearInterval(timer);
    if (failed || Deno.env.get("KILL_DEBUG")) {
      for (const node of nodes) console.log(`--- ${node.nodeId}:\n${node.output().slice(-4000)}`);
    }
    for (const { client } of clients) await client.close();
    for (const node of nodes) await node.stop();
    await nats.stop();
  }
});

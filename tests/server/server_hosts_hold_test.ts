/**
 * Hosts that hold, over real WebSockets on a single node: `grant` names a person in the scene (a
 * made-up peer id is refused), a co-host's grants cannot push the founder's key or host right out
 * (keys are capped per host), a host's new host link makes their older key stop working, and a
 * mute follows the browser's person token to a new connection.
 */
import assert from "node:assert/strict";
import type { ServerMessage } from "../../shared/protocol.ts";
import { MAX_KEYS_PER_HOST } from "../../shared/rules.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";

type HostFrame = Extract<ServerMessage, { t: "host" }>;
const isHostFrame = (m: ServerMessage): m is HostFrame => m.t === "host";
/** A browser's person token, as a page mints it (22 base64url characters). */
const token = (c: string) => c.repeat(22);
const hostEvent = (peer: string) => (m: ServerMessage) =>
  m.t === "event" && m.body.type === "rules" && m.body.do === "host" && m.body.peer === peer;
const forbidden = (m: ServerMessage) => m.t === "error" && m.code === "forbidden";

/** Connects, claims `key`, and says whether the server stamped host rights for it. */
async function claims(url: string, scene: string, key: string): Promise<boolean> {
  const { client, welcome } = await TestClient.join(url, scene);
  try {
    client.send({ t: "host", action: { do: "claim", key } });
    const answer = await client.waitFor((m) => hostEvent(welcome.you.id)(m) || forbidden(m));
    return answer.t === "event";
  } finally {
    await client.close();
  }
}

Deno.test("hosts hold: grants name present people, the founder stays, links can be renewed", async (t) => {
  const server = await startTestServer({
    refusalNoticeMs: 0,
    rateLimits: { settings: { perSecond: 500, burst: 500 } },
    eventsPerMinute: 10_000,
  });
  const scene = "held-hosts-1";
  const open: TestClient[] = [];
  try {
    const { client: ana } = await TestClient.join(server.url, scene);
    const anaKey = ((await ana.waitFor(isHostFrame)) as HostFrame).key!;
    const { client: bo, welcome: boWelcome } = await TestClient.join(server.url, scene);
    open.push(ana, bo);
    ana.send({ t: "host", action: { do: "grant", peer: boWelcome.you.id } });
    const boKey = ((await bo.waitFor(isHostFrame)) as HostFrame).key!;

    await t.step("a grant to someone not in the scene is refused", async () => {
      // The attack of issue 33: 66 grants of made-up ids pushed every real key out.
      for (let i = 0; i < 66; i++) {
        bo.send({ t: "host", action: { do: "grant", peer: `p-made-up-${i}` } });
      }
      const refusals = await bo.waitForCount(forbidden, 66, 10_000);
      assert.match((refusals[0] as { message: string }).message, /not in this scene/);
      assert.ok(await claims(server.url, scene, anaKey), "the founder's key still works");
    });

    await t.step("a co-host's grants to present people cost only their own keys", async () => {
      const guests = [];
      for (let i = 0; i < MAX_KEYS_PER_HOST + 2; i++) {
        const guest = await TestClient.join(server.url, scene);
        open.push(guest.client);
        guests.push(guest);
      }
      const keys: string[] = [];
      for (const guest of guests) {
        bo.send({ t: "host", action: { do: "grant", peer: guest.welcome.you.id } });
        keys.push(((await guest.client.waitFor(isHostFrame)) as HostFrame).key!);
      }
      assert.equal(await claims(server.url, scene, keys[0]), false, "bo's oldest grant forgotten");
      assert.ok(await claims(server.url, scene, keys.at(-1)!), "bo's newest grant kept");
      assert.ok(await claims(server.url, scene, anaKey), "the founder's key still works");
      assert.ok(await claims(server.url, scene, boKey), "bo's own key still works");
    });

    await t.step("a co-host cannot mute or remove the founder", async () => {
      const before = bo.messages.filter(forbidden).length;
      const anaId = ana.messages.find((m) => m.t === "welcome")!;
      const id = (anaId as Extract<ServerMessage, { t: "welcome" }>).you.id;
      bo.send({ t: "host", action: { do: "remove", peer: id } });
      bo.send({ t: "host", action: { do: "mute", peer: id, on: true } });
      await bo.waitForCount(forbidden, before + 2);
    });

    await t.step("a new host link makes the older key stop working", async () => {
      // A second connection holding ana's key (a copy of her link) loses host rights with it.
      const { client: copy, welcome: copyWelcome } = await TestClient.join(server.url, scene);
      open.push(copy);
      copy.send({ t: "host", action: { do: "claim", key: anaKey } });
      await copy.waitFor(hostEvent(copyWelcome.you.id));
      const keysBefore = ana.messages.filter(isHostFrame).length;
      ana.send({ t: "host", action: { do: "rekey" } });
      const frames = await ana.waitForCount(isHostFrame, keysBefore + 1);
      const newKey = (frames.at(-1) as HostFrame).key!;
      assert.ok(newKey && newKey !== anaKey);
      const rekey = await copy.waitFor((m) =>
        m.t === "event" && m.body.type === "rules" && m.body.do === "rekey"
      );
      // (With the connections that claimed the key earlier and left.)
      assert.ok((rekey as { body: { drop: string[] } }).body.drop.includes(copyWelcome.you.id));
      assert.ok(!JSON.stringify(rekey).includes('"key"'), "no key hash reaches anyone");
      copy.send({ t: "host", action: { do: "lock", lock: "everyone" } });
      await copy.waitFor(forbidden);
      assert.equal(await claims(server.url, scene, anaKey), false, "the old link is dead");
      assert.ok(await claims(server.url, scene, newKey), "the new link works");
    });

    await t.step("a mute follows the person token to a new connection", async () => {
      const cy = await TestClient.join(server.url, scene, { person: token("c") });
      open.push(cy.client);
      ana.send({ t: "host", action: { do: "mute", peer: cy.welcome.you.id, on: true } });
      await cy.client.waitFor((m) =>
        m.t === "event" && m.body.type === "rules" && m.body.do === "mute"
      );
      await cy.client.close();
      const again = await TestClient.join(server.url, scene, { person: token("c") });
      open.push(again.client);
      again.client.submit({ type: "launch", x: 0, z: 0 });
      await again.client.waitFor((m) => m.t === "error" && m.code === "muted");
      again.client.send({ t: "react", emoji: "🎉" });
      await again.client.waitForCount((m) => m.t === "error" && m.code === "muted", 2);
      // Unmuting the new connection unmutes the person.
      ana.send({ t: "host", action: { do: "mute", peer: again.welcome.you.id, on: false } });
      await again.client.waitFor((m) =>
        m.t === "event" && m.body.type === "rules" && m.body.do === "mute" && !m.body.on
      );
      again.client.submit({ type: "launch", x: 0, z: 0 });
      await again.client.waitFor((m) => m.t === "event" && m.by === again.welcome.you.id);
      const log = await (await fetch(`${server.url}/api/scenes/${scene}/log?from=1`)).text();
      assert.ok(log.includes('"do":"rekey"') && log.includes('"do":"mute"'));
      assert.ok(!/[0-9a-f]{64}/.test(log), "no key or person hashes in the log API");
    });
  } finally {
    for (const client of open) await client.close();
    await server.close();
  }
});

/**
 * Hosts over real WebSockets on a single node: the creator's key reaches the creator alone,
 * guests are refused what the rules forbid with clear codes, a grant's key goes to its peer alone,
 * a removed person is closed, and after a restart a kept key proves host rights again. Quick
 * reactions reach everyone, within their rate, not from muted people; a removed person stays out
 * when the same browser (person token) comes back, also after a restart. (The rules themselves
 * are checked against both logs by testing/scene_contract.ts.)
 */
import assert from "node:assert/strict";
import type { ServerMessage } from "../../shared/protocol.ts";
import { applyRules, rulesOf } from "../../shared/rules.ts";
import { hashPerson } from "../../server/scene/host_keys.ts";
import { TestClient } from "../../testing/test_client.ts";
import { eventually } from "../../testing/wait.ts";
import { startTestServer } from "../../testing/test_server.ts";

type HostFrame = Extract<ServerMessage, { t: "host" }>;

const isHostFrame = (m: ServerMessage): m is HostFrame => m.t === "host";

/** Every frame a client got, as text, to search for secrets. */
const everything = (client: TestClient) => JSON.stringify(client.messages);

Deno.test("hosts steer a scene; keys reach only their holders", async (t) => {
  // Every refusal answered (not coalesced), so each step can wait for its own.
  const server = await startTestServer({ refusalNoticeMs: 0 });
  const scene = "hosted-party-1";
  try {
    const { client: ana, welcome: anaWelcome } = await TestClient.join(server.url, scene);
    const anaKey = ((await ana.waitFor(isHostFrame)) as HostFrame).key!;
    const { client: bo, welcome: boWelcome } = await TestClient.join(server.url, scene);
    const { client: cy, welcome: cyWelcome } = await TestClient.join(server.url, scene);

    await t.step("the creator is a host and holds a 192-bit key", () => {
      assert.match(anaKey, /^[A-Za-z0-9_-]{32}$/);
      assert.deepEqual(boWelcome.snapshot.rules?.hosts, [anaWelcome.you.id], "who is host");
      assert.equal(boWelcome.snapshot.rules?.lock, "hosts", "settings locked to hosts");
      assert.equal(JSON.stringify(boWelcome).includes('"keys"'), false, "no key hashes");
      assert.deepEqual(
        boWelcome.events.filter((e) => e.body.type === "rules"),
        [],
        "no event spent on founding the scene (the show's launches may be there)",
      );
    });

    await t.step("a guest's settings change is refused with forbidden", async () => {
      bo.submit({ type: "settings", settings: { snow: 1 } });
      const refused = await bo.waitFor((m) => m.t === "error");
      assert.equal((refused as { code: string }).code, "forbidden");
      ana.submit({ type: "settings", settings: { snow: 1 } });
      await bo.waitFor((m) => m.t === "event" && m.body.type === "settings");
      bo.send({ t: "host", action: { do: "lock", lock: "everyone" } });
      await bo.waitForCount((m) => m.t === "error" && m.code === "forbidden", 2);
    });

    await t.step("a grant's key goes to its peer alone; several hosts", async () => {
      ana.send({ t: "host", action: { do: "grant", peer: boWelcome.you.id } });
      const boKey = ((await bo.waitFor(isHostFrame)) as HostFrame).key!;
      assert.ok(boKey && boKey !== anaKey);
      bo.send({ t: "host", action: { do: "lock", lock: "everyone" } });
      await cy.waitFor((m) => m.t === "event" && m.body.type === "rules" && m.body.do === "lock");
      cy.submit({ type: "settings", settings: { snow: 0.3 } });
      await ana.waitFor((m) => m.t === "event" && m.by === cyWelcome.you.id);
      assert.ok(!everything(cy).includes(anaKey) && !everything(cy).includes(boKey));
      assert.ok(!everything(bo).includes(anaKey), "bo never saw ana's key");
      assert.ok(!everything(ana).includes(boKey), "ana never saw bo's key");
      const log = await (await fetch(`${server.url}/api/scenes/${scene}/log?from=1`)).text();
      assert.ok(!log.includes(anaKey) && !log.includes(boKey), "nor does the log API");
      assert.ok(!/"key"/.test(log), "not even their hashes");
    });

    await t.step("a muted guest is refused, a removed one is closed", async () => {
      ana.send({ t: "host", action: { do: "mute", peer: cyWelcome.you.id, on: true } });
      await cy.waitFor((m) => m.t === "event" && m.body.type === "rules" && m.body.do === "mute");
      cy.submit({ type: "launch", x: 0, z: 0 });
      await cy.waitFor((m) => m.t === "error" && m.code === "muted");
      ana.send({ t: "host", action: { do: "remove", peer: cyWelcome.you.id } });
      const closed = await cy.closed;
      assert.equal(closed.code, 1008);
      assert.ok(cy.errors().some((e) => e.code === "removed"));
    });

    await t.step("after a restart a kept key proves host rights on a new connection", async () => {
      await ana.close();
      await bo.close();
      await server.shutdown();
      await server.start();
      const { client: again, welcome } = await TestClient.join(server.url, scene);
      let rules = rulesOf(welcome.snapshot);
      for (const e of welcome.events) {
        if (e.body.type === "rules") rules = applyRules(rules, e.body);
      }
      assert.equal(rules.lock, "everyone", "the host state survived the restart");
      assert.equal(JSON.stringify(welcome).includes('"keys"'), false, "no key hashes");
      again.send({ t: "host", action: { do: "lock", lock: "hosts" } });
      await again.waitFor((m) => m.t === "error" && m.code === "forbidden");
      again.send({ t: "host", action: { do: "claim", key: "x".repeat(32) } });
      await again.waitForCount((m) => m.t === "error" && m.code === "forbidden", 2);
      again.send({ t: "host", action: { do: "claim", key: anaKey } });
      await again.waitFor((m) =>
        m.t === "event" && m.body.type === "rules" && m.body.do === "host" &&
        m.body.peer === welcome.you.id
      );
      again.send({ t: "host", action: { do: "lock", lock: "hosts" } });
      await again.waitFor((m) =>
        m.t === "event" && m.body.type === "rules" && m.body.do === "lock"
      );
      await again.close();
    });
  } finally {
    await server.close();
  }
});

/** A browser's person token, as a page mints it (22 base64url characters). */
const token = (c: string) => c.repeat(22);

/** Every reaction a client was told of, by whom, flattened out of the `reactions` frames. */
const told = (client: TestClient) =>
  client.messages.flatMap((m) => m.t === "reactions" ? m.by : []);
const reactions = (client: TestClient, by: string) => told(client).filter((r) => r.by === by);
/** Waits until `client` was told of `count` reactions matching `match`. */
const toldOf = async (
  client: TestClient,
  match: (r: { by: string; emoji: string }) => boolean,
  count = 1,
) => {
  await eventually("the reactions arrived", () => told(client).filter(match).length >= count);
};

Deno.test("reactions reach everyone within their rate; a removed person stays out", async (t) => {
  const server = await startTestServer({
    refusalNoticeMs: 0,
    rateLimits: { reaction: { perSecond: 0.01, burst: 2 } },
  });
  const scene = "reacting-party-1";
  try {
    const { client: ana } = await TestClient.join(server.url, scene);
    await ana.waitFor(isHostFrame);
    const bo = await TestClient.join(server.url, scene, { person: token("b") });
    const boTab = await TestClient.join(server.url, scene, { person: token("b") });
    const cy = await TestClient.join(server.url, scene, { person: token("c") });
    const boId = bo.welcome.you.id;
    const cyId = cy.welcome.you.id;

    await t.step("a reaction reaches everyone; past the bucket it is rate_limited", async () => {
      bo.client.send({ t: "react", emoji: "🎉" });
      bo.client.send({ t: "react", emoji: "❤️" });
      bo.client.send({ t: "react", emoji: "👏" });
      const refused = await bo.client.waitFor((m) => m.t === "error");
      assert.equal((refused as { code: string }).code, "rate_limited");
      assert.match((refused as { message: string }).message, /reactions/);
      await toldOf(ana, (r) => r.by === boId, 2);
      await toldOf(cy.client, (r) => r.by === boId, 2);
      await toldOf(bo.client, (r) => r.by === boId, 2);
      assert.deepEqual(
        reactions(ana, boId).map((m) => (m as { emoji: string }).emoji),
        ["🎉", "❤️"],
      );
      cy.client.send({ t: "react", emoji: "🍕" });
      await cy.client.waitFor((m) => m.t === "error" && m.code === "bad_message");
    });

    await t.step("a muted person's reactions are refused with muted", async () => {
      ana.send({ t: "host", action: { do: "mute", peer: cyId, on: true } });
      await cy.client.waitFor((m) =>
        m.t === "event" && m.body.type === "rules" && m.body.do === "mute"
      );
      cy.client.send({ t: "react", emoji: "😮" });
      await cy.client.waitFor((m) => m.t === "error" && m.code === "muted");
      // Ana's own reaction comes back after anything cy's could have caused.
      ana.send({ t: "react", emoji: "✨" });
      await toldOf(ana, (r) => r.emoji === "✨");
      assert.equal(reactions(ana, cyId).length, 0, "nothing from the muted person");
    });

    await t.step("removing a person closes each of their tabs and keeps them out", async () => {
      ana.send({ t: "host", action: { do: "remove", peer: boId } });
      assert.equal((await bo.client.closed).code, 1008);
      assert.equal((await boTab.client.closed).code, 1008, "the same browser's other tab too");
      const again = await TestClient.connect(server.url, scene);
      again.send({ t: "hello", person: token("b") });
      assert.equal((await again.closed).code, 1008);
      assert.deepEqual(again.errors().map((e) => e.code), ["removed"]);
      assert.equal(again.messages.some((m) => m.t === "welcome"), false, "never welcomed");
      const fresh = await TestClient.join(server.url, scene, { person: token("d") });
      assert.ok(fresh.welcome.you.id, "another browser gets in");
      await fresh.client.close();
    });

    await t.step("no token or its hash reaches anyone else or the log API", async () => {
      const hash = hashPerson(scene, token("b"));
      for (const client of [ana, cy.client]) {
        const text = JSON.stringify(client.messages);
        assert.ok(!text.includes(hash) && !text.includes(token("b")));
      }
      const log = await (await fetch(`${server.url}/api/scenes/${scene}/log?from=1`)).text();
      assert.ok(log.includes('"do":"remove"') && !log.includes(hash) && !/"person"/.test(log));
    });

    await t.step("after a restart the removed browser is still kept out", async () => {
      await ana.close();
      await cy.client.close();
      await server.shutdown();
      await server.start();
      const again = await TestClient.connect(server.url, scene);
      again.send({ t: "hello", person: token("b") });
      assert.equal((await again.closed).code, 1008);
      assert.deepEqual(again.errors().map((e) => e.code), ["removed"]);
    });
  } finally {
    await server.close();
  }
});

/**
 * Hosts over real WebSockets on a single node: the creator's key reaches the creator alone,
 * guests are refused what the rules forbid with clear codes, a grant's key goes to its peer alone,
 * a removed person is closed, and after a restart a kept key proves host rights again. (The
 * rules themselves are checked against both logs by testing/scene_contract.ts.)
 */
import assert from "node:assert/strict";
import type { ServerMessage } from "../shared/protocol.ts";
import { applyRules, rulesOf } from "../shared/rules.ts";
import { TestClient } from "../testing/test_client.ts";
import { startTestServer } from "../testing/test_server.ts";

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

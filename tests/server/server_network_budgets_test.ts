/**
 * Budgets by network, not only by address (issue 33, failures 2 and 4's address part), driven from
 * many loopback addresses: 127.0.0.x are one /24 network, 127.0.1.x another. A full server
 * (MAX_SCENES) held one scene per socket by many addresses of one network still admits a newcomer
 * from another network (a scene of the largest holder is unloaded, its people told `server_busy`),
 * but not one from the holder's own network; new scenes and stored events are budgeted per
 * network too, so many addresses cannot multiply them.
 */
import assert from "node:assert/strict";
import { NETWORK_BUDGET_FACTOR } from "../../server/scene/ratelimit.ts";
import { AddressClient } from "../../testing/address_client.ts";
import { withServer } from "../../testing/test_server.ts";

const isError = (code: string) => (m: { t: string; code?: string }) =>
  m.t === "error" && m.code === code;

Deno.test("a full server admits a newcomer from another network, not the holder's", async () => {
  await withServer({ maxScenes: 12 }, async (server) => {
    const held: AddressClient[] = [];
    try {
      // Twelve addresses of 127.0.0.0/24 hold a scene each: the server is full.
      for (let i = 0; i < 12; i++) {
        const client = await AddressClient.join(server.url, `held-${i}`, `127.0.0.${2 + i}`);
        assert.ok(client.welcomed, `held-${i} opened`);
        held.push(client);
      }
      const same = await AddressClient.join(server.url, "same-network-1", "127.0.0.99");
      assert.ok(!same.welcomed, "the largest holder's network gets no more");
      assert.equal((same.messages[0] as { code?: string }).code, "server_busy");
      await same.close();

      const guest = await AddressClient.join(server.url, "guest-scene-1", "127.0.1.2");
      assert.ok(guest.welcomed, "a newcomer from another network gets in");
      const unloaded = held.filter((c) => c.messages.some(isError("server_busy")));
      assert.equal(unloaded.length, 1, "one scene of the largest holder made room");
      assert.equal(await unloaded[0].closed, 1013);
      const busy = unloaded[0].messages.find(isError("server_busy")) as { message: string };
      assert.match(busy.message, /your network holds the most/);
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      assert.match(metrics, /^snowfire_scenes_unloaded_for_network_total 1$/m);

      // Two networks now: a third opens too, while the holder still has two more than it.
      const third = await AddressClient.join(server.url, "guest-scene-2", "127.0.2.2");
      assert.ok(third.welcomed, "another network's newcomer gets in");
      held.push(guest, third);
    } finally {
      await Promise.all(held.map((c) => c.close()));
    }
  });
});

Deno.test("new scenes are budgeted per network as well as per address", async () => {
  const burst = 2;
  await withServer({ newScenes: { perSecond: 0.001, burst } }, async (server) => {
    const open: AddressClient[] = [];
    try {
      // One new scene from each of five addresses of one /24: the network's budget is 2x burst.
      const results: boolean[] = [];
      for (let i = 0; i < 5; i++) {
        const client = await AddressClient.join(server.url, `net-new-${i}`, `127.0.3.${2 + i}`);
        open.push(client);
        results.push(client.welcomed);
      }
      const allowed = burst * NETWORK_BUDGET_FACTOR;
      assert.deepEqual(results, [...Array(5)].map((_, i) => i < allowed));
      const refused = open[allowed].messages[0] as { code: string; message: string };
      assert.equal(refused.code, "rate_limited");
      assert.match(refused.message, /its network/);
      const other = await AddressClient.join(server.url, "net-new-other", "127.0.4.2");
      open.push(other);
      assert.ok(other.welcomed, "another network has its own budget");
    } finally {
      await Promise.all(open.map((c) => c.close()));
    }
  });
});

Deno.test("stored events are budgeted per network as well as per address", async () => {
  const perAddress = 4;
  // Every refusal answered (not coalesced), so each launch waits for its own answer.
  await withServer({ eventsPerMinute: perAddress, refusalNoticeMs: 0 }, async (server) => {
    const open: AddressClient[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const client = await AddressClient.join(server.url, "net-events-1", `127.0.5.${2 + i}`);
        open.push(client);
        for (let k = 0; k < perAddress; k++) {
          client.send({ t: "submit", body: { type: "launch", x: i * 10 - 15, z: k } });
          await client.waitFor((m) =>
            (m.t === "event" && m.body.type === "launch" && m.body.z === k &&
              m.body.x === i * 10 - 15) || m.t === "error"
          );
          client.messages.splice(0);
        }
      }
      const log = await (await fetch(`${server.url}/api/scenes/net-events-1/log?from=1`)).json();
      const launches = (log.events as { by: string; body: { type: string } }[])
        .filter((e) => e.by !== "show" && e.body.type === "launch").length;
      assert.equal(launches, perAddress * NETWORK_BUDGET_FACTOR, "the network's budget, no more");
      const other = await AddressClient.join(server.url, "net-events-1", "127.0.6.2");
      open.push(other);
      other.send({ t: "submit", body: { type: "launch", x: 0, z: 40 } });
      await other.waitFor((m) => m.t === "event" && m.body.type === "launch" && m.body.z === 40);
    } finally {
      await Promise.all(open.map((c) => c.close()));
    }
  });
});

Deno.test("many people opening one new scene's link at once pay for it once", async () => {
  await withServer({ newScenes: { perSecond: 0.001, burst: 1 } }, async (server) => {
    // Sixty sockets from twenty addresses of one network upgrade at once, before anyone's hello.
    const clients = await Promise.all(
      Array.from(
        { length: 60 },
        (_, i) => AddressClient.join(server.url, "opened-at-once", `127.0.7.${2 + (i % 20)}`),
      ),
    );
    try {
      assert.equal(clients.filter((c) => c.welcomed).length, 60, "everyone is welcomed");
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});

Deno.test("one address's 20 countdown finales store one event each", async () => {
  // Issue 33, failure 4: one address's 20 countdown finales stored 112 events/s, 5.6x its budget.
  // Each finale is now derived by every page from its one stored `rules` event: twenty hosts'
  // countdowns from one address fit a budget of 200 events a minute, and playing their finales
  // stores nothing more. Scene time runs 8x, so the 5 s finales play within a second or two.
  const countdown = { do: "countdown", in: 1, seconds: 5, intensity: 5 } as const;
  const fast = {
    now: () => performance.timeOrigin + performance.now() * 8,
    monotonic: () => performance.now() * 8,
  };
  await withServer({
    eventsPerMinute: 200,
    refusalNoticeMs: 0,
    newScenes: { perSecond: 10, burst: 40 },
    ...fast,
  }, async (server) => {
    const open: AddressClient[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        const client = await AddressClient.join(server.url, `finale-${i}`, "127.0.8.2");
        assert.ok(client.welcomed, `scene ${i} opened`);
        open.push(client);
        client.send({ t: "host", action: countdown });
        const answer = await client.waitFor((m) =>
          (m.t === "event" && m.body.type === "rules" && m.body.do === "countdown") ||
          m.t === "error"
        );
        assert.equal(answer.t, "event", `finale ${i} is accepted: ${JSON.stringify(answer)}`);
      }
      // Past every finale's end: 1 s + 5 s of scene time, with room to spare.
      const last = open.at(-1)!;
      const started = last.messages.find((m) => m.t === "event") as { tick: number };
      await last.waitFor((m) => m.t === "tick" && m.n > started.tick + 7 * 60, 10_000);
      for (let i = 0; i < 20; i++) {
        const info = await (await fetch(`${server.url}/api/scenes/finale-${i}`)).json();
        assert.equal(info.lastSeq, 1, `scene ${i} stored only its countdown`);
      }
    } finally {
      await Promise.all(open.map((c) => c.close()));
    }
  });
});

/**
 * The right to compose follows the person, not the connection, on a single node: a composer who
 * comes back on a new connection with the same browser token gets it back (a `compose` event for
 * the new connection, the draft, and a show they stamp); after a host's `on: false` every
 * connection of that person is refused (`forbidden`), now and on a later reconnect; another
 * browser token never inherits it.
 */
import assert from "node:assert/strict";
import type { ServerMessage, ShowCue } from "../../shared/protocol.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";

type Event = Extract<ServerMessage, { t: "event" }>;
type Refusal = Extract<ServerMessage, { t: "error" }>;

const BO = "bo-browser-token-000000000001";
const OTHER = "cy-browser-token-000000000002";
const cues: ShowCue[] = [{ at: 0, x: -4, z: -10 }, { at: 30, x: 4, z: -10 }];

const composeFor = (peer: string) => (m: ServerMessage): boolean =>
  m.t === "event" && m.body.type === "rules" && m.body.do === "compose" && m.body.peer === peer;
const isError = (m: ServerMessage): m is Refusal => m.t === "error";
const draftBy = (peer: string) => (m: ServerMessage): boolean => m.t === "draft" && m.by === peer;

Deno.test("the right to compose follows the person's browser token", async (t) => {
  const server = await startTestServer({ refusalNoticeMs: 0 });
  const scene = "compose-person-1";
  const clients: TestClient[] = [];
  const join = async (person?: string) => {
    const joined = await TestClient.join(server.url, scene, person ? { person } : {});
    clients.push(joined.client);
    return { client: joined.client, id: joined.welcome.you.id };
  };
  try {
    const ana = await join("ana-browser-token-00000000003");
    await ana.client.waitFor((m) => m.t === "host");
    ana.client.submit({ type: "settings", settings: { show: false } });
    const bo = await join(BO);
    ana.client.send({ t: "host", action: { do: "compose", peer: bo.id, on: true } });
    await bo.client.waitFor((m) => m.t === "draft-state");
    await bo.client.close();

    const back = await join(BO);
    await t.step("a composer back on a new connection gets the right again", async () => {
      // Stamped for the new connection, so every page (theirs too) sees it in the rules.
      const granted = await ana.client.waitFor(composeFor(back.id)) as Event;
      assert.equal(granted.by, back.id);
      assert.ok(!("person" in granted.body), "the token hash stays on the server");
      await back.client.waitFor((m) => m.t === "draft-state");
      back.client.send({ t: "draft", edits: [{ do: "title", title: "Back again" }] });
      await ana.client.waitFor(draftBy(back.id));
      back.client.send({ t: "submit", body: { type: "show", title: "Back again", cues } });
      const show = await ana.client.waitFor((m) =>
        m.t === "event" && m.body.type === "show"
      ) as Event;
      assert.equal(show.by, back.id);
      assert.deepEqual(back.client.messages.filter(isError), []);
    });

    await t.step("another browser token does not inherit it", async () => {
      const cy = await join(OTHER);
      cy.client.send({ t: "draft", edits: [{ do: "title", title: "mine" }] });
      cy.client.send({ t: "submit", body: { type: "show", title: "mine", cues } });
      const refused = await cy.client.waitForCount(isError, 2) as Refusal[];
      assert.deepEqual(refused.map((r) => r.code), ["forbidden", "forbidden"]);
      assert.ok(!ana.client.messages.some(composeFor(cy.id)));
    });

    await t.step("after on:false every connection of the person is forbidden", async () => {
      const tab = await join(BO);
      await ana.client.waitFor(composeFor(tab.id));
      ana.client.send({ t: "host", action: { do: "compose", peer: back.id, on: false } });
      await tab.client.waitFor((m) =>
        composeFor(back.id)(m) && (m as Event).body.type === "rules" &&
        !(m as { body: { on: boolean } }).body.on
      );
      for (const who of [back, tab]) {
        who.client.send({ t: "draft", edits: [{ do: "title", title: "still mine?" }] });
        who.client.send({ t: "submit", body: { type: "show", title: "still mine?", cues } });
        const refused = await who.client.waitForCount(isError, 2) as Refusal[];
        assert.deepEqual(refused.map((r) => r.code), ["forbidden", "forbidden"]);
      }
      const again = await join(BO);
      again.client.send({ t: "draft", edits: [{ do: "title", title: "and now?" }] });
      const refused = await again.client.waitFor(isError) as Refusal;
      assert.equal(refused.code, "forbidden");
      assert.ok(!ana.client.messages.some(composeFor(again.id)));
    });
  } finally {
    for (const client of clients) await client.close();
    await server.close();
  }
});

/**
 * The shared show draft over real WebSockets on a single node: a host's and a composer's edits
 * reach every composer in the server's order (last writer wins per cue), a composer who arrives
 * gets the whole draft, guests hear only that a show is being prepared and are refused edits.
 * (The draft's bounds are unit-tested in tests/unit/show_draft_test.ts.)
 */
import assert from "node:assert/strict";
import type { ServerMessage, ShowCue } from "../../shared/protocol.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";

type DraftState = Extract<ServerMessage, { t: "draft-state" }>;
type Relay = Extract<ServerMessage, { t: "draft" }>;

const cue = (at: number, x: number): ShowCue => ({ at, x, z: 0 });

Deno.test("show drafts reach composers live and guests only as a notice", async (t) => {
  const server = await startTestServer({ refusalNoticeMs: 0 });
  const scene = "draft-party-1";
  const clients: TestClient[] = [];
  try {
    const { client: ana } = await TestClient.join(server.url, scene);
    clients.push(ana);
    await ana.waitFor((m) => m.t === "host");
    const { client: bo, welcome: boWelcome } = await TestClient.join(server.url, scene);
    const { client: cy } = await TestClient.join(server.url, scene);
    clients.push(bo, cy);

    await t.step("a guest's edit is forbidden", async () => {
      cy.send({ t: "draft", edits: [{ do: "title", title: "mine" }] });
      const refused = await cy.waitFor((m) => m.t === "error");
      assert.equal((refused as { code: string }).code, "forbidden");
    });

    await t.step("a host lets a present person compose; they get the (empty) draft", async () => {
      ana.send({ t: "host", action: { do: "compose", peer: boWelcome.you.id, on: true } });
      const state = await bo.waitFor((m) => m.t === "draft-state") as DraftState;
      assert.equal(state.draft, null);
    });

    await t.step("edits reach both composers, last writer wins, guests get a notice", async () => {
      ana.send({
        t: "draft",
        edits: [{ do: "title", title: "Duet" }, { do: "cue", id: "c1", cue: cue(0, 1) }],
      });
      bo.send({ t: "draft", edits: [{ do: "cue", id: "c1", cue: cue(60, 2) }] });
      for (const client of [ana, bo]) {
        await client.waitForCount((m) => m.t === "draft", 2);
        const relays = client.messages.filter((m): m is Relay => m.t === "draft");
        assert.deepEqual(relays.map((r) => r.by), [
          relays[0].by,
          boWelcome.you.id,
        ], "in the server's order");
      }
      const notice = await cy.waitFor((m) => m.t === "preparing");
      assert.equal((notice as { on: boolean }).on, true);
      assert.ok(!cy.messages.some((m) => m.t === "draft" || m.t === "draft-state"));
    });

    await t.step("a composer who arrives gets the latest draft and who edited", async () => {
      const { client: di, welcome: diWelcome } = await TestClient.join(server.url, scene);
      clients.push(di);
      const notice = await di.waitFor((m) => m.t === "preparing");
      assert.equal((notice as { on: boolean }).on, true, "as a guest first");
      ana.send({ t: "host", action: { do: "compose", peer: diWelcome.you.id, on: true } });
      const state = (await di.waitFor((m) => m.t === "draft-state") as DraftState).draft!;
      assert.equal(state.title, "Duet");
      assert.deepEqual(state.cues, [{ id: "c1", by: boWelcome.you.id, cue: cue(60, 2) }]);
      assert.equal(state.editors[0], boWelcome.you.id, "the last editor first");
      assert.equal(state.editors.length, 2);
    });

    await t.step("discarding the draft tells guests no show is being prepared", async () => {
      ana.send({ t: "draft", edits: [{ do: "discard" }] });
      await cy.waitForCount((m) => m.t === "preparing", 2);
      const last = cy.messages.filter((m) => m.t === "preparing").at(-1) as { on: boolean };
      assert.equal(last.on, false);
    });
  } finally {
    for (const client of clients) await client.close();
    await server.close();
  }
});

/**
 * Clean shutdown against a child server process: on SIGTERM every client gets a close frame
 * 1001 before the process exits, run after run.
 */
import assert from "node:assert/strict";
import { StorageUnavailableError } from "../../server/scene/errors.ts";
import { Room } from "../../server/local/room.ts";
import { WS_ENGINES } from "../../server/ws/ws_engine.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";

/** Clients per run, spread over a few scenes (the defect showed with 200). */
const CLIENTS = 200;
const SCENES = 4;
const RUNS = 10;

for (const engine of WS_ENGINES) {
  Deno.test(`every client receives close 1001 on SIGTERM, run after run (${engine} engine)`, async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "snowfire-shutdown-" });
    try {
      for (let run = 0; run < RUNS; run++) {
        const server = await startTestServer({
          process: true,
          dataDir,
          env: { WS_ENGINE: engine },
        });
        const clients: TestClient[] = [];
        let status: Deno.CommandStatus;
        try {
          for (let i = 0; i < CLIENTS; i += 20) {
            const batch = await Promise.all(
              Array.from(
                { length: 20 },
                (_, k) => TestClient.connect(server.url, `leaving-${(i + k) % SCENES}`),
              ),
            );
            clients.push(...batch);
          }
          // Half of them joined (welcomed peers get heartbeats and events), half only connected.
          for (let i = 0; i < CLIENTS; i += 2) clients[i].send({ t: "hello" });
          await Promise.all(
            clients.filter((_, i) => i % 2 === 0).map((c) => c.waitFor((m) => m.t === "welcome")),
          );
        } finally {
          status = await server.kill("SIGTERM");
        }
        const closes = await Promise.all(clients.map((c) => c.closed));
        const codes = new Map<number, number>();
        for (const e of closes) codes.set(e.code, (codes.get(e.code) ?? 0) + 1);
        assert.deepEqual(
          [...codes],
          [[1001, CLIENTS]],
          `run ${run}: close codes seen ${JSON.stringify([...codes])}\n${server.output()}`,
        );
        assert.equal(status.code, 0, `run ${run}: exit status\n${server.output()}`);
      }
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  });
}

Deno.test("a scene that cannot be saved at shutdown is logged and every other scene still closes", async () => {
  const logged: string[] = [];
  const server = await startTestServer({ log: (m) => logged.push(m) });
  // A storage fault in one scene only, the way a full disk hits whichever write comes first.
  const persist = Room.prototype.persist;
  Room.prototype.persist = function (this: Room, ...args: Parameters<Room["persist"]>) {
    if (this.id === "broken-disk-1") throw new StorageUnavailableError("disk full (test)");
    return persist.apply(this, args);
  };
  try {
    const clients = await Promise.all(
      ["broken-disk-1", "fine-disk-1", "fine-disk-2"].map((s) => TestClient.join(server.url, s)),
    );
    await server.shutdown();
    for (const { client } of clients) assert.equal((await client.closed).code, 1001);
    assert.ok(
      logged.some((l) => /scene broken-disk-1: saving at shutdown failed: disk full/.test(l)),
      logged.join("\n"),
    );
  } finally {
    Room.prototype.persist = persist;
    await Deno.remove(server.dataDir, { recursive: true });
  }
});

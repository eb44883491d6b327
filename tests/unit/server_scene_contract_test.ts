/** The scene engine's contract (testing/scene_contract.ts) over the single node's SQLite store. */
import { StoreSceneLog } from "../../server/local/store_log.ts";
import { SceneStore } from "../../server/local/store.ts";
import { runSceneContract } from "../../testing/scene_contract.ts";

Deno.test("scene contract: the embedded SQLite log", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "snowfire-contract-" });
  const store = new SceneStore(dir);
  try {
    await runSceneContract(t, {
      create(id, seed, epoch, snapshot) {
        store.createScene(id, seed, epoch, snapshot);
        const scene = {
          load() {
            const log = new StoreSceneLog(store, id);
            return Promise.resolve({ log, loaded: log.load(store.getScene(id)!) });
          },
          stored: () => Promise.resolve(store.eventsFromSeq(id, 1, 1_000_000)),
          storedSnapshot: () => Promise.resolve(store.getScene(id)!.snapshot),
          intrude() {
            // Another writer (a second process on the same file, say) takes the next seq.
            const last = store.lastEvent(id);
            store.appendEvent(id, {
              seq: (last?.seq ?? 0) + 1,
              tick: last?.tick ?? 0,
              by: "intruder",
              body: { type: "settings", settings: {} },
            });
            return Promise.resolve();
          },
        };
        return Promise.resolve(scene);
      },
    });
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

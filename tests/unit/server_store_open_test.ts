/** Opening the SQLite store: a file that is not a database is refused as damaged (by errcode). */
import assert from "node:assert/strict";
import { StorageDamagedError } from "../../server/scene/errors.ts";
import { SceneStore } from "../../server/local/store.ts";

Deno.test("a scenes.db that is not a database is refused as damaged, not opened", async () => {
  const dir = await Deno.makeTempDir({ prefix: "snowfire-store-open-" });
  try {
    await Deno.writeTextFile(`${dir}/scenes.db`, "this is not sqlite, just text ".repeat(200));
    assert.throws(() => new SceneStore(dir), (e: unknown) => {
      assert.ok(e instanceof StorageDamagedError, `got ${e}`);
      assert.match(e.message, /scenes\.db: file is not a database/);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

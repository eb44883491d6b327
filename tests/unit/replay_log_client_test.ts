/**
 * The page's log client reads pages of the one shape both modes answer (`LogPageSchema`): a
 * well-formed page comes back typed, a malformed one and a refusal are `LogError`s with a code.
 */
import assert from "node:assert/strict";
import { LogClient, LogError } from "../../client/replay/log_client.ts";
import type { LogPage } from "../../shared/protocol.ts";

const PAGE: LogPage = {
  scene: "quiet-pine",
  seed: 7,
  epoch: 1_700_000_000_000,
  firstSeq: 3,
  lastSeq: 4,
  startTick: 120,
  exactFromTick: 600,
  from: 3,
  events: [
    { seq: 3, tick: 130, by: "show", body: { type: "launch", x: 1, z: 2 } },
    { seq: 4, tick: 140, by: "p1", body: { type: "settings", settings: { windSpeed: 3 } } },
  ],
  next: null,
  snapshot: {
    tick: 130,
    settings: {
      snow: 0.5,
      windSpeed: 2,
      windDirection: 30,
      theme: "auto",
      show: true,
      fountain: true,
    },
    windX: 0,
    windZ: 0,
    windSince: 0,
  },
};

/** A fetch that answers every request with `status` and `body`, and records the URLs. */
function answering(status: number, body: unknown, urls: string[] = []): typeof fetch {
  return (input) => {
    urls.push(String(input));
    return Promise.resolve(Response.json(body, { status }));
  };
}

Deno.test("log client reads pages of the shared shape", async (t) => {
  await t.step("a well-formed page comes back as sent", async () => {
    const urls: string[] = [];
    const page = await new LogClient("quiet-pine", answering(200, PAGE, urls)).window(610);
    assert.deepEqual(page, PAGE);
    assert.equal(urls[0], "/api/scenes/quiet-pine/log?tick=610&snapshot=1&limit=600");
  });

  await t.step("a malformed page is a bad_page error", async () => {
    const broken = { ...PAGE, events: [{ seq: 0, tick: -1 }] };
    const error = await new LogClient("quiet-pine", answering(200, broken)).page(3)
      .catch((e) => e);
    assert.ok(error instanceof LogError);
    assert.equal(error.code, "bad_page");
  });

  await t.step("a refusal keeps its status and code", async () => {
    const gone = { error: { code: "pruned", message: "seq 1 is no longer kept" } };
    const error = await new LogClient("quiet-pine", answering(410, gone)).page(1).catch((e) => e);
    assert.ok(error instanceof LogError);
    assert.equal(error.status, 410);
    assert.equal(error.code, "pruned");
  });

  await t.step(
    "a page refused for reading too much at once is tried again after Retry-After",
    async () => {
      const waits: number[] = [];
      let calls = 0;
      const busyThenPage: typeof fetch = () => {
        calls++;
        if (calls <= 2) {
          const error = { error: { code: "too_many_reads", message: "wait" } };
          return Promise.resolve(
            Response.json(error, { status: 429, headers: { "retry-after": "1" } }),
          );
        }
        return Promise.resolve(Response.json(PAGE));
      };
      const client = new LogClient("quiet-pine", busyThenPage, (ms) => {
        waits.push(ms);
        return Promise.resolve();
      });
      assert.deepEqual(await client.page(3), PAGE);
      assert.deepEqual(waits, [1000, 1000]);
      const always = new LogClient(
        "quiet-pine",
        () =>
          Promise.resolve(
            Response.json({ error: { code: "busy", message: "busy" } }, {
              status: 503,
              headers: { "retry-after": "9" },
            }),
          ),
        (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
      );
      const error = await always.page(3).catch((e) => e);
      assert.ok(error instanceof LogError);
      assert.equal(error.code, "busy");
      assert.deepEqual(waits.slice(2), [5000, 5000, 5000], "at most 5 s each, three times");
    },
  );
});

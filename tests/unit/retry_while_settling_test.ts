import assert from "node:assert/strict";
import { JetStreamApiError } from "@nats-io/jetstream";
import { errors } from "@nats-io/transport-node";
import { isSettling } from "../../server/cluster/nats_errors.ts";
import { retryWhileSettling } from "../../server/cluster/retry_while_settling.ts";

/** A refusal as the NATS server sends it: an HTTP-like status and a JetStream error code. */
const refusal = (status: number, errCode: number, description: string) =>
  new JetStreamApiError({ code: status, err_code: errCode, description });

const insufficient = () => refusal(503, 10023, "insufficient resources");
const forbidden = () =>
  new errors.PermissionViolationError(
    "Permissions Violation",
    "publish",
    "$JS.API.STREAM.CREATE.X",
  );

Deno.test("isSettling tells a cluster that is still settling from a real refusal", () => {
  assert.equal(isSettling(insufficient()), true);
  assert.equal(isSettling(refusal(503, 10008, "JetStream system temporarily unavailable")), true);
  assert.equal(isSettling(refusal(400, 10005, "no suitable peers for placement")), true);
  assert.equal(isSettling(new errors.TimeoutError()), true);
  assert.equal(isSettling(new errors.NoRespondersError("$JS.API.STREAM.CREATE.X")), true);
  // Refusals a retry does not mend.
  assert.equal(isSettling(refusal(400, 10058, "stream name already in use")), false);
  assert.equal(
    isSettling(refusal(400, 10052, "replicas > 1 not supported in non-clustered mode")),
    false,
  );
  assert.equal(isSettling(forbidden()), false);
  assert.equal(isSettling(new Error("insufficient resources")), false);
});

Deno.test("retryWhileSettling retries a settling cluster and fails anything else at once", async (t) => {
  /** A clock the waits move on. */
  const fake = () => {
    let ms = 0;
    const waits: number[] = [];
    const logged: string[] = [];
    return {
      waits,
      logged,
      options: {
        deadlineMs: 10_000,
        delaysMs: [100, 1000],
        log: (m: string) => logged.push(m),
        now: () => ms,
        sleep: (wait: number) => {
          waits.push(wait);
          ms += wait;
          return Promise.resolve();
        },
      },
    };
  };

  await t.step("a step refused while settling succeeds once the cluster has settled", async () => {
    const clock = fake();
    let tries = 0;
    const made = await retryWhileSettling("create", () => {
      tries++;
      if (tries <= 3) return Promise.reject(insufficient());
      return Promise.resolve("stream");
    }, clock.options);
    assert.equal(made, "stream");
    assert.equal(tries, 4);
    // The delays in turn, the last repeating.
    assert.deepEqual(clock.waits, [100, 1000, 1000]);
    assert.equal(clock.logged.length, 3);
    assert.match(clock.logged[0], /create: insufficient resources; NATS is settling, retrying/);
  });

  await t.step("any other failure is thrown at once", async () => {
    const clock = fake();
    let tries = 0;
    await assert.rejects(
      retryWhileSettling("create", () => {
        tries++;
        return Promise.reject(forbidden());
      }, clock.options),
      errors.PermissionViolationError,
    );
    assert.equal(tries, 1);
    assert.deepEqual(clock.waits, []);
  });

  await t.step("past the deadline the last settling failure is thrown", async () => {
    const clock = fake();
    let tries = 0;
    await assert.rejects(
      retryWhileSettling("create", () => {
        tries++;
        return Promise.reject(insufficient());
      }, clock.options),
      (e) => e instanceof JetStreamApiError && e.code === 10023,
    );
    // 100, then 1000s until 10 s have passed: 1 + 1 + 10 tries.
    assert.equal(tries, 12);
    assert.equal(clock.waits.reduce((a, b) => a + b, 0), 10_100);
  });
});

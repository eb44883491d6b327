/** Configuration from options and the environment. */
import assert from "node:assert/strict";
import { optionsFromEnv, resolveConfig } from "../../server/config.ts";

Deno.test("config reads the environment and rejects nonsense", () => {
  const env: Record<string, string> = {
    PORT: "9000",
    SKY_CAP: "5000",
    ALLOWED_ORIGINS: "http://a.test, http://b.test",
    RATE_LAUNCH: "10/20",
  };
  const options = optionsFromEnv((name) => env[name]);
  const config = resolveConfig(options);
  assert.equal(config.port, 9000);
  assert.equal(config.hostname, "0.0.0.0");
  assert.equal(config.skyCap, 5000);
  assert.deepEqual(config.allowedOrigins, ["http://a.test", "http://b.test"]);
  assert.deepEqual(config.rateLimits.launch, { perSecond: 10, burst: 20 });
  assert.equal(config.rateLimits.gun.perSecond, 10);
  assert.throws(() => optionsFromEnv((n) => (n === "RATE_GUN" ? "fast" : undefined)), RangeError);
  assert.throws(() => resolveConfig({ dataDir: "x", port: -1 }), RangeError);
  assert.throws(() => resolveConfig({ dataDir: "x", heartbeatMs: 80 }), RangeError);
});

Deno.test("config takes FRAME_ANCESTORS as origins, none by default, and refuses anything else", () => {
  assert.deepEqual(resolveConfig({ dataDir: "x" }).frameAncestors, []);
  const env: Record<string, string> = {
    FRAME_ANCESTORS: "https://blog.example, https://*.friends.example:8443 'self'",
  };
  assert.deepEqual(resolveConfig(optionsFromEnv((n) => env[n])).frameAncestors, [
    "https://blog.example",
    "https://*.friends.example:8443",
    "'self'",
  ]);
  for (const bad of ["blog.example", "https://a.example/path", "https://a.example; script-src *"]) {
    assert.throws(
      () => resolveConfig({ dataDir: "x", frameAncestors: [bad] }),
      /frameAncestors/,
      bad,
    );
  }
});

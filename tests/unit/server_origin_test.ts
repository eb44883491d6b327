/** The WebSocket origin check. */
import assert from "node:assert/strict";
import { originAllowed } from "../../server/http/app.ts";

Deno.test("origin check allows same host, listed origins and non-browsers only", () => {
  const own = "http://localhost:8000";
  assert.ok(originAllowed("http://localhost:8000", own, []));
  assert.ok(originAllowed(undefined, own, []));
  assert.ok(!originAllowed("http://evil.test", own, []));
  assert.ok(originAllowed("http://friend.test", own, ["http://friend.test"]));
  assert.ok(originAllowed("http://anyone.test", own, ["*"]));
  assert.ok(!originAllowed("not a url", own, []));
  // The scheme counts: an http page is not the https site, nor the other way round.
  assert.ok(!originAllowed("https://localhost:8000", own, []));
  assert.ok(!originAllowed("http://snow.example", "https://snow.example", []));
  assert.ok(originAllowed("https://snow.example", "https://snow.example:443", []));
});

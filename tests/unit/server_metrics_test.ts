/** The /metrics text: every family once, with HELP and TYPE, values read when rendered. */
import assert from "node:assert/strict";
import { Metrics } from "../../server/scene/metrics.ts";

Deno.test("metrics render every family with help, type and current values", () => {
  const m = new Metrics();
  m.eventsClient = 3;
  m.refuse("sky_full");
  m.refuse("bad_message");
  m.refuse("sky_full");
  m.pass(0, 5);
  m.pass(45, 120);
  const text = m.render({ scenesLoaded: 4, scenesStored: 5, connections: 6 });
  const lines = text.trimEnd().split("\n");
  const helps = lines.filter((l) => l.startsWith("# HELP ")).map((l) => l.split(" ")[2]);
  const types = lines.filter((l) => l.startsWith("# TYPE ")).map((l) => l.split(" ")[2]);
  assert.deepEqual(types, helps, "each family has HELP then TYPE");
  assert.equal(new Set(helps).size, helps.length, "no family twice");
  for (const name of helps) assert.match(name, /^snowfire_[a-z_]+$/);
  assert.ok(lines.includes("snowfire_scenes_loaded 4"));
  assert.ok(lines.includes("snowfire_connections 6"));
  assert.ok(lines.includes('snowfire_events_total{by="client"} 3'));
  const refused = lines.filter((l) => l.startsWith("snowfire_refused_total{"));
  assert.deepEqual(refused, [
    'snowfire_refused_total{code="bad_message"} 1',
    'snowfire_refused_total{code="sky_full"} 2',
  ]);
  assert.ok(lines.includes("snowfire_heartbeat_gap_ms 115"));
});

import assert from "node:assert/strict";
import {
  circles,
  floorOf,
  type ImportGraph,
  importsOf,
  readGraph,
  resolveImport,
  upwardArrows,
} from "../../tools/import_graph.ts";

function graphOf(arrows: Record<string, string[]>): ImportGraph {
  return new Map(Object.entries(arrows).map(([from, to]) => [from, new Set(to)]));
}

Deno.test("import graph reads static, type-only, re-exported and dynamic imports, not comments", () => {
  const source = [
    '/** @example import { nope } from "./in_a_comment.ts"; */',
    'import assert from "node:assert/strict";',
    'import type { A } from "./a.ts";',
    "import {",
    "  b,",
    "  c,",
    '} from "../b.ts";',
    'export { d } from "./d.ts";',
    'export * from "./e.ts";',
    'import "./side_effect.ts";',
    'const f = await import("./f.ts");',
    '// import { g } from "./g.ts";',
    "const text = \"import { h } from './h.ts'\";",
  ].join("\n");
  assert.deepEqual(importsOf(source), [
    "node:assert/strict",
    "./a.ts",
    "../b.ts",
    "./d.ts",
    "./e.ts",
    "./side_effect.ts",
    "./f.ts",
  ]);
  assert.equal(
    resolveImport("server/ws/connection.ts", "../scene/peer.ts"),
    "server/scene/peer.ts",
  );
  assert.equal(resolveImport("tests/unit/x_test.ts", "../../shared/prng.ts"), "shared/prng.ts");
  assert.equal(resolveImport("server/server.ts", "./config.ts"), "server/config.ts");
  assert.equal(resolveImport("server/server.ts", "hono"), null);
  assert.equal(resolveImport("server/server.ts", "npm:hono"), null);
});

Deno.test("import graph floors: shared < server/scene < ws, local, cluster, http < server/*.ts", () => {
  assert.equal(floorOf("shared/fireworks/pool.ts"), 0);
  assert.equal(floorOf("server/scene/relay.ts"), 1);
  for (const part of ["ws", "local", "cluster", "http"]) {
    assert.equal(floorOf(`server/${part}/x.ts`), 2);
  }
  assert.equal(floorOf("server/config.ts"), 3);
  assert.equal(floorOf("client/main.ts"), null);
  assert.equal(floorOf("tests/unit/x_test.ts"), null);
  assert.throws(() => floorOf("server/new_part/x.ts"), /import_graph_unknown_floor/);
  const graph = graphOf({
    "server/scene/relay.ts": ["server/ws/ws_socket.ts", "shared/rules.ts", "server/scene/peer.ts"],
    "server/ws/connection.ts": ["server/config.ts", "server/scene/peer.ts", "server/http/app.ts"],
    "server/config.ts": ["server/ws/ws_types.ts"],
    "shared/rules.ts": ["server/scene/peer.ts"],
    "tests/unit/a_test.ts": ["server/server.ts"],
  });
  assert.deepEqual(upwardArrows(graph), [
    { from: "server/scene/relay.ts", to: "server/ws/ws_socket.ts" },
    { from: "server/ws/connection.ts", to: "server/config.ts" },
    { from: "shared/rules.ts", to: "server/scene/peer.ts" },
  ]);
});

Deno.test("import graph finds every circle, each as a path round it", () => {
  const graph = graphOf({
    "a.ts": ["b.ts"],
    "b.ts": ["c.ts", "d.ts"],
    "c.ts": ["a.ts"],
    "d.ts": [],
    "e.ts": ["e.ts"],
    "f.ts": ["g.ts"],
    "g.ts": ["f.ts", "a.ts"],
  });
  assert.deepEqual(circles(graph), [
    ["a.ts", "b.ts", "c.ts", "a.ts"],
    ["e.ts", "e.ts"],
    ["f.ts", "g.ts", "f.ts"],
  ]);
  assert.deepEqual(circles(graphOf({ "a.ts": ["b.ts"], "b.ts": ["c.ts"], "c.ts": [] })), []);
  // A long chain does not overflow the stack.
  const chain = graphOf(
    Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`m${i}.ts`, [`m${i + 1}.ts`]])),
  );
  assert.deepEqual(circles(chain), []);
});

Deno.test("the house has no import circle and no arrow back up a floor of server/", async () => {
  const graph = await readGraph(new URL("../../", import.meta.url));
  assert.ok(graph.size > 300, `${graph.size} modules read`);
  assert.ok(
    graph.get("server/server.ts")?.has("server/config.ts"),
    "server/server.ts imports config.ts",
  );
  assert.deepEqual(circles(graph), []);
  assert.deepEqual(upwardArrows(graph), []);
});

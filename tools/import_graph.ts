/**
 * The import graph of the house, checked: `deno run --allow-read tools/import_graph.ts` reads every
 * module's relative imports (type-only ones too: a circle of types is still a circle) and fails,
 * naming each, on
 *
 * - a circle anywhere (`a.ts → b.ts → a.ts`), in product code, tests and tools alike;
 * - an arrow back up a floor of the server. The floors, lowest first: `shared/` (the deterministic
 *   simulation); `server/scene/` (the scene's rules); `server/ws/`, `server/local/`,
 *   `server/cluster/`, `server/http/` (transports, stores, the cluster, HTTP); the files directly
 *   in `server/` (configuration and wiring). A module imports its own floor or lower ones only.
 *
 * `--list` prints every arrow instead. CI runs it (`.ci/run`); `tests/unit/import_graph_test.ts`
 * checks its rules.
 *
 * @module
 */

/** A module path relative to the repository root (`server/scene/relay.ts`). */
export type ModulePath = string;

/** Each module and the modules it imports. */
export type ImportGraph = Map<ModulePath, Set<ModulePath>>;

/** Folders read, relative to the repository root. */
export const HOUSE = [
  "shared",
  "server",
  "client",
  "scripts",
  "tools",
  "testing",
  "tests",
  "bench",
];

/** Module file endings read. */
const MODULE = /\.(ts|tsx|mts|js|mjs)$/;

/**
 * Specifiers of a module's static and dynamic imports and re-exports, in source order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(importsOf('import { a } from "./a.ts";\nexport type { B } from "../b.ts";'), [
 *   "./a.ts",
 *   "../b.ts",
 * ]);
 * ```
 */
export function importsOf(source: string): string[] {
  // Comments may quote imports (JSDoc examples): leave them out, keeping strings intact.
  const code = source.replace(
    /("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g,
    (_match, string) => string ?? " ",
  );
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s+(?:type\s+)?[^;]*?\bfrom\s*["']([^"']+)["']/gm,
    /^\s*import\s*["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  ];
  const hits: [number, string][] = [];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) hits.push([match.index!, match[1]]);
  }
  for (const [, specifier] of hits.sort((a, b) => a[0] - b[0])) found.push(specifier);
  return found;
}

/**
 * Resolves a relative specifier from module `from` to a module path; null for a package or URL.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(resolveImport("server/ws/ws_node.ts", "../scene/relay.ts"), "server/scene/relay.ts");
 * assert.equal(resolveImport("server/ws/ws_node.ts", "hono"), null);
 * ```
 */
export function resolveImport(from: ModulePath, specifier: string): ModulePath | null {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return null;
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/**
 * The floor of a server module (0 `shared/`, 1 `server/scene/`, 2 `server/ws|local|cluster|http/`,
 * 3 the files directly in `server/`); null for modules outside the floors (client, tests, tools).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(floorOf("shared/prng.ts"), 0);
 * assert.equal(floorOf("server/scene/relay.ts"), 1);
 * assert.equal(floorOf("server/cluster/scene_edge.ts"), 2);
 * assert.equal(floorOf("server/config.ts"), 3);
 * assert.equal(floorOf("client/main.ts"), null);
 * ```
 */
export function floorOf(path: ModulePath): number | null {
  const parts = path.split("/");
  if (parts[0] === "shared") return 0;
  if (parts[0] !== "server") return null;
  if (parts.length === 2) return 3;
  if (parts[1] === "scene") return 1;
  if (["ws", "local", "cluster", "http"].includes(parts[1])) return 2;
  // A new folder of server/ must be given a floor here first.
  throw new Error(`import_graph_unknown_floor: ${path} is in no floor of server/`);
}

/** An import that runs back up: `from` on a lower floor imports `to` on a higher one. */
export interface UpwardArrow {
  from: ModulePath;
  to: ModulePath;
}

/**
 * Every arrow from a module to one on a higher floor, sorted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const graph = new Map([["server/scene/relay.ts", new Set(["server/ws/ws_types.ts"])]]);
 * assert.deepEqual(upwardArrows(graph), [
 *   { from: "server/scene/relay.ts", to: "server/ws/ws_types.ts" },
 * ]);
 * ```
 */
export function upwardArrows(graph: ImportGraph): UpwardArrow[] {
  const arrows: UpwardArrow[] = [];
  for (const [from, targets] of graph) {
    const floor = floorOf(from);
    if (floor === null) continue;
    for (const to of targets) {
      const target = floorOf(to);
      // Out of the floors (client/ from server/ would be its own error in review): not judged here.
      if (target !== null && target > floor) arrows.push({ from, to });
    }
  }
  return arrows.sort((a, b) => `${a.from} ${a.to}` < `${b.from} ${b.to}` ? -1 : 1);
}

/**
 * The circles of the graph: each strongly connected set of two or more modules (or a module that
 * imports itself), as one path round it that starts and ends at its first module by name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const graph = new Map([
 *   ["a.ts", new Set(["b.ts"])],
 *   ["b.ts", new Set(["a.ts", "c.ts"])],
 *   ["c.ts", new Set<string>()],
 * ]);
 * assert.deepEqual(circles(graph), [["a.ts", "b.ts", "a.ts"]]);
 * ```
 */
export function circles(graph: ImportGraph): ModulePath[][] {
  // Tarjan's strongly connected components, iteratively (deep graphs would overflow recursion).
  const index = new Map<ModulePath, number>();
  const low = new Map<ModulePath, number>();
  const onStack = new Set<ModulePath>();
  const stack: ModulePath[] = [];
  const components: ModulePath[][] = [];
  let next = 0;
  const targets = (node: ModulePath) => [...(graph.get(node) ?? [])].sort();
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: { node: ModulePath; edges: ModulePath[]; at: number }[] = [];
    const open = (node: ModulePath) => {
      index.set(node, next);
      low.set(node, next++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, edges: targets(node), at: 0 });
    };
    open(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame.at < frame.edges.length) {
        const to = frame.edges[frame.at++];
        if (!index.has(to)) open(to);
        else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: ModulePath[] = [];
      let member: ModulePath;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      const selfLoop = component.length === 1 && (graph.get(member)?.has(member) ?? false);
      if (component.length > 1 || selfLoop) components.push(component);
    }
  }
  return components.map((component) => pathRound(graph, new Set(component))).sort((a, b) =>
    a[0] < b[0] ? -1 : 1
  );
}

/** A shortest path from the first module (by name) of `members` round to itself, inside them. */
function pathRound(graph: ImportGraph, members: Set<ModulePath>): ModulePath[] {
  const start = [...members].sort()[0];
  const cameFrom = new Map<ModulePath, ModulePath>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i];
    for (const to of [...(graph.get(node) ?? [])].sort()) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at = node; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/** Reads the import graph of the folders `HOUSE` under `root` (relative imports only). */
export async function readGraph(root: URL, folders = HOUSE): Promise<ImportGraph> {
  const graph: ImportGraph = new Map();
  const walk = async (dir: string): Promise<void> => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(new URL(dir, root))];
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    for (const entry of entries) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) {
        if (!["node_modules", "output", "build", "fixtures"].includes(entry.name)) await walk(path);
      } else if (entry.isFile && MODULE.test(entry.name)) {
        const source = await Deno.readTextFile(new URL(path, root));
        const targets = new Set<ModulePath>();
        for (const specifier of importsOf(source)) {
          const target = resolveImport(path, specifier);
          if (target && MODULE.test(target)) targets.add(target);
        }
        graph.set(path, targets);
      }
    }
  };
  for (const folder of folders) await walk(folder);
  return graph;
}

if (import.meta.main) {
  const graph = await readGraph(new URL("../", import.meta.url));
  if (Deno.args.includes("--list")) {
    for (const [from, targets] of [...graph].sort()) {
      for (const to of [...targets].sort()) console.log(`${from} -> ${to}`);
    }
  }
  const found = circles(graph);
  const upward = upwardArrows(graph);
  for (const circle of found) console.log(`import circle: ${circle.join(" -> ")}`);
  for (const { from, to } of upward) console.log(`import back up a floor: ${from} -> ${to}`);
  const arrows = [...graph.values()].reduce((n, targets) => n + targets.size, 0);
  console.log(
    `import graph: ${graph.size} modules, ${arrows} arrows, ${found.length} circles, ` +
      `${upward.length} arrows back up`,
  );
  if (found.length > 0 || upward.length > 0) Deno.exit(1);
}

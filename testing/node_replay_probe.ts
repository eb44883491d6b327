/**
 * Code that runs identically in Deno and, bundled by esbuild, in Node: replays fixtures and
 * probes engine maths. `tests/unit/cross_runtime_test.ts` compares the two runtimes' outputs.
 */
import { acos, atan2, cos, exp, log, pow, sin } from "../shared/dmath.ts";
import { Rng } from "../shared/prng.ts";
import { type Checkpoint, replay, type ReplayInput } from "../shared/replay.ts";
import { type ShowLaunch, showLaunches } from "../shared/show.ts";

/** One fixture file's content: a replay input plus its committed checkpoints. */
export interface ReplayFixture extends ReplayInput {
  expected: Checkpoint[];
}

/** The checkpoints of every fixture, in order. */
export function replayAll(fixtures: ReplayFixture[]): Checkpoint[][] {
  return fixtures.map((fixture) =>
    replay({
      seed: fixture.seed,
      settings: fixture.settings,
      events: fixture.events,
      ticks: fixture.ticks,
      every: fixture.every,
    })
  );
}

/** Functions probed: the engine's `Math` one and our deterministic one, on the same inputs. */
const PAIRS: Record<string, [(...a: number[]) => number, (...a: number[]) => number]> = {
  cos: [Math.cos, cos],
  sin: [Math.sin, sin],
  pow: [Math.pow, pow],
  acos: [Math.acos, acos],
  exp: [Math.exp, exp],
  log: [Math.log, log],
  atan2: [Math.atan2, atan2],
};

const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);

function hexBits(x: number): string {
  bits[0] = x;
  return words[1].toString(16).padStart(8, "0") + words[0].toString(16).padStart(8, "0");
}

/** Inputs for `name`, drawn from our PRNG so every engine probes the same numbers. */
function inputs(name: string, rng: Rng): number[] {
  switch (name) {
    case "cos":
    case "sin":
      return [rng.range(-1e5, 1e5)];
    case "pow":
      return [rng.range(1e-3, 100), rng.range(-60, 60)];
    case "acos":
      return [rng.range(-1, 1)];
    case "exp":
      return [rng.range(-700, 700)];
    case "log":
      return [rng.range(1e-6, 1e6)];
    default:
      return [rng.range(-10, 10), rng.range(-10, 10)];
  }
}

/** Per function: hex bits of `Math.f` and of our `f` on `count` deterministic inputs. */
export interface Probe {
  [name: string]: { engine: string[]; ours: string[] };
}

/** Evaluates every probed function on `count` inputs each. */
export function probe(count: number): Probe {
  const out: Probe = {};
  for (const [name, [engine, ours]] of Object.entries(PAIRS)) {
    const rng = new Rng(name.length * 7919 + name.charCodeAt(0));
    const result = { engine: [] as string[], ours: [] as string[] };
    for (let k = 0; k < count; k++) {
      const args = inputs(name, rng);
      result.engine.push(hexBits(engine(...args)));
      result.ours.push(hexBits(ours(...args)));
    }
    out[name] = result;
  }
  return out;
}

/** An hour of the scheduled show for a few seeds: the server may run on either runtime. */
export function showHour(): ShowLaunch[][] {
  return [0, 1, 0xdeadbeef].map((seed) => showLaunches(seed, 1_000_000, 1_000_000 + 216_000));
}

/**
 * Snow evaluation cost: `fill` of all flakes at full intensity (MAX_FLAKES = 100k) at a
 * fractional tick, as the renderer calls it once per frame. ns per flake = time / 100k.
 * Also the one-off cost of drawing the per-flake constants (scene load).
 */
import { MAX_FLAKES } from "../../shared/constants.ts";
import { Hasher } from "../../shared/hash.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { Snow } from "../../shared/snow.ts";

const snow = new Snow(1, MAX_FLAKES);
snow.setClimate(initialSnapshot({ snow: 1, windSpeed: 5, windDirection: 75 }));
const out = new Float32Array(snow.capacity * 3);
let time = 1_000_000.25;

Deno.bench({
  name: `snow fill, ${snow.count} flakes (divide by ${snow.count} for ns/flake)`,
  group: "snow",
  baseline: true,
  fn() {
    snow.fill(time, out);
    time += 0.37;
  },
});

const hasher = new Hasher();
Deno.bench({
  name: "snow hashInto (every 64th flake)",
  group: "snow",
  fn() {
    snow.hashInto(hasher.reset(), Math.floor(time));
    time += 1;
  },
});

Deno.bench({
  name: `snow construction, ${MAX_FLAKES} flakes`,
  group: "snow-setup",
  n: 20,
  fn() {
    new Snow(2, MAX_FLAKES);
  },
});

/**
 * Splits: a recipe's splitting sparks (secondary bursts, crossette's fours, crackle's pops) die
 * at their delay and their children fly from where they were, with the parent's velocity there
 * carried, from the split's own keyed stream. Closed form writes every child's birth with its
 * break, born in the future; the split only counts them.
 *
 * @example
 * ```ts
 * import { Fireworks } from "./fireworks.ts";
 * const fw = new Fireworks(7, 50_000);
 * fw.launch(1, 0, { x: 0, z: 0, y: 35, kind: "crossette" }, "auto"); // sparks split in fours
 * for (let t = 0; t < 150; t++) fw.step(t);
 * ```
 */
import { BREAK_GAP_TICKS } from "../constants.ts";
import { cos, cosSinArray, sin, TAU } from "../dmath.ts";
import { PALETTE_SIZE, SILVER_TINT } from "../firework_colors.ts";
import { CHILD_DRAWS } from "../firework_draws.ts";
import { MOTIONS, styleOf } from "../firework_motion.ts";
import { PHASE } from "../firework_plan.ts";
import { hashUnits, STREAM, streamKey } from "../prng.ts";
import { type FireworkBlock, touch } from "./block.ts";
import { flickerKey, paint, place, type Sky, storedPositionAt, velocityAt } from "./sky.ts";

/** Split `j` of break `b`: its spark just died; its children fly from where it was. */
export function split(sky: Sky, block: FireworkBlock, b: number, j: number): void {
  // Closed form: the children's birth state was written with their break (placeBurst).
  if (!sky.closedForm) splitBirth(sky, block, b, j);
  splitCount(sky, block, b, j);
}

/**
 * The birth state of split `j`'s children (where its spark is at its delay, the split's own
 * stream), written into their slots. Closed form writes them with the break, born in the
 * future: a slot whose birth is ahead reads as never spawned (`settleRange`, the hash), and
 * a GPU renderer writes a break's sparks and every child in one run.
 */
export function splitBirth(sky: Sky, block: FireworkBlock, b: number, j: number): void {
  const plan = block.plan;
  const split = block.recipe.split!;
  const key = streamKey(sky.seed, STREAM.firework, block.seq, PHASE.child + (b << 12) + j);
  const parent = block.start + plan.sparkStart[b] + j;
  const delay = block.delays[b][j];
  // The parent dies as it splits, at an age equal to its delay.
  const at = storedPositionAt(sky, parent, delay);
  const ax = at[0], ay = at[1], az = at[2];
  const pv = velocityAt(sky, parent, delay, sky.scratch64);
  const pvx = pv[0], pvy = pv[1], pvz = pv[2];
  const cx = pvx * split.carry, cy = pvy * split.carry, cz = pvz * split.carry;
  const { life, maxLife, style, size, color, flicker, born } = sky.pool;
  const bornRel = plan.riseTicks + b * BREAK_GAP_TICKS + delay;
  const parentTint = (style[parent] | 0) % PALETTE_SIZE;
  // "warm" children keep the parent's tint; their motion class mixes in less of it.
  const tint = split.tint === "silver" ? SILVER_TINT : parentTint;
  const s = styleOf(split.motion, tint);
  const childSize = MOTIONS[split.motion].size;
  const first = block.start + plan.childStart[b] + j * split.children;
  const children = split.children;
  const cross = split.pattern === "cross";
  // The split's keyed stream: the speed, then each child's direction and speed (cross: one
  // turn), then each child's lifetime (firework_draws.ts); drawn at once into scratch.
  const drawn = cross ? 2 + children : 1 + (CHILD_DRAWS + 1) * children;
  const scratch = sky.scratchFor(drawn);
  const draws = scratch.draws;
  hashUnits(key, 0, draws, 0, drawn);
  const base = split.speed[0] + draws[0] * (split.speed[1] - split.speed[0]);
  const { position, previous, origin, velocity } = sky.pool;
  const closed = sky.closedForm;
  if (cross) {
    // Two unit vectors across the parent's flight, turned by a random angle: ±f1, ±f2.
    const vl = Math.sqrt(pvx * pvx + pvy * pvy + pvz * pvz) || 1;
    const vx = pvx / vl, vy = pvy / vl, vz = pvz / vl;
    // a = up unless the flight is near vertical, then x; e1 = normalise(a × v̂), e2 = v̂ × e1.
    let e1x = 0, e1y = 0, e1z = 0;
    if (Math.abs(vy) < 0.9) {
      e1x = vz;
      e1z = -vx;
    } else {
      e1y = -vz;
      e1z = vy;
    }
    const el = 1 / Math.sqrt(e1x * e1x + e1y * e1y + e1z * e1z);
    e1x *= el;
    e1y *= el;
    e1z *= el;
    const e2x = vy * e1z - vz * e1y, e2y = vz * e1x - vx * e1z, e2z = vx * e1y - vy * e1x;
    const turn = TAU * draws[1];
    const c = cos(turn), sn = sin(turn);
    const f1x = c * e1x + sn * e2x, f1y = c * e1y + sn * e2y, f1z = c * e1z + sn * e2z;
    const f2x = c * e2x - sn * e1x, f2y = c * e2y - sn * e1y, f2z = c * e2z - sn * e1z;
    for (let n = 0; n < 4; n++) {
      const sign = n & 1 ? -1 : 1;
      const fx = n < 2 ? f1x : f2x, fy = n < 2 ? f1y : f2y, fz = n < 2 ? f1z : f2z;
      const speed = base * sign;
      place(sky, first + n, ax, ay, az, cx + fx * speed, cy + fy * speed, cz + fz * speed);
    }
  } else {
    // The spherical placement per child (burst.ts), the angles' cosines and sines in one pass.
    const { angle, cos: cs, sin: sn } = scratch;
    for (let n = 0; n < children; n++) angle[n] = TAU * draws[2 + CHILD_DRAWS * n];
    cosSinArray(angle, children, cs, sn);
    for (let n = 0; n < children; n++) {
      const d = 1 + CHILD_DRAWS * n;
      const cosPhi = 1 - 2 * draws[d];
      const speed = base * (1 + 0.2 * (2 * draws[d + 2] - 1));
      const ring = Math.sqrt(1 - cosPhi * cosPhi) * speed;
      const p = (first + n) * 3;
      origin[p] = ax;
      origin[p + 1] = ay;
      origin[p + 2] = az;
      if (!closed) {
        position[p] = previous[p] = ax;
        position[p + 1] = previous[p + 1] = ay;
        position[p + 2] = previous[p + 2] = az;
      }
      velocity[p] = cx + ring * cs[n];
      velocity[p + 1] = cy + speed * cosPhi;
      velocity[p + 2] = cz + ring * sn[n];
    }
  }
  const lifeLo = split.life[0], lifeSpan = split.life[1] - split.life[0] + 1;
  const lives = cross ? 2 : 1 + CHILD_DRAWS * children;
  const childFlicker = split.flicker;
  for (let n = 0; n < children; n++) {
    const i = first + n;
    const lifetime = lifeLo + Math.floor(draws[lives + n] * lifeSpan);
    maxLife[i] = lifetime;
    style[i] = s;
    size[i] = childSize;
    flicker[i] = childFlicker ? flickerKey(key, n) : 0;
    born[i] = bornRel;
    if (!closed) {
      life[i] = lifetime;
      paint(color, i, s, 0, lifetime);
    }
  }
}

/** Split `j`'s children are born: counted live (stepping), the range grown. */
function splitCount(sky: Sky, block: FireworkBlock, b: number, j: number): void {
  const plan = block.plan;
  const split = block.recipe.split!;
  const rel = plan.childStart[b] + j * split.children;
  if (!sky.closedForm) touch(block, rel, rel + split.children);
  block.hi = Math.max(block.hi, rel + split.children);
  sky.liveCount += split.children;
}

/**
 * `FireworkSparkShader`: firework sparks placed and evaluated on the GPU. An instance carries a
 * reference to a row of its launch's group in the break table (firework_sparks.ts), from which
 * the vertex shader derives the shell, the trail spark a trail ring slot holds, or the burst
 * spark, split child or ember as shared/fireworks/ places it (rise.ts `spawnTrail`; `burstSpark`,
 * `splitChild`, `dropEmber`: the break's keyed draws, firework_draws.ts); it then evaluates
 * shared/'s closed form at the displayed time — position `origin + velocity·REACH[a] −
 * (0, DROP[a], 0)` from the motion table, interpolated between the world's last two ticks as the
 * CPU packing did, the colour curve sample of its style at the world's tick, the strobe, the
 * streak back along its last tick of motion (never past its birth point) and the young-burst
 * dimming (firework_youth.ts; spark_packing.ts has the same rules for the CPU-packed gun and fountain) — then draws
 * the same camera-facing streak quad as `SparkStreakShader`, whose fragment stage it shares.
 * tests/browser/firework_spark_shader_test.ts runs this shader in WebGL and compares it with
 * shared/.
 */
import { COLOR_STEPS, PALETTE_SIZE, STROBE_DIM } from "../../shared/firework_colors.ts";
import { MOTION, MOTIONS } from "../../shared/firework_motion.ts";
import {
  PHASE,
  TRAIL_LIFE_MAX,
  TRAIL_LIFE_MIN,
  TRAIL_PER_TICK,
  TRAIL_RING_TICKS,
} from "../../shared/firework_plan.ts";
import { TRAIL_JITTER, TRAIL_SIDE, TRAIL_SINK } from "../../shared/fireworks/mod.ts";
import {
  AMBER_TINT,
  GOLD_TINT,
  RAINBOW_FIRST,
  RAINBOW_HUES,
  SILVER_TINT,
} from "../../shared/firework_colors.ts";
import {
  BURST_DRAW,
  BURST_SPARKS,
  BURST_STREAM,
  CHILD_DRAWS,
  SPARK_DRAWS,
} from "../../shared/firework_draws.ts";
import { NOISE_FREQUENCY, NOISE_STRENGTH } from "../../shared/firework_noise.ts";
import { TAU } from "../../shared/dmath.ts";
import { PALM_COS_PHI } from "../../shared/fireworks/mod.ts";
import { DERIVED, INDEX_SPAN, MAX_RECIPES } from "./firework_derived_packing.ts";
import {
  BREAK_TEXELS,
  LAUNCH_ROW,
  MAX_BREAKS_PER_GROUP,
  ROWS_PER_LINE,
} from "./firework_break_table.ts";
import { SparkStreakShader, STREAK_QUAD_GLSL } from "./spark_streak_shader.ts";
import { EMBER_N, MAX_TRAILS } from "./firework_ember_packing.ts";
import { YOUTH_FLOOR } from "./firework_youth.ts";

/** A float literal for GLSL. */
const glf = (v: number) => (Number.isInteger(v) ? v.toFixed(1) : String(v));

/** Motion classes, the length of the per-class uniform arrays. */
export const FIREWORK_CLASSES = MOTIONS.length;

/** Themes × breaks: the length of the theme uniform array (4 breaks a theme). */
export const THEME_ROWS = 16;

/** The least 32-bit h with h / 2^32 ≥ p: `hashUnit < p` is exactly `h < threshold(p)`. */
const threshold = (p: number) => `${Math.ceil(p * 4294967296)}u`;

/** Shader sources (shared uniforms come from point_uniforms.ts). */
export const FireworkSparkShader = {
  vertexShader: /* glsl */ `
// position.x: 0 at the tail end, 1 at the head end; position.y: -1 / +1 across.
attribute vec2 derivedRef;    // the row it is derived from + 1 (0: nothing drawn), its place
// A slot's reference (firework_derived_packing.ts) names the shell or a slot of its trail ring
// (from its group's launch row: the shell's birth state, born at the launch tick and drawn for
// its rise, the trail's style and the launch's stream key; the trail spark a ring slot holds at
// any tick is derived here as shared/fireworks/rise.ts drops it), or a burst spark, a split child
// or an ember of a burst spark, placed here from its break's row in uBreaks as shared/ places it.
uniform highp sampler2D uMotion;  // (age, class): REACH, DROP, VELOCITY_KEPT, VELOCITY_FALL
uniform vec4 uEmberA[${MAX_TRAILS}]; // per trail row: every, ring, carry, jitter
uniform vec4 uEmberB[${MAX_TRAILS}]; // per trail row: life min, life span, spark class, −
uniform highp sampler2D uColors;  // (curve sample, style): rgba
uniform float uTick;        // the world's tick, relative to the epoch
uniform float uAlpha;       // display time = uTick − 1 + uAlpha
uniform int uStrobeTick;    // the world's tick for the strobe; −1: steady (reduced motion)
uniform float uTailTicks;   // streak length in ticks of motion, times the class factor
uniform float uClassTicks[${FIREWORK_CLASSES}];
uniform float uClassYouth[${FIREWORK_CLASSES}];
// Placing from a break (firework_derived_packing.ts): its row, per recipe row, per theme and break.
uniform highp sampler2D uBreaks;
uniform vec4 uBurstA[${MAX_RECIPES}]; // shape (0 sphere, 1 palm, 2 ring, 3 heart), spread low, spread span, noise (0/1)
uniform vec4 uBurstB[${MAX_RECIPES}]; // life min, life span, motion class, palette (0 theme, 1 gold, 2 crackle)
uniform vec4 uBurstC[${MAX_RECIPES}]; // strobe (0/1), trail row (−1: none), ember motion class, −
uniform vec4 uSplitA[${MAX_RECIPES}]; // children (0: no split), cross (0/1), carry, motion class
uniform vec4 uSplitB[${MAX_RECIPES}]; // speed low, speed span, life min, life span
uniform vec4 uSplitC[${MAX_RECIPES}]; // delay min, delay span, silver (0/1), strobe (0/1)
uniform vec4 uThemes[${THEME_ROWS}];  // per theme and break: main tint, second tint, mode, gold trails
uniform float uClassSize[${FIREWORK_CLASSES}];
${STREAK_QUAD_GLSL}
vec3 sparkAt(vec3 origin, vec3 velocity, float age, int motion) {
  vec2 rd = texelFetch(uMotion, ivec2(int(age), motion), 0).rg;
  return origin + velocity * rd.x - vec3(0.0, rd.y, 0.0);
}
// shared/prng.ts's fmix32, mixKey and hashUnit in 32-bit unsigned maths (the same bits).
uint fmix32(uint h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}
uint mixKey(uint key, uint index) {
  return fmix32((key ^ 0x9e3779b9u) * 0x27d4eb2du + fmix32(index));
}
// hashUnit to 24 bits (exact in float32): for the embers' random extra speed.
float hashUnit(uint key, uint index) {
  return float(mixKey(key, index) >> 8) / 16777216.0;
}
// floor(hashUnit(key, index) · span) exactly as shared/ computes it, for span ≤ 256.
int pick(uint key, uint index, uint span) {
  uint h = mixKey(key, index);
  return int(((h >> 8) * span + (((h & 255u) * span) >> 8)) >> 24);
}
// shared/prng.ts's Rng (sfc32): seeded from a key, 12 rounds discarded.
uint sfcNext(inout uvec4 s) {
  uint t = s.x + s.y + s.w;
  s.w += 1u;
  s.x = s.y ^ (s.y >> 9);
  s.y = s.z + (s.z << 3);
  s.z = ((s.z << 21) | (s.z >> 11)) + t;
  return t;
}
uvec4 sfcSeed(uint key) {
  uvec4 s = uvec4(fmix32(key ^ 0x243f6a88u), fmix32(key ^ 0x85a308d3u), fmix32(key ^ 0x13198a2eu), 1u);
  for (int i = 0; i < 12; i++) sfcNext(s);
  return s;
}
float sfcUnit(inout uvec4 s) {
  return float(sfcNext(s)) / 4294967296.0;
}
// shared/fireworks/sky.ts's flickerKey: a strobe key in 1..255 for spark n of stream key.
int flickerKey(uint key, int n) {
  return 1 + int(((key + uint(n) * 0x9e3779b1u) >> 24) % 255u);
}
// shared/firework_noise.ts's directionNoise: the lattice hashes exact, the blend in float32.
float latticeUnit(uint h) {
  h = (h ^ (h >> 15)) * 0x2c1b3c6du;
  h = (h ^ (h >> 12)) * 0x297a2d39u;
  return float(h ^ (h >> 15)) / 2147483647.5 - 1.0;
}
float directionNoise(vec3 direction, float frequency, uint key) {
  vec3 p = direction * frequency + 8.0;
  vec3 cell = floor(p);
  vec3 t = p - cell;
  t = t * t * (3.0 - 2.0 * t);
  ivec3 c = ivec3(cell);
  uint hx0 = uint(c.x) * 0x27d4eb2du, hx1 = uint(c.x + 1) * 0x27d4eb2du;
  uint hy0 = uint(c.y) * 0x165667b1u, hy1 = uint(c.y + 1) * 0x165667b1u;
  uint hz0 = (uint(c.z) * 0x61c88647u) ^ key, hz1 = (uint(c.z + 1) * 0x61c88647u) ^ key;
  float c000 = latticeUnit(hx0 ^ hy0 ^ hz0), c100 = latticeUnit(hx1 ^ hy0 ^ hz0);
  float c010 = latticeUnit(hx0 ^ hy1 ^ hz0), c110 = latticeUnit(hx1 ^ hy1 ^ hz0);
  float c001 = latticeUnit(hx0 ^ hy0 ^ hz1), c101 = latticeUnit(hx1 ^ hy0 ^ hz1);
  float c011 = latticeUnit(hx0 ^ hy1 ^ hz1), c111 = latticeUnit(hx1 ^ hy1 ^ hz1);
  float x00 = c000 + (c100 - c000) * t.x, x10 = c010 + (c110 - c010) * t.x;
  float x01 = c001 + (c101 - c001) * t.x, x11 = c011 + (c111 - c011) * t.x;
  float y0 = x00 + (x10 - x00) * t.y, y1 = x01 + (x11 - x01) * t.y;
  return y0 + (y1 - y0) * t.z;
}
// Spark n's lifetime: its life draw, or (the first splitting sparks of a sphere) its split delay
// (shared/firework_plan.ts's splitDelay). key: the break's stream key.
int burstLife(int r, int b, uint prefix, uint key, int n, int aux) {
  if (uBurstA[r].x < 0.5 && n < aux) {
    vec4 C = uSplitC[r];
    return int(C.x + 0.5) + pick(mixKey(prefix, uint(${PHASE.delay} + b)), uint(n), uint(C.y + 0.5));
  }
  vec4 B = uBurstB[r];
  return int(B.x + 0.5) +
    pick(key, uint(${BURST_SPARKS} + ${SPARK_DRAWS} * n + ${BURST_DRAW.life}), uint(B.y + 0.5));
}
// shared/fireworks/burst.ts's placeBurst for spark n of a break, from the break's keyed stream
// (firework_draws.ts; key: the break's stream key): its velocity, tint and strobe key. aux: the
// break's splitting sparks (sphere) or its spark count (the other shapes); e1, e2: a ring's or
// heart's plane.
void burstSpark(int r, int theme, int b, uint key, int n, int aux, vec3 inherited, float base,
    vec3 e1, vec3 e2, out vec3 velocity, out int tint, out int flicker) {
  vec4 A = uBurstA[r], B = uBurstB[r];
  int shape = int(A.x + 0.5);
  uint d = uint(${BURST_SPARKS} + ${SPARK_DRAWS} * n);
  float u1 = hashUnit(key, d + ${BURST_DRAW.placement}u);
  float ua = hashUnit(key, d + ${BURST_DRAW.angle}u);
  float speed = base * (A.y + A.z * hashUnit(key, d + ${BURST_DRAW.speed}u));
  // The angle each shape turns by: sphere the azimuth, palm a frond, ring and heart a step.
  float angle = shape == 0
    ? ${glf(TAU)} * ua
    : ${glf(TAU)} * (float(n) + (shape == 1 ? ua : u1)) / float(aux);
  float c = cos(angle), s = sin(angle);
  if (shape <= 1) {
    // The spherical placement (sphere: cos φ = 1 − 2u; palm: a band of cos φ).
    float cosPhi = shape == 0
      ? 1.0 - 2.0 * u1
      : ${glf(PALM_COS_PHI[0])} + ${glf(PALM_COS_PHI[1] - PALM_COS_PHI[0])} * u1;
    float ring = sqrt(max(0.0, 1.0 - cosPhi * cosPhi));
    if (shape == 0 && A.w > 0.5) {
      float frequency = ${glf(NOISE_FREQUENCY[0])} +
        hashUnit(key, ${BURST_STREAM.frequency}u) * ${glf(NOISE_FREQUENCY[1] - NOISE_FREQUENCY[0])};
      float strength = ${glf(NOISE_STRENGTH[0])} +
        hashUnit(key, ${BURST_STREAM.strength}u) * ${glf(NOISE_STRENGTH[1] - NOISE_STRENGTH[0])};
      float noise = directionNoise(vec3(ring * c, cosPhi, ring * s), frequency,
        mixKey(key, ${BURST_STREAM.noiseKey}u));
      // shared/firework_noise.ts's noiseFactor.
      speed *= (1.0 + noise * strength) / (1.0 + strength);
    }
    velocity = inherited + vec3(ring * speed * c, speed * cosPhi, ring * speed * s);
  } else if (shape == 2) {
    velocity = inherited + (c * e1 + s * e2) * speed;
  } else {
    // Heart: x = sin³t, y = (13 cos t − 5 cos 2t − 2 cos 3t − cos 4t) / 16.
    float c2 = 2.0 * c * c - 1.0, c3 = c * (4.0 * c * c - 3.0), c4 = 2.0 * c2 * c2 - 1.0;
    velocity = inherited + (s * s * s * e1 + ((13.0 * c - 5.0 * c2 - 2.0 * c3 - c4) / 16.0) * e2) * speed;
  }
  uint h = mixKey(key, d + ${BURST_DRAW.tint}u);
  vec4 T = uThemes[theme * 4 + b];
  int primary = int(T.x + 0.5), secondary = int(T.y + 0.5), mode = int(T.z + 0.5);
  int palette = int(B.w + 0.5);
  if (palette == 1) tint = h < ${threshold(0.6)} ? ${GOLD_TINT} : ${AMBER_TINT};
  else if (mode == 1) tint = ${RAINBOW_FIRST} + pick(key, d + ${BURST_DRAW.tint}u, ${RAINBOW_HUES}u);
  else if (palette == 2) tint = h < ${threshold(0.5)} ? ${GOLD_TINT} : primary;
  else if (mode == 2) tint = (n & 1) == 1 ? secondary : primary;
  else tint = h < ${threshold(0.7)} ? primary : secondary;
  flicker = uBurstC[r].x > 0.5 || (tint == ${SILVER_TINT} && mode == 3) ? flickerKey(key, n) : 0;
}
// Texel t of a break's row.
vec4 breakTexel(int row, int t) {
  return texelFetch(uBreaks,
    ivec2((row % ${ROWS_PER_LINE}) * ${BREAK_TEXELS} + t, row / ${ROWS_PER_LINE}), 0);
}
// shared/fireworks/split.ts's splitBirth for child k of split j (its parent, spark j, dies there).
// The split's stream key is mixKey(prefix, PHASE.child + (b << 12) + j); the child's lifetime
// comes from splitChildLife.
void splitChild(int r, uint key, int k, vec3 apex, vec3 parentVelocity, int delay,
    out vec3 origin, out vec3 velocity) {
  vec4 SA = uSplitA[r], SB = uSplitB[r];
  vec4 m = texelFetch(uMotion, ivec2(delay, int(uBurstB[r].z + 0.5)), 0);
  origin = apex + parentVelocity * m.r - vec3(0.0, m.g, 0.0);
  vec3 pv = parentVelocity * m.b - vec3(0.0, m.a, 0.0);
  vec3 carried = pv * SA.z;
  float base = SB.x + hashUnit(key, 0u) * SB.y;
  bool crossette = SA.y > 0.5;
  if (crossette) {
    float vl = length(pv);
    vec3 v = pv / (vl > 0.0 ? vl : 1.0);
    vec3 e1 = abs(v.y) < 0.9 ? vec3(v.z, 0.0, -v.x) : vec3(0.0, -v.z, v.y);
    e1 /= length(e1);
    vec3 e2 = cross(v, e1);
    float turn = ${glf(TAU)} * hashUnit(key, 1u);
    float c = cos(turn), s = sin(turn);
    vec3 f = k < 2 ? c * e1 + s * e2 : c * e2 - s * e1;
    velocity = carried + f * (base * ((k & 1) == 1 ? -1.0 : 1.0));
  } else {
    uint d = uint(1 + ${CHILD_DRAWS} * k);
    float cosPhi = 1.0 - 2.0 * hashUnit(key, d);
    float angle = ${glf(TAU)} * hashUnit(key, d + 1u);
    float speed = base * (1.0 + 0.2 * (2.0 * hashUnit(key, d + 2u) - 1.0));
    float ring = sqrt(max(0.0, 1.0 - cosPhi * cosPhi)) * speed;
    velocity = carried + vec3(ring * cos(angle), speed * cosPhi, ring * sin(angle));
  }
}
// Child k's lifetime from its split's stream (key): after the speed and directions.
int splitChildLife(int r, uint key, int k) {
  vec4 SA = uSplitA[r], SB = uSplitB[r];
  uint lives = SA.y > 0.5 ? 2u : uint(1 + ${CHILD_DRAWS} * int(SA.x + 0.5));
  return int(SB.z + 0.5) + pick(key, lives + uint(k), uint(SB.w + 0.5));
}
void hide() {
  // Not born yet at the world's tick, dead, or not drawn: a degenerate quad off screen.
  gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
}
// The ember wave m that ring slot q of a trailing spark holds at the world's tick (the spark
// sparkAge ticks old, living sparkLife ticks: it drops ember m at age (m + 1)·every while younger
// than its life; the slot holds the last m ≡ q (mod ring) dropped), or −1 when none has yet.
int emberWave(int row, int q, int sparkAge, int sparkLife) {
  vec4 ea = uEmberA[row];
  int every = int(ea.x + 0.5), ring = int(ea.y + 0.5);
  if (sparkAge < every) return -1;
  int dropped = min(sparkAge / every, (sparkLife + every - 1) / every - 1);
  if (dropped <= q) return -1;
  return q + ring * ((dropped - 1 - q) / ring);
}
// Ember m of trailing spark n (born at born from origin with velocity), trail row row, its
// break's ember stream streamKey: its birth point, velocity and born tick (its lifetime:
// emberLife).
void placeEmber(int row, int n, int m, uint streamKey, inout vec3 origin, inout vec3 velocity,
    inout float born) {
  vec4 ea = uEmberA[row], eb = uEmberB[row];
  int at = (m + 1) * int(ea.x + 0.5);
  vec4 motion = texelFetch(uMotion, ivec2(at, int(eb.z + 0.5)), 0);
  uint index = uint((n * 256 + m) * 4);
  origin = origin + velocity * motion.r - vec3(0.0, motion.g, 0.0);
  velocity = (velocity * motion.b - vec3(0.0, motion.a, 0.0)) * ea.z + ea.w * (2.0 * vec3(
    hashUnit(streamKey, index), hashUnit(streamKey, index + 1u), hashUnit(streamKey, index + 2u)
  ) - 1.0);
  born += float(at);
}
int emberLife(int row, int n, int m, uint streamKey) {
  vec4 eb = uEmberB[row];
  return int(eb.x + 0.5) + pick(streamKey, uint((n * 256 + m) * 4) + 3u, uint(eb.y + 0.5));
}
void main() {
  if (derivedRef.x < 0.5) { hide(); return; }
  int breakRow = int(derivedRef.x + 0.5) - 1;
  // Its launch's row: a slot outside the launch's range names a row another launch took since
  // its own ended (a gap's stale reference), and is not drawn.
  int launchRow = breakRow - breakRow % ${MAX_BREAKS_PER_GROUP} + ${LAUNCH_ROW};
  vec4 range = breakTexel(launchRow, 4);
  int local = gl_InstanceID - int(range.x + 0.5);
  if (local < 0 || local >= int(range.y + 0.5)) { hide(); return; }
  int place = int(derivedRef.y + 0.5);
  int q = place % ${EMBER_N}, index = (place / ${EMBER_N}) % ${INDEX_SPAN};
  int kind = place / (${EMBER_N} * ${INDEX_SPAN});
  vec3 origin, velocity;
  float born, maxLife, visible, size;
  int key, style;
  if (kind >= ${DERIVED.shell}) {
    // The shell, or the trail spark its ring slot holds.
    vec4 l0 = breakTexel(launchRow, 0), l1 = breakTexel(launchRow, 1);
    vec4 l2 = breakTexel(launchRow, 2);
    origin = l0.xyz;
    born = l0.w;
    velocity = l1.xyz;
    maxLife = l1.w;
    style = int(l2.x + 0.5);
    key = int(l2.y + 0.5);
    size = l2.z;
    visible = l2.w;
  }
  if (kind < ${DERIVED.shell}) {
    // Placed here from its break's row: a burst spark, a split child or an ember.
    vec4 t0 = breakTexel(breakRow, 0), t1 = breakTexel(breakRow, 1), t2 = breakTexel(breakRow, 2);
    vec4 t3 = breakTexel(breakRow, 3), t4 = breakTexel(breakRow, 4);
    int r = int(t4.x + 0.5), theme = int(t4.y + 0.5), b = int(t4.z + 0.5), aux = int(t4.w + 0.5);
    uint prefix = uint(t2.w + 0.5) | (uint(t3.w + 0.5) << 16);
    int children = max(1, int(uSplitA[r].x + 0.5));
    int n = kind == ${DERIVED.child} ? index / children : index;
    int k = index - n * children;
    uint burstKey = mixKey(prefix, uint(${PHASE.burst} + b));
    int life = burstLife(r, b, prefix, burstKey, n, aux);
    born = t0.w;
    // What the slot holds at the world's tick, alive or not, from lifetimes alone: most slots of
    // a busy sky are dead or not born yet, and are hidden before anything is placed.
    float sparkAge = uTick - born;
    uint childKey = 0u, emberKey = 0u;
    int wave = -1, row = int(uBurstC[r].y + 0.5);
    if (kind == ${DERIVED.spark}) {
      maxLife = float(life);
    } else if (kind == ${DERIVED.child}) {
      childKey = mixKey(prefix, uint(${PHASE.child} + (b << 12) + n));
      maxLife = float(splitChildLife(r, childKey, k));
      sparkAge -= float(life);
    } else {
      wave = emberWave(row, q, int(sparkAge), life);
      if (wave < 0) { hide(); return; }
      emberKey = mixKey(prefix, uint(${PHASE.ember} + b));
      maxLife = float(emberLife(row, n, wave, emberKey));
      sparkAge -= float((wave + 1) * int(uEmberA[row].x + 0.5));
    }
    if (sparkAge < 0.0 || sparkAge >= maxLife) { hide(); return; }
    vec3 apex = t0.xyz;
    origin = apex;
    int tint, flicker;
    burstSpark(r, theme, b, burstKey, n, aux, t1.xyz, t1.w, t2.xyz, t3.xyz, velocity, tint, flicker);
    int motion = int(uBurstB[r].z + 0.5);
    key = flicker;
    style = motion * ${PALETTE_SIZE} + tint;
    size = uClassSize[motion];
    if (kind == ${DERIVED.child}) {
      splitChild(r, childKey, k, apex, velocity, life, origin, velocity);
      born += float(life);
      int splitMotion = int(uSplitA[r].w + 0.5);
      style = splitMotion * ${PALETTE_SIZE} + (uSplitC[r].z > 0.5 ? ${SILVER_TINT} : tint);
      key = uSplitC[r].w > 0.5 ? flickerKey(childKey, k) : 0;
      size = uClassSize[splitMotion];
    } else if (kind == ${DERIVED.ember}) {
      placeEmber(row, n, wave, emberKey, origin, velocity, born);
      int emberMotion = int(uBurstC[r].z + 0.5);
      style = emberMotion * ${PALETTE_SIZE} + (uThemes[theme * 4 + b].w > 0.5 ? ${GOLD_TINT} : tint);
      key = 0;
      size = uClassSize[emberMotion];
    }
    visible = maxLife;
  } else if (kind == ${DERIVED.trail}) {
    // Trail ring slot s = ${TRAIL_PER_TICK}·j + n: the shell drops ${TRAIL_PER_TICK} sparks on each rise tick k
    // (k < its rise) into slots ${TRAIL_PER_TICK}·(k mod ${TRAIL_RING_TICKS}) + n, born at k + 1; the slot holds
    // the last k ≡ j dropped by the world's tick.
    vec4 l3 = breakTexel(launchRow, 3);
    int j = index / ${TRAIL_PER_TICK}, n = index - j * ${TRAIL_PER_TICK};
    int last = min(int(uTick - born) - 1, int(visible + 0.5) - 1);
    if (last < j) { hide(); return; }
    int k = j + ${TRAIL_RING_TICKS} * ((last - j) / ${TRAIL_RING_TICKS});
    uint launchKey = uint(l3.y + 0.5) | (uint(l3.z + 0.5) << 16);
    style = int(l3.x + 0.5);
    uvec4 rng = sfcSeed(mixKey(launchKey, uint(${PHASE.trail} + k)));
    for (int i = 0; i < n * 5; i++) sfcNext(rng);
    float jitter = sfcUnit(rng);
    float sx = sfcUnit(rng), sy = sfcUnit(rng), sz = sfcUnit(rng);
    uint h = sfcNext(rng);
    uint span = ${TRAIL_LIFE_MAX - TRAIL_LIFE_MIN + 1}u;
    int life = ${TRAIL_LIFE_MIN} + int(((h >> 8) * span + (((h & 255u) * span) >> 8)) >> 24);
    vec3 from = sparkAt(origin, velocity, float(k), ${MOTION.shell});
    vec3 to = sparkAt(origin, velocity, float(k + 1), ${MOTION.shell});
    float f = (float(n) + 0.5 + ${glf(TRAIL_JITTER)} * (jitter - 0.5)) / ${glf(TRAIL_PER_TICK)};
    origin = from + (to - from) * f;
    velocity = vec3(
      ${glf(-TRAIL_SIDE)} + ${glf(2 * TRAIL_SIDE)} * sx,
      -(${glf(TRAIL_SINK[0])} + ${glf(TRAIL_SINK[1] - TRAIL_SINK[0])} * sy),
      ${glf(-TRAIL_SIDE)} + ${glf(2 * TRAIL_SIDE)} * sz
    );
    born += float(k + 1);
    maxLife = float(life);
    visible = maxLife;
    key = 0;
    size = ${glf(MOTIONS[MOTION.trail].size)};
  }
  float age = uTick - born;
  if (age < 0.0 || age >= visible) { hide(); return; }
  int motion = style / ${PALETTE_SIZE};
  vec3 now = sparkAt(origin, velocity, age, motion);
  vec3 before = age >= 1.0 ? sparkAt(origin, velocity, age - 1.0, motion) : now;
  vec3 moved = now - before;
  vec3 head = before + moved * uAlpha;
  vec3 tail = -moved * (uTailTicks * uClassTicks[motion]);
  vec3 back = origin - head;
  float backLength = dot(back, back);
  float tailLength = dot(tail, tail);
  if (tailLength > backLength) tail *= sqrt(backLength / tailLength);
  float light = 1.0;
  // firework_youth.ts's youthLight.
  float radius = uClassYouth[motion];
  if (radius > 0.0) light = min(1.0, ${glf(YOUTH_FLOOR)} + backLength / (radius * radius));
  if (key != 0 && uStrobeTick >= 0 &&
      ((uStrobeTick * (3 + (key & 1) * 2) + key * 7) & 15) >= 7) light *= ${STROBE_DIM.toFixed(4)};
  int curve = int(floor(age * ${COLOR_STEPS.toFixed(1)} / maxLife + 0.5));
  vec4 curveColor = texelFetch(uColors, ivec2(curve, style), 0);

  float pixels = placeStreak(head, tail, size);
  if (pixels < 0.0) return;
  vColor = vec4(curveColor.rgb * light, curveColor.a);
  vColor.a *= clamp(pixels / 2.0, 0.15, 1.0) / (1.0 + 0.35 * vLength);
}
`,
  fragmentShader: SparkStreakShader.fragmentShader,
};

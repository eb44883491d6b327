/**
 * `FireworkSparkShader`: firework sparks evaluated on the GPU. Each instance carries a spark's
 * birth state, uploaded once when it is born (firework_sparks.ts); the vertex shader evaluates
 * shared/'s closed form at the displayed time — position `origin + velocity·REACH[a] −
 * (0, DROP[a], 0)` from the motion table, interpolated between the world's last two ticks as the
 * CPU packing did, the colour curve sample of its style at the world's tick, the strobe, the
 * streak back along its last tick of motion (never past its birth point) and the young-burst
 * dimming (spark_packing.ts has the same rules for the CPU-packed gun and fountain) — then draws
 * the same camera-facing streak quad as `SparkStreakShader`, whose fragment stage it shares.
 * `fireworkHead` in firework_shader_math.ts mirrors the position maths in float32 for tests.
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
import { TRAIL_JITTER, TRAIL_SIDE, TRAIL_SINK } from "../../shared/fireworks.ts";
import { POINT_SIZE_GLSL } from "./point_uniforms.ts";
import { SparkStreakShader, STREAK_QUAD_GLSL } from "./spark_streak_shader.ts";
import { EMBER_N, EMBER_T, MAX_TRAILS, SHELL_TRAIL_ROW } from "./firework_ember_packing.ts";

/** A float literal for GLSL. */
const glf = (v: number) => (Number.isInteger(v) ? v.toFixed(1) : String(v));

/** Motion classes, the length of the per-class uniform arrays. */
export const FIREWORK_CLASSES = MOTIONS.length;

/** Shader sources (shared uniforms come from point_uniforms.ts). */
export const FireworkSparkShader = {
  vertexShader: /* glsl */ `
// position.x: 0 at the tail end, 1 at the head end; position.y: -1 / +1 across.
attribute vec4 originBorn;    // spawn point xyz, tick of age 0 (relative to the epoch)
attribute vec4 velocityLife;  // spawn velocity xyz (m/s), max life (ticks, the colour curve's)
attribute vec4 styleFlicker;  // style, strobe key (0 steady), size (m), visible ages [0, w)
// An ember ring slot (w < 0) carries its trailing spark's birth state in the first two, then the
// ember's style, its break's ember stream key in two 16-bit halves and −(1 + packed ring slot,
// spark and trail row): the ember in that slot at any tick is derived here (shared/'s #dropEmbers).
// A shell's trail ring slot (row ${SHELL_TRAIL_ROW}) carries the shell's birth state (born: the
// launch tick, life: its rise ticks), the trail's style and the launch's stream key before its
// phase: the trail spark in that slot at any tick is derived here (shared/'s #spawnTrail).
uniform highp sampler2D uMotion;  // (age, class): REACH, DROP, VELOCITY_KEPT, VELOCITY_FALL
uniform vec4 uEmberA[${MAX_TRAILS}]; // per trail row: every, ring, carry, jitter
uniform vec4 uEmberB[${MAX_TRAILS}]; // per trail row: life min, life span, spark class, size
uniform highp sampler2D uColors;  // (curve sample, style): rgba
uniform float uTick;        // the world's tick, relative to the epoch
uniform float uAlpha;       // display time = uTick − 1 + uAlpha
uniform int uStrobeTick;    // the world's tick for the strobe; −1: steady (reduced motion)
uniform float uTailTicks;   // streak length in ticks of motion, times the class factor
uniform float uClassTicks[${FIREWORK_CLASSES}];
uniform float uClassYouth[${FIREWORK_CLASSES}];
uniform float uGlow;
uniform vec2 uViewport;
varying vec4 vColor;
varying vec2 vLocal;
varying float vLength;
${POINT_SIZE_GLSL}
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
void hide() {
  // Not born yet at the world's tick, dead, or not drawn: a degenerate quad off screen.
  gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
}
void main() {
  vec3 origin = originBorn.xyz;
  vec3 velocity = velocityLife.xyz;
  float born = originBorn.w;
  float maxLife = velocityLife.w;
  float visible = styleFlicker.w;
  int key = int(styleFlicker.y + 0.5);
  float size = styleFlicker.z;
  int packedSlot = visible < 0.0 ? int(-visible + 0.5) - 1 : 0;
  if (visible < 0.0 && packedSlot / ${EMBER_T} == ${SHELL_TRAIL_ROW}) {
    // Trail ring slot s = ${TRAIL_PER_TICK}·j + n: the shell drops ${TRAIL_PER_TICK} sparks on each rise tick k
    // (k < its rise) into slots ${TRAIL_PER_TICK}·(k mod ${TRAIL_RING_TICKS}) + n, born at k + 1; the slot holds
    // the last k ≡ j dropped by the world's tick.
    int s = packedSlot - ${EMBER_T * SHELL_TRAIL_ROW};
    int j = s / ${TRAIL_PER_TICK}, n = s - j * ${TRAIL_PER_TICK};
    int last = min(int(uTick - born) - 1, int(maxLife + 0.5) - 1);
    if (last < j) { hide(); return; }
    int k = j + ${TRAIL_RING_TICKS} * ((last - j) / ${TRAIL_RING_TICKS});
    uint launchKey = uint(styleFlicker.y + 0.5) | (uint(styleFlicker.z + 0.5) << 16);
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
  } else if (visible < 0.0) {
    // Ember ring slot q of trailing spark n: the spark drops ember m at age (m + 1)·every while
    // younger than its life; the slot holds the last m ≡ q (mod ring) dropped by the world's tick.
    int packed = packedSlot;
    int q = packed % ${EMBER_N}, n = (packed / ${EMBER_N}) % ${EMBER_T / EMBER_N};
    int row = packed / ${EMBER_T};
    vec4 ea = uEmberA[row], eb = uEmberB[row];
    int every = int(ea.x + 0.5), ring = int(ea.y + 0.5);
    int sparkAge = int(uTick - born);
    if (sparkAge < every) { hide(); return; }
    int sparkLife = int(maxLife + 0.5);
    int dropped = min(sparkAge / every, (sparkLife + every - 1) / every - 1);
    if (dropped <= q) { hide(); return; }
    int m = q + ring * ((dropped - 1 - q) / ring);
    int at = (m + 1) * every;
    vec4 motion = texelFetch(uMotion, ivec2(at, int(eb.z + 0.5)), 0);
    uint streamKey = uint(styleFlicker.y + 0.5) | (uint(styleFlicker.z + 0.5) << 16);
    uint index = uint((n * 256 + m) * 4);
    origin = origin + velocity * motion.r - vec3(0.0, motion.g, 0.0);
    velocity = (velocity * motion.b - vec3(0.0, motion.a, 0.0)) * ea.z + ea.w * (2.0 * vec3(
      hashUnit(streamKey, index), hashUnit(streamKey, index + 1u), hashUnit(streamKey, index + 2u)
    ) - 1.0);
    maxLife = eb.x + float(pick(streamKey, index + 3u, uint(eb.y + 0.5)));
    born += float(at);
    visible = maxLife;
    key = 0;
    size = eb.w;
  }
  float age = uTick - born;
  if (age < 0.0 || age >= visible) { hide(); return; }
  int style = int(styleFlicker.x + 0.5);
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
  float radius = uClassYouth[motion];
  if (radius > 0.0) light = min(1.0, backLength / (radius * radius));
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

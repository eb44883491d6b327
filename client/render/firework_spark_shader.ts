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
import { MOTIONS } from "../../shared/firework_motion.ts";
import { POINT_SIZE_GLSL } from "./point_uniforms.ts";
import { SparkStreakShader } from "./spark_streak_shader.ts";

/** Motion classes, the length of the per-class uniform arrays. */
export const FIREWORK_CLASSES = MOTIONS.length;

/** Shader sources (shared uniforms come from point_uniforms.ts). */
export const FireworkSparkShader = {
  vertexShader: /* glsl */ `
// position.x: 0 at the tail end, 1 at the head end; position.y: -1 / +1 across.
attribute vec4 originBorn;    // spawn point xyz, tick of age 0 (relative to the epoch)
attribute vec4 velocityLife;  // spawn velocity xyz (m/s), max life (ticks, the colour curve's)
attribute vec4 styleFlicker;  // style, strobe key (0 steady), size (m), visible ages [0, w)
uniform highp sampler2D uMotion;  // (age, class): REACH, DROP
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
vec3 sparkAt(float age, int motion) {
  vec2 rd = texelFetch(uMotion, ivec2(int(age), motion), 0).rg;
  return originBorn.xyz + velocityLife.xyz * rd.x - vec3(0.0, rd.y, 0.0);
}
void main() {
  float age = uTick - originBorn.w;
  if (age < 0.0 || age >= styleFlicker.w) {
    // Not born yet at the world's tick, dead, or not drawn: a degenerate quad off screen.
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    return;
  }
  int style = int(styleFlicker.x + 0.5);
  int motion = style / ${PALETTE_SIZE};
  vec3 now = sparkAt(age, motion);
  vec3 before = age >= 1.0 ? sparkAt(age - 1.0, motion) : now;
  vec3 moved = now - before;
  vec3 head = before + moved * uAlpha;
  vec3 tail = -moved * (uTailTicks * uClassTicks[motion]);
  vec3 back = originBorn.xyz - head;
  float backLength = dot(back, back);
  float tailLength = dot(tail, tail);
  if (tailLength > backLength) tail *= sqrt(backLength / tailLength);
  float light = 1.0;
  float radius = uClassYouth[motion];
  if (radius > 0.0) light = min(1.0, backLength / (radius * radius));
  int key = int(styleFlicker.y + 0.5);
  if (key != 0 && uStrobeTick >= 0 &&
      ((uStrobeTick * (3 + (key & 1) * 2) + key * 7) & 15) >= 7) light *= ${STROBE_DIM.toFixed(4)};
  int curve = int(floor(age * ${COLOR_STEPS.toFixed(1)} / velocityLife.w + 0.5));
  vec4 curveColor = texelFetch(uColors, ivec2(curve, style), 0);
  float size = styleFlicker.z;

  vec4 viewHead = modelViewMatrix * vec4(head, 1.0);
  if (-viewHead.z < 0.1) {
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    return;
  }
  vec4 viewTail = modelViewMatrix * vec4(head + tail, 1.0);
  if (-viewTail.z < 0.1) {
    viewTail = viewHead + (viewTail - viewHead) * ((-viewHead.z - 0.1) / (viewTail.z - viewHead.z));
  }
  vec4 clipHead = projectionMatrix * viewHead;
  vec4 clipTail = projectionMatrix * viewTail;
  vec2 halfViewport = 0.5 * uViewport;
  vec2 headPixel = clipHead.xy / clipHead.w * halfViewport;
  vec2 tailPixel = clipTail.xy / clipTail.w * halfViewport;
  float pixels = attenuatedPointSize(size * uGlow, -viewHead.z);
  float r = 0.5 * max(pixels, 2.0);
  vec2 axis = headPixel - tailPixel;
  float len = length(axis);
  vec2 dir = len > 0.001 ? axis / len : vec2(1.0, 0.0);
  vec2 across = vec2(-dir.y, dir.x);
  float along = mix(-r, len + r, position.x);
  vec2 pixel = tailPixel + dir * along + across * (position.y * r);
  gl_Position = vec4(pixel / halfViewport * clipHead.w, clipHead.z, clipHead.w);
  vLocal = vec2(along, position.y * r) / r;
  vLength = len / r;
  vColor = vec4(curveColor.rgb * light, curveColor.a);
  vColor.a *= clamp(pixels / 2.0, 0.15, 1.0) / (1.0 + 0.35 * vLength);
}
`,
  fragmentShader: SparkStreakShader.fragmentShader,
};

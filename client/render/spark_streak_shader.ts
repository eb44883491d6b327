/**
 * `SparkStreakShader`: one camera-facing quad per spark, drawn from its streak's tail to its head
 * in screen space and as wide as the spark's glow sprite. A slow spark (head ≈ tail) is a soft
 * round point; a fast one is a capsule whose light is spread along its length and fades towards
 * the tail, like a spark seen by the eye or a camera's short exposure.
 */
import { POINT_SIZE_GLSL } from "./point_uniforms.ts";

/**
 * GLSL: what a streak vertex shader needs to place its quad, declared once for every streak
 * shader: the uniforms `uGlow` and `uViewport`, the varyings `vColor`, `vLocal` and `vLength`,
 * `attenuatedPointSize` (point_uniforms.ts) and `placeStreak`, which places this vertex of a
 * spark's streak quad, from `head + tail` to `head` in screen space and as wide as a glow sprite
 * of `spriteSize`, and sets `vLocal` and `vLength`; it returns the sprite's size in pixels, or -1
 * when the head is behind the camera (the quad is then put outside the clip volume).
 */
export const STREAK_QUAD_GLSL = /* glsl */ `
uniform float uGlow;
uniform vec2 uViewport;
varying vec4 vColor;
varying vec2 vLocal;
varying float vLength;
${POINT_SIZE_GLSL}
float placeStreak(vec3 head, vec3 tail, float spriteSize) {
  vec4 viewHead = modelViewMatrix * vec4(head, 1.0);
  if (-viewHead.z < 0.1) {
    // Behind the camera: a degenerate quad outside the clip volume.
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    return -1.0;
  }
  vec4 viewTail = modelViewMatrix * vec4(head + tail, 1.0);
  // A tail behind the camera (a gun tracer just fired from it) is cut where it crosses the near
  // plane, so the streak still runs from the screen's edge to the head.
  if (-viewTail.z < 0.1) {
    viewTail = viewHead + (viewTail - viewHead) * ((-viewHead.z - 0.1) / (viewTail.z - viewHead.z));
  }
  vec4 clipHead = projectionMatrix * viewHead;
  vec4 clipTail = projectionMatrix * viewTail;
  vec2 halfViewport = 0.5 * uViewport;
  vec2 headPixel = clipHead.xy / clipHead.w * halfViewport;
  vec2 tailPixel = clipTail.xy / clipTail.w * halfViewport;
  float pixels = attenuatedPointSize(spriteSize * uGlow, -viewHead.z);
  float radius = 0.5 * max(pixels, 2.0);
  vec2 axis = headPixel - tailPixel;
  float len = length(axis);
  vec2 dir = len > 0.001 ? axis / len : vec2(1.0, 0.0);
  vec2 across = vec2(-dir.y, dir.x);
  float along = mix(-radius, len + radius, position.x);
  vec2 pixel = tailPixel + dir * along + across * (position.y * radius);
  gl_Position = vec4(pixel / halfViewport * clipHead.w, clipHead.z, clipHead.w);
  vLocal = vec2(along, position.y * radius) / radius;
  vLength = len / radius;
  return pixels;
}
`;

/**
 * GLSL: the start of a streak vertex shader: the packed instance's attributes (`head`, `tail`,
 * `color`, `size`), the uniforms and varyings `placeStreak` needs, and `placeStreak` itself.
 */
export const STREAK_VERTEX_HEAD_GLSL = /* glsl */ `
attribute vec3 head;
attribute vec3 tail;
attribute vec4 color;
attribute float size;
${STREAK_QUAD_GLSL}
`;

/**
 * GLSL: the start of a streak fragment shader: the varyings `placeStreak` set, and
 * `spineOffset`, where this fragment is from the nearest point of the streak's spine (in radii;
 * `nearest` gets that point's place along it, 0 at the tail).
 */
export const STREAK_FRAGMENT_HEAD_GLSL = /* glsl */ `
varying vec4 vColor;
varying vec2 vLocal;
varying float vLength;
vec2 spineOffset(out float nearest) {
  nearest = clamp(vLocal.x, 0.0, vLength);
  return vec2(vLocal.x - nearest, vLocal.y);
}
`;

/** Shader sources and uniform names (shared uniforms come from point_uniforms.ts). */
export const SparkStreakShader = {
  vertexShader: /* glsl */ `
// position.x: 0 at the tail end, 1 at the head end; position.y: -1 / +1 across.
${STREAK_VERTEX_HEAD_GLSL}
void main() {
  float pixels = placeStreak(head, tail, size);
  if (pixels < 0.0) return;
  vColor = color;
  // Keep tiny sparks visible but dimmer rather than vanishing between pixels, and spread a
  // streak's light over its length so fast sparks do not outshine slow ones.
  vColor.a *= clamp(pixels / 2.0, 0.15, 1.0) / (1.0 + 0.35 * vLength);
}
`,
  fragmentShader: /* glsl */ `
uniform float uIntensity;
uniform float uTailLight;
${STREAK_FRAGMENT_HEAD_GLSL}
void main() {
  float nearest;
  vec2 d = spineOffset(nearest);
  float d2 = dot(d, d);
  if (d2 > 1.0) discard;
  float core = exp(-d2 * 10.0);
  float halo = (1.0 - d2) * (1.0 - d2) * 0.15;
  float headward = vLength > 0.001 ? nearest / vLength : 1.0;
  float light = (core + halo) * mix(uTailLight, 1.0, headward) * vColor.a * uIntensity;
  gl_FragColor = vec4(vColor.rgb * light, light);
  #include <colorspace_fragment>
}
`,
};

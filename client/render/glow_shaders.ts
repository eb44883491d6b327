/**
 * Shaders of the glow pipeline (`glow_pipeline.ts`), as named objects like three's own:
 * `GlowGatherShader` gathers the glow from the scene's mipmaps into a small target, and
 * `GlowOutputShader` adds it to the scene, tone-maps and encodes sRGB in one full-screen pass.
 */

const FULL_SCREEN_VERTEX = /* glsl */ `
varying vec2 vUv;
void main() {
  vUv = uv;
  gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
}
`;

/**
 * GLSL: `brightest(c)`, a colour's brightest channel (at least 1e-6), and `capped(c, cap)`, `c`
 * scaled down (hue kept) so that its brightest channel is at most `cap`. One definition for the
 * gather's cap and the output's ceiling.
 */
const HUE_KEPT_GLSL = /* glsl */ `
float brightest(vec3 c) {
  return max(max(c.r, c.g), max(c.b, 1e-6));
}
vec3 capped(vec3 c, float cap) {
  return c * min(1.0, cap / brightest(c));
}
`;

/** A uniform of a full-screen pass: its GLSL type and its start value. */
type Uniform = readonly [glsl: string, value: number | null];

/** Three's uniforms of a full-screen pass: each with its start value, typed as declared. */
type Uniforms<U extends Record<string, Uniform>> = { [K in keyof U]: { value: U[K][1] } };

/**
 * A full-screen pass, shaped like three's own shader objects: its uniforms are declared once,
 * for the material (their start values) and for the fragment shader (`uniform <type> <name>;`,
 * then `vUv` and HUE_KEPT_GLSL before `body`), so the two lists cannot drift apart.
 */
function fullScreenPass<U extends Record<string, Uniform>>(uniforms: U, body: string) {
  const names = Object.keys(uniforms);
  const values = names.map((name) => [name, { value: uniforms[name][1] }]);
  const declared = names.map((name) => `uniform ${uniforms[name][0]} ${name};`).join("\n");
  return {
    uniforms: Object.fromEntries(values) as Uniforms<U>,
    vertexShader: FULL_SCREEN_VERTEX,
    fragmentShader: `${declared}\nvarying vec2 vUv;\n${HUE_KEPT_GLSL}${body}`,
  };
}

/**
 * The glow, gathered in one small pass from the scene's mipmaps: a 3×3 Gaussian of the 1/8-size
 * level (a near glow, about ±16 pixels) plus the 1/32-size level (a wide one). A mip level is the
 * average light of its block, so a spark glows in proportion to its energy however small it is
 * (no threshold to miss it between samples); a floor keeps the night sky and the snow's haze from
 * glowing. The cap and the floor scale a colour by its brightest channel instead of clamping or
 * subtracting per channel, so the glow keeps the hue of the light it comes from: a white-hot
 * burst glows white, not with a red rim (a per-channel floor turned the dim edge of white light
 * (0.40, 0.36, 0.30) into (0.10, 0.06, 0) red).
 */
export const GlowGatherShader = fullScreenPass(
  {
    tScene: ["sampler2D", null],
    /** One texel of mip level 3. */
    uTexel: ["vec2", null],
    uFloor: ["float", 0.3],
    /** A fresh burst's sum of sparks would glow like a sun: cap it. */
    uCap: ["float", 2.5],
  },
  /* glsl */ `
// c less the floor in its brightest channel, hue kept (0 below the floor).
vec3 aboveFloor(vec3 c) {
  float m = brightest(c);
  return c * (max(m - uFloor, 0.0) / m);
}
vec3 near(vec2 offset) {
  return capped(textureLod(tScene, vUv + offset * uTexel, 3.0).rgb, uCap);
}
void main() {
  vec3 sum = near(vec2(0.0)) * 0.25;
  sum += (near(vec2(1.2, 0.0)) + near(vec2(-1.2, 0.0)) + near(vec2(0.0, 1.2)) +
    near(vec2(0.0, -1.2))) * 0.125;
  sum += (near(vec2(1.2, 1.2)) + near(vec2(-1.2, 1.2)) + near(vec2(1.2, -1.2)) +
    near(vec2(-1.2, -1.2))) * 0.0625;
  vec3 wide = capped(textureLod(tScene, vUv, 5.0).rgb, uCap);
  vec3 glow = aboveFloor(sum) + 0.6 * aboveFloor(wide);
  gl_FragColor = vec4(glow, 1.0);
}
`,
);

/**
 * Scene + glow, scaled down (hue kept) where its brightest channel passes `uCeiling` — reduced
 * motion's "no flashes": a fresh burst cannot reach white — then three's tone mapping and sRGB
 * output.
 */
export const GlowOutputShader = fullScreenPass(
  {
    tScene: ["sampler2D", null],
    tGlow: ["sampler2D", null],
    uStrength: ["float", 1],
    uCeiling: ["float", 1e9],
  },
  /* glsl */ `
void main() {
  vec3 glow = texture2D(tGlow, vUv).rgb;
  vec3 color = textureLod(tScene, vUv, 0.0).rgb + uStrength * glow;
  gl_FragColor = vec4(capped(color, uCeiling), 1.0);
  #include <tonemapping_fragment>
  #include <colorspace_fragment>
}
`,
);

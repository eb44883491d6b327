/**
 * Shaders of the glow pipeline (`glow_pipeline.ts`), as named objects like three's own:
 * `GlowBrightShader` keeps what is brighter than white at a quarter of the pixels,
 * `GlowBlurShader` is a 9-tap separable Gaussian, and `GlowOutputShader` adds the blurred light
 * to the scene, tone-maps and encodes sRGB for the screen in one full-screen pass.
 */

const FULL_SCREEN_VERTEX = /* glsl */ `
varying vec2 vUv;
void main() {
  vUv = uv;
  gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
}
`;

/** Downsamples 2×2 texels (one bilinear tap per 2×2 block, four taps) and keeps light above white. */
export const GlowBrightShader = {
  uniforms: {
    tScene: { value: null },
    uTexel: { value: null },
    uThreshold: { value: 1 },
    uCap: { value: 2.5 },
  },
  vertexShader: FULL_SCREEN_VERTEX,
  fragmentShader: /* glsl */ `
uniform sampler2D tScene;
uniform vec2 uTexel;      // one source texel
uniform float uThreshold;
uniform float uCap;       // a fresh burst's sum of sparks would bloom into a sun: cap it
varying vec2 vUv;
vec3 bright(vec2 uv) {
  vec3 c = min(texture2D(tScene, uv).rgb, vec3(uCap));
  float l = max(c.r, max(c.g, c.b));
  return c * (max(l - uThreshold, 0.0) / max(l, 1e-4));
}
void main() {
  vec3 sum = bright(vUv + uTexel * vec2(-1.0, -1.0)) + bright(vUv + uTexel * vec2(1.0, -1.0)) +
    bright(vUv + uTexel * vec2(-1.0, 1.0)) + bright(vUv + uTexel * vec2(1.0, 1.0));
  gl_FragColor = vec4(sum * 0.25, 1.0);
}
`,
};

/** 9-tap Gaussian along `uDirection` (in texels), using bilinear taps (5 fetches). */
export const GlowBlurShader = {
  uniforms: {
    tInput: { value: null },
    uDirection: { value: null },
  },
  vertexShader: FULL_SCREEN_VERTEX,
  fragmentShader: /* glsl */ `
uniform sampler2D tInput;
uniform vec2 uDirection;  // one texel along the blur axis
varying vec2 vUv;
void main() {
  vec3 sum = texture2D(tInput, vUv).rgb * 0.2270270270;
  sum += texture2D(tInput, vUv + uDirection * 1.3846153846).rgb * 0.3162162162;
  sum += texture2D(tInput, vUv - uDirection * 1.3846153846).rgb * 0.3162162162;
  sum += texture2D(tInput, vUv + uDirection * 3.2307692308).rgb * 0.0702702703;
  sum += texture2D(tInput, vUv - uDirection * 3.2307692308).rgb * 0.0702702703;
  gl_FragColor = vec4(sum, 1.0);
}
`,
};

/** Scene + near glow + wide glow, then three's tone mapping and sRGB output. */
export const GlowOutputShader = {
  uniforms: {
    tScene: { value: null },
    tNear: { value: null },
    tWide: { value: null },
    uStrength: { value: 1 },
  },
  vertexShader: FULL_SCREEN_VERTEX,
  fragmentShader: /* glsl */ `
uniform sampler2D tScene;
uniform sampler2D tNear;
uniform sampler2D tWide;
uniform float uStrength;
varying vec2 vUv;
void main() {
  vec3 glow = texture2D(tNear, vUv).rgb + 0.8 * texture2D(tWide, vUv).rgb;
  gl_FragColor = vec4(texture2D(tScene, vUv).rgb + uStrength * glow, 1.0);
  #include <tonemapping_fragment>
  #include <colorspace_fragment>
}
`,
};

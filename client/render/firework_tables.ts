/**
 * The shared firework maths as GPU tables: the motion tables (`REACH`, `DROP` per motion class
 * and age, firework_motion.ts) and every style's colour curve (`STYLE_COLORS`), each as a float
 * texture the spark shader reads with `texelFetch`, exactly the float32 roundings of the values
 * shared/ computes with. One pair per page; `dispose()` them with the renderer.
 *
 * @example
 * ```ts
 * const tables = createFireworkTables();
 * material.uniforms.uMotion = { value: tables.motion };
 * tables.dispose();
 * ```
 */
import * as THREE from "three";
import { COLOR_STEPS } from "../../shared/firework_colors.ts";
import {
  AGE_STRIDE,
  DROP,
  MOTIONS,
  REACH,
  STYLE_COLORS,
  STYLE_COUNT,
  VELOCITY_FALL,
  VELOCITY_KEPT,
} from "../../shared/firework_motion.ts";

/** Texels per motion table row (the ages 0..AGE_STRIDE − 1) and per colour row. */
export const MOTION_TABLE_WIDTH = AGE_STRIDE;
export const COLOR_TABLE_WIDTH = COLOR_STEPS + 1;

/**
 * The motion table as float32 texels: texel (age, class) holds REACH, DROP, VELOCITY_KEPT and
 * VELOCITY_FALL in r, g, b and a, as the shader reads them (the last two for embers' births).
 */
export const MOTION_TEXELS: Float32Array = (() => {
  const out = new Float32Array(AGE_STRIDE * MOTIONS.length * 4);
  for (let e = 0; e < AGE_STRIDE * MOTIONS.length; e++) {
    out[e * 4] = REACH[e];
    out[e * 4 + 1] = DROP[e];
    out[e * 4 + 2] = VELOCITY_KEPT[e];
    out[e * 4 + 3] = VELOCITY_FALL[e];
  }
  return out;
})();

/** The two textures. */
export interface FireworkTables {
  /** AGE_STRIDE × motion classes, RGBA float: REACH, DROP, VELOCITY_KEPT, VELOCITY_FALL. */
  motion: THREE.DataTexture;
  /** COLOR_STEPS + 1 × STYLE_COUNT, RGBA float: the style's colour at each curve sample. */
  colors: THREE.DataTexture;
  dispose(): void;
}

/** An RGBA float texture over `data` (width × height texels), read texel by texel (nearest). */
export function floatTexture(
  data: Float32Array,
  width: number,
  height: number,
): THREE.DataTexture {
  const texture = new THREE.DataTexture(
    data,
    width,
    height,
    THREE.RGBAFormat,
    THREE.FloatType,
  );
  texture.minFilter = THREE.NearestFilter;
  texture.magFilter = THREE.NearestFilter;
  texture.generateMipmaps = false;
  texture.needsUpdate = true;
  return texture;
}

/** Builds the motion and colour textures. */
export function createFireworkTables(): FireworkTables {
  const motion = floatTexture(MOTION_TEXELS, MOTION_TABLE_WIDTH, MOTIONS.length);
  const colors = floatTexture(STYLE_COLORS, COLOR_TABLE_WIDTH, STYLE_COUNT);
  return {
    motion,
    colors,
    dispose() {
      motion.dispose();
      colors.dispose();
    },
  };
}

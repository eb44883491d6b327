/**
 * Uniforms every point-sprite material shares: how many pixels one metre covers at one metre's
 * distance, and the device's largest point size. The renderer updates them on resize; the
 * materials hold the same objects, so one write reaches all of them.
 */
import type * as THREE from "three";

/** Shared point-size uniforms. */
export interface PointUniforms {
  /** Pixels per metre at distance 1: drawingBufferHeight / (2 · tan(fov / 2)). */
  uPointScale: THREE.IUniform<number>;
  /** Upper bound of `gl.ALIASED_POINT_SIZE_RANGE` on this device. */
  uMaxPointSize: THREE.IUniform<number>;
}

/** Fresh shared uniforms with placeholder values until the first resize. */
export function createPointUniforms(): PointUniforms {
  return { uPointScale: { value: 500 }, uMaxPointSize: { value: 64 } };
}

/**
 * GLSL for the vertex stage: the attenuated sprite diameter in pixels for a sprite of
 * `sizeMetres` at view-space depth `depth`, clamped to the device's limit.
 */
export const POINT_SIZE_GLSL = /* glsl */ `
uniform float uPointScale;
uniform float uMaxPointSize;
float attenuatedPointSize(float sizeMetres, float depth) {
  return min(sizeMetres * uPointScale / max(depth, 0.05), uMaxPointSize);
}
`;

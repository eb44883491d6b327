/**
 * What every streak renderer draws with: the unit quad each instance is drawn from, and the
 * blending that adds its light. One definition for the spark streaks (`spark_streaks.ts`) and the
 * fireworks drawn on the GPU (`firework_sparks.ts`).
 *
 * @example
 * ```ts
 * const material = new THREE.ShaderMaterial({ ...shader, ...ADDED_LIGHT });
 * const mesh = new THREE.Mesh(streakQuadGeometry(), material);
 * ```
 */
import * as THREE from "three";
import type { PointUniforms } from "./point_uniforms.ts";
import { SPARK_STRIDE } from "./spark_packing.ts";

/** What sets a streak material's shared uniforms (the quad's placement and the fragment stage). */
export interface StreakLook {
  uniforms: PointUniforms;
  /** Shared `uViewport` uniform: the drawing buffer's size in pixels. */
  viewport: THREE.IUniform<THREE.Vector2>;
  /** Sprite diameter relative to the particle's size, so the glow halo has room. */
  glow: number;
  /** Overall brightness (linear, may exceed 1: tone mapping and bloom take the highlights). */
  intensity: number;
  /** Brightness at the tail end relative to the head (1: even; 0: fades out). */
  tailLight: number;
}

/**
 * The uniforms `STREAK_QUAD_GLSL` and the streak fragment stage read (spark_streak_shader.ts),
 * for every streak material.
 */
export function streakUniforms(look: StreakLook): Record<string, THREE.IUniform> {
  return {
    ...look.uniforms,
    uViewport: look.viewport,
    uGlow: { value: look.glow },
    uIntensity: { value: look.intensity },
    uTailLight: { value: look.tailLight },
  };
}

/**
 * Material settings for light that adds up: the shaders write premultiplied light, which may
 * exceed 1 in HDR; nothing writes depth, so sparks never hide each other.
 */
export const ADDED_LIGHT = {
  transparent: true,
  depthWrite: false,
  blending: THREE.CustomBlending,
  blendSrc: THREE.OneFactor,
  blendDst: THREE.OneFactor,
  blendSrcAlpha: THREE.OneFactor,
  blendDstAlpha: THREE.OneFactor,
} as const;

/** The unit quad every streak instance is drawn from: x along (0 tail, 1 head), y across (±1). */
export function streakQuadGeometry(): THREE.InstancedBufferGeometry {
  const geometry = new THREE.InstancedBufferGeometry();
  geometry.setAttribute(
    "position",
    new THREE.BufferAttribute(new Float32Array([0, -1, 0, 1, -1, 0, 0, 1, 0, 1, 1, 0]), 3),
  );
  geometry.setIndex([0, 1, 2, 2, 1, 3]);
  geometry.instanceCount = 0;
  return geometry;
}

/** A streak geometry and the interleaved buffer its instances are read from. */
export interface PackedStreaks {
  geometry: THREE.InstancedBufferGeometry;
  buffer: THREE.InstancedInterleavedBuffer;
}

/**
 * A fresh streak geometry whose instances come from one dynamic interleaved buffer of `capacity`
 * records as `packSparks` writes them (`SPARK_STRIDE` floats: head 3, tail 3, colour 4, size 1),
 * no instance drawn yet. Fresh, not regrown: three caches an instanced geometry's largest instance
 * count on first draw, so a grown buffer on the old geometry would still draw only the old count.
 */
export function packedStreakGeometry(capacity: number): PackedStreaks {
  const geometry = streakQuadGeometry();
  const buffer = new THREE.InstancedInterleavedBuffer(
    new Float32Array(capacity * SPARK_STRIDE),
    SPARK_STRIDE,
  );
  buffer.setUsage(THREE.DynamicDrawUsage);
  geometry.setAttribute("head", new THREE.InterleavedBufferAttribute(buffer, 3, 0));
  geometry.setAttribute("tail", new THREE.InterleavedBufferAttribute(buffer, 3, 3));
  geometry.setAttribute("color", new THREE.InterleavedBufferAttribute(buffer, 4, 6));
  geometry.setAttribute("size", new THREE.InterleavedBufferAttribute(buffer, 1, 10));
  return { geometry, buffer };
}

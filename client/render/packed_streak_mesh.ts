/**
 * `PackedStreakMesh`: a mesh of streak quads whose instances are packed each frame by
 * `packSparks` into one preallocated interleaved buffer, of which only what was written is
 * uploaded. It grows (a fresh geometry and buffer) when a view outgrows it, never shrinks. One
 * for the spark streaks (`spark_streaks.ts`) and the fountain's water (`fountain_water.ts`).
 *
 * @example
 * ```ts
 * const mesh = new PackedStreakMesh(material, 3);
 * scene.add(mesh.object);
 * mesh.draw(packSparks(view, alpha, tail, 1, NaN, mesh.room(view.size.length)));
 * ```
 */
import * as THREE from "three";
import { SPARK_STRIDE } from "./spark_packing.ts";
import { packedStreakGeometry, streakQuadGeometry } from "./streak_quad.ts";
import { uploadPrefix } from "./upload_range.ts";

/** A streak mesh drawn from one packed instance buffer. */
export class PackedStreakMesh {
  /** Add this to the scene. */
  readonly object: THREE.Mesh;
  #geometry = streakQuadGeometry();
  #buffer: THREE.InstancedInterleavedBuffer | null = null;

  constructor(material: THREE.Material, renderOrder: number) {
    this.object = new THREE.Mesh(this.#geometry, material);
    this.object.frustumCulled = false;
    this.object.renderOrder = renderOrder;
  }

  /**
   * Where to pack, with room for at least `capacity` records; allocates only when it grows (a
   * fresh geometry: three caches an instanced geometry's largest instance count on first draw, so
   * a grown buffer on the old geometry would still draw only the old count).
   */
  room(capacity: number): Float32Array {
    if (!this.#buffer || this.#buffer.count < capacity) {
      this.#geometry.dispose();
      ({ geometry: this.#geometry, buffer: this.#buffer } = packedStreakGeometry(capacity));
      this.object.geometry = this.#geometry;
    }
    return this.#buffer!.array as Float32Array;
  }

  /** Draws the first `n` records packed (uploads only those). Never allocates. */
  draw(n: number): void {
    if (this.#buffer) uploadPrefix(this.#buffer, n * SPARK_STRIDE);
    this.#geometry.instanceCount = n;
  }

  /** Frees the geometry (the material is its owner's). */
  dispose(): void {
    this.#geometry.dispose();
  }
}

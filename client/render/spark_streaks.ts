/**
 * Sparks (fireworks, gun tracers, fountain water) as instanced streak quads: each frame the
 * visible particles of a view are packed (`spark_packing.ts`) into one preallocated interleaved
 * instance buffer and only what was written is uploaded; the GPU never shades a dead slot.
 */
import * as THREE from "three";
import type { FireworkView, ParticleView, StreakView } from "../../shared/views.ts";
import { packSparks, type StreakTail } from "./spark_packing.ts";
import { SparkStreakShader } from "./spark_streak_shader.ts";
import { PackedStreakMesh } from "./packed_streak_mesh.ts";
import { ADDED_LIGHT, type StreakLook, streakUniforms } from "./streak_quad.ts";

/** Options for {@link SparkStreaks}. */
export interface SparkStreaksOptions extends StreakLook {
  /** Where each streak's tail is. */
  tail: StreakTail;
  /** Draw every n-th visible spark (reduced motion draws fewer); default 1. */
  keepEvery?: number;
  /** Strobing sparks flicker (reduced motion: no, they stay steady); default true. */
  strobe?: boolean;
  /** Draw order among the transparent layers. */
  renderOrder: number;
}

/** Instanced streak renderer for a {@link ParticleView}. */
export class SparkStreaks {
  /** Add this to the scene. */
  readonly object: THREE.Mesh;
  private readonly material: THREE.ShaderMaterial;
  private readonly tail: StreakTail;
  private readonly keepEvery: number;
  private readonly strobe: boolean;
  private readonly mesh: PackedStreakMesh;
  private view: ParticleView | StreakView | FireworkView | null = null;
  private drawn = 0;

  constructor(options: SparkStreaksOptions) {
    this.tail = options.tail;
    this.keepEvery = Math.max(1, Math.floor(options.keepEvery ?? 1));
    this.strobe = options.strobe ?? true;
    this.material = new THREE.ShaderMaterial({
      vertexShader: SparkStreakShader.vertexShader,
      fragmentShader: SparkStreakShader.fragmentShader,
      uniforms: streakUniforms(options),
      ...ADDED_LIGHT,
    });
    this.mesh = new PackedStreakMesh(this.material, options.renderOrder);
    this.object = this.mesh.object;
  }

  /** Sparks drawn by the last `update`. */
  get drawnCount(): number {
    return this.drawn;
  }

  /** Binds a (new) world's view; allocates only when its capacity exceeds the current one. */
  bind(view: ParticleView | StreakView | FireworkView): void {
    this.view = view;
    this.mesh.room(view.size.length);
  }

  /**
   * Packs and uploads the visible sparks at interpolation `alpha` between ticks; `tick` is the
   * world's tick (strobing sparks flicker by it).
   */
  update(alpha: number, tick: number): void {
    const view = this.view;
    if (!view) return;
    // The world's pools grow (new, larger arrays) when a launch needs room: follow them.
    const out = this.mesh.room(view.size.length);
    const n = packSparks(view, alpha, this.tail, this.keepEvery, this.strobe ? tick : NaN, out);
    this.mesh.draw(n);
    this.drawn = n;
  }

  /** Frees GPU resources. */
  dispose(): void {
    this.mesh.dispose();
    this.material.dispose();
  }
}

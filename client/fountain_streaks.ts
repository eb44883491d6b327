/**
 * The fountain's water as `THREE.LineSegments`: each drop is a short streak from its interpolated
 * position back along its velocity, bright at the head and fading to nothing at the tail.
 * Live streaks are packed into preallocated arrays each frame; only what was written is uploaded.
 */
import * as THREE from "three";
import { STREAK_SECONDS, type StreakView } from "../shared/views.ts";
import { uploadPrefix } from "./upload_range.ts";

const VERTEX = /* glsl */ `
attribute vec4 color;
varying vec4 vColor;
void main() {
  vColor = color;
  gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
}
`;

const FRAGMENT = /* glsl */ `
uniform float uIntensity;
varying vec4 vColor;
void main() {
  float light = vColor.a * uIntensity;
  gl_FragColor = vec4(vColor.rgb * light, light);
  #include <colorspace_fragment>
}
`;

/** Streak renderer for the world's fountain. */
export class FountainStreaks {
  /** Add this to the scene. */
  readonly object: THREE.LineSegments;
  private readonly geometry = new THREE.BufferGeometry();
  private readonly material: THREE.ShaderMaterial;
  private positions: THREE.BufferAttribute | null = null;
  private colors: THREE.BufferAttribute | null = null;
  private view: StreakView | null = null;

  constructor(intensity = 1) {
    this.material = new THREE.ShaderMaterial({
      vertexShader: VERTEX,
      fragmentShader: FRAGMENT,
      uniforms: { uIntensity: { value: intensity } },
      transparent: true,
      depthWrite: false,
      blending: THREE.AdditiveBlending,
    });
    this.object = new THREE.LineSegments(this.geometry, this.material);
    this.object.frustumCulled = false;
    this.object.renderOrder = 1;
  }

  /** Binds a (new) world's fountain; allocates only when the capacity grows. */
  bind(view: StreakView): void {
    this.view = view;
    const capacity = view.size.length;
    if (this.positions && this.positions.count >= capacity * 2) return;
    this.geometry.dispose();
    this.positions = new THREE.BufferAttribute(new Float32Array(capacity * 6), 3);
    this.positions.setUsage(THREE.DynamicDrawUsage);
    this.colors = new THREE.BufferAttribute(new Float32Array(capacity * 8), 4);
    this.colors.setUsage(THREE.DynamicDrawUsage);
    this.geometry.setAttribute("position", this.positions);
    this.geometry.setAttribute("color", this.colors);
    this.geometry.setDrawRange(0, 0);
  }

  /** Writes head and tail of every live streak at interpolation `alpha` and uploads them. */
  update(alpha: number): void {
    const view = this.view;
    // A view whose arrays grew (pools grow on demand) needs larger attributes: follow it.
    if (view && (!this.positions || view.size.length * 2 > this.positions.count)) this.bind(view);
    if (!view || !this.positions || !this.colors) return;
    const out = this.positions.array as Float32Array;
    const colors = this.colors.array as Float32Array;
    const { position, previous, velocity, color } = view;
    const count = view.count;
    let n = 0;
    for (let i = 0; i < count; i++) {
      const c = i * 4;
      const a = color[c + 3];
      // Dead slots (alpha 0) are skipped: only live streaks are written and uploaded.
      if (a <= 0) continue;
      const p = i * 3;
      const v = n * 6;
      const hx = previous[p] + (position[p] - previous[p]) * alpha;
      const hy = previous[p + 1] + (position[p + 1] - previous[p + 1]) * alpha;
      const hz = previous[p + 2] + (position[p + 2] - previous[p + 2]) * alpha;
      out[v] = hx;
      out[v + 1] = hy;
      out[v + 2] = hz;
      out[v + 3] = hx - velocity[p] * STREAK_SECONDS;
      out[v + 4] = hy - velocity[p + 1] * STREAK_SECONDS;
      out[v + 5] = hz - velocity[p + 2] * STREAK_SECONDS;
      const k = n * 8;
      colors[k] = colors[k + 4] = color[c];
      colors[k + 1] = colors[k + 5] = color[c + 1];
      colors[k + 2] = colors[k + 6] = color[c + 2];
      colors[k + 3] = a;
      colors[k + 7] = 0;
      n++;
    }
    uploadPrefix(this.positions, n * 6);
    uploadPrefix(this.colors, n * 8);
    this.geometry.setDrawRange(0, n * 2);
  }

  /** Frees GPU resources. */
  dispose(): void {
    this.geometry.dispose();
    this.material.dispose();
  }
}

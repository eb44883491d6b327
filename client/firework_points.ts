/**
 * Fireworks (and gun shots, and fountain drops) as one `THREE.Points` with additive, soft round
 * glow sprites, interpolated between ticks on the CPU while packing the visible particles.
 */
import * as THREE from "three";
import type { ParticleView } from "../shared/views.ts";
import { POINT_SIZE_GLSL, type PointUniforms } from "./point_uniforms.ts";
import { uploadPrefix } from "./upload_range.ts";

const VERTEX = /* glsl */ `
attribute vec4 color;
attribute float size;
uniform float uGlow;
varying vec4 vColor;
${POINT_SIZE_GLSL}
void main() {
  vColor = color;
  vec4 viewPosition = modelViewMatrix * vec4(position, 1.0);
  gl_Position = projectionMatrix * viewPosition;
  // The sprite is wider than the particle: the outer part is the glow halo.
  float pixels = attenuatedPointSize(size * uGlow, -viewPosition.z);
  // Keep tiny sparks visible but dimmer rather than vanishing between pixels.
  vColor.a *= clamp(pixels / 2.0, 0.15, 1.0);
  gl_PointSize = max(pixels, 2.0);
}
`;

const FRAGMENT = /* glsl */ `
uniform float uIntensity;
varying vec4 vColor;
void main() {
  vec2 p = gl_PointCoord * 2.0 - 1.0;
  float d2 = dot(p, p);
  if (d2 > 1.0) discard;
  float core = exp(-d2 * 10.0);
  float halo = (1.0 - d2) * (1.0 - d2) * 0.35;
  float light = (core + halo) * vColor.a * uIntensity;
  gl_FragColor = vec4(vColor.rgb * light, light);
  #include <colorspace_fragment>
}
`;

/** Options for {@link FireworkPoints}. */
export interface FireworkPointsOptions {
  uniforms: PointUniforms;
  /** Sprite diameter relative to the particle's size, so the glow halo has room. */
  glow: number;
  /** Overall brightness; reduced motion turns it down so bursts never flash. */
  intensity: number;
}

/**
 * Glow-sprite renderer for a {@link ParticleView}. Each frame it packs the visible particles of the
 * view's dense range (dead slots have alpha 0 and are skipped) into preallocated attributes,
 * interpolated between the previous and the current tick, and uploads only what it wrote: a sky
 * reserves about three slots per visible spark, so this uploads about a quarter of the floats that
 * wrapping the raw view would, and the GPU never shades a dead vertex.
 */
export class FireworkPoints {
  /** Add this to the scene. */
  readonly object: THREE.Points;
  private readonly geometry = new THREE.BufferGeometry();
  private readonly material: THREE.ShaderMaterial;
  private position: THREE.BufferAttribute | null = null;
  private color: THREE.BufferAttribute | null = null;
  private size: THREE.BufferAttribute | null = null;
  private view: ParticleView | null = null;
  private drawn = 0;

  constructor(options: FireworkPointsOptions) {
    this.material = new THREE.ShaderMaterial({
      vertexShader: VERTEX,
      fragmentShader: FRAGMENT,
      uniforms: {
        ...options.uniforms,
        uGlow: { value: options.glow },
        uIntensity: { value: options.intensity },
      },
      transparent: true,
      depthWrite: false,
      blending: THREE.AdditiveBlending,
    });
    this.object = new THREE.Points(this.geometry, this.material);
    this.object.frustumCulled = false;
    this.object.renderOrder = 3;
  }

  /** Particles drawn by the last `update`. */
  get drawnCount(): number {
    return this.drawn;
  }

  /** Binds a (new) world's view; allocates only when its capacity exceeds the current one. */
  bind(view: ParticleView): void {
    this.view = view;
    const capacity = view.size.length;
    if (this.size && this.size.count >= capacity) return;
    this.geometry.dispose();
    this.position = dynamicAttribute(capacity, 3);
    this.color = dynamicAttribute(capacity, 4);
    this.size = dynamicAttribute(capacity, 1);
    this.geometry.setAttribute("position", this.position);
    this.geometry.setAttribute("color", this.color);
    this.geometry.setAttribute("size", this.size);
    this.geometry.setDrawRange(0, 0);
  }

  /**
   * Packs and uploads the visible particles at interpolation `alpha` ∈ [0, 1] between the
   * previous tick and the current one.
   */
  update(alpha: number): void {
    const view = this.view;
    // The world's pools grow (new, larger arrays) when a launch needs room: follow them.
    if (view && (!this.size || view.size.length > this.size.count)) this.bind(view);
    if (!view || !this.position || !this.color || !this.size) return;
    const outPosition = this.position.array as Float32Array;
    const outColor = this.color.array as Float32Array;
    const outSize = this.size.array as Float32Array;
    const position = view.position;
    const previous = view.previous;
    const color = view.color;
    const size = view.size;
    const count = view.count;
    let n = 0;
    for (let i = 0; i < count; i++) {
      const c = i * 4;
      const a = color[c + 3];
      if (a <= 0) continue;
      const p = i * 3;
      const o = n * 3;
      outPosition[o] = previous[p] + (position[p] - previous[p]) * alpha;
      outPosition[o + 1] = previous[p + 1] + (position[p + 1] - previous[p + 1]) * alpha;
      outPosition[o + 2] = previous[p + 2] + (position[p + 2] - previous[p + 2]) * alpha;
      const q = n * 4;
      outColor[q] = color[c];
      outColor[q + 1] = color[c + 1];
      outColor[q + 2] = color[c + 2];
      outColor[q + 3] = a;
      outSize[n] = size[i];
      n++;
    }
    uploadPrefix(this.position, n * 3);
    uploadPrefix(this.color, n * 4);
    uploadPrefix(this.size, n);
    this.geometry.setDrawRange(0, n);
    this.drawn = n;
  }

  /** Frees GPU resources. */
  dispose(): void {
    this.geometry.dispose();
    this.material.dispose();
  }
}

function dynamicAttribute(capacity: number, itemSize: number): THREE.BufferAttribute {
  const attribute = new THREE.BufferAttribute(new Float32Array(capacity * itemSize), itemSize);
  attribute.setUsage(THREE.DynamicDrawUsage);
  return attribute;
}

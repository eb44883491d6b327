/**
 * Fireworks (and gun shots) as one `THREE.Points` with additive, soft round glow sprites. The
 * attributes wrap the world's own view arrays; each frame uploads only the live range, and the
 * vertex shader interpolates between the previous and the current tick.
 */
import * as THREE from "three";
import type { ParticleView } from "../shared/views.ts";
import { POINT_SIZE_GLSL, type PointUniforms } from "./point_uniforms.ts";
import { uploadPrefix } from "./upload_range.ts";

const VERTEX = /* glsl */ `
attribute vec3 previous;
attribute vec4 color;
attribute float size;
uniform float uAlpha;
uniform float uGlow;
varying vec4 vColor;
${POINT_SIZE_GLSL}
void main() {
  vColor = color;
  if (color.a <= 0.0) {
    // Dead slot: collapse it outside the clip volume so it costs no fragments.
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    gl_PointSize = 0.0;
    return;
  }
  vec3 interpolated = previous + (position - previous) * uAlpha;
  vec4 viewPosition = modelViewMatrix * vec4(interpolated, 1.0);
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

/** Glow-sprite renderer for a {@link ParticleView}. */
export class FireworkPoints {
  /** Add this to the scene. */
  readonly object: THREE.Points;
  private readonly geometry = new THREE.BufferGeometry();
  private readonly material: THREE.ShaderMaterial;
  private position: THREE.BufferAttribute | null = null;
  private previous: THREE.BufferAttribute | null = null;
  private color: THREE.BufferAttribute | null = null;
  private size: THREE.BufferAttribute | null = null;
  private view: ParticleView | null = null;

  constructor(options: FireworkPointsOptions) {
    this.material = new THREE.ShaderMaterial({
      vertexShader: VERTEX,
      fragmentShader: FRAGMENT,
      uniforms: {
        ...options.uniforms,
        uAlpha: { value: 1 },
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

  /** Binds a (new) world's view. */
  bind(view: ParticleView): void {
    this.view = view;
  }

  /**
   * Uploads the live range of the view; `alpha` ∈ [0, 1] is how far the render time is from the
   * previous tick to the current one. The attributes wrap the view's own arrays (no copy); they
   * are re-created only when the world hands out different arrays (a rebuilt world).
   */
  update(alpha: number): void {
    const view = this.view;
    if (!view) return;
    if (
      this.position?.array !== view.position || this.previous?.array !== view.previous ||
      this.color?.array !== view.color || this.size?.array !== view.size
    ) {
      this.wrap(view);
    }
    const count = view.count;
    if (this.position && this.previous && this.color && this.size) {
      uploadPrefix(this.position, count * 3);
      uploadPrefix(this.previous, count * 3);
      uploadPrefix(this.color, count * 4);
      uploadPrefix(this.size, count);
    }
    this.geometry.setDrawRange(0, count);
    this.material.uniforms.uAlpha.value = alpha;
  }

  private wrap(view: ParticleView): void {
    // Disposing first releases the GPU buffers of the old world's arrays.
    this.geometry.dispose();
    this.position = dynamicAttribute(view.position, 3);
    this.previous = dynamicAttribute(view.previous, 3);
    this.color = dynamicAttribute(view.color, 4);
    this.size = dynamicAttribute(view.size, 1);
    this.geometry.setAttribute("position", this.position);
    this.geometry.setAttribute("previous", this.previous);
    this.geometry.setAttribute("color", this.color);
    this.geometry.setAttribute("size", this.size);
  }

  /** Frees GPU resources. */
  dispose(): void {
    this.geometry.dispose();
    this.material.dispose();
  }
}

function dynamicAttribute(array: Float32Array, itemSize: number): THREE.BufferAttribute {
  const attribute = new THREE.BufferAttribute(array, itemSize);
  attribute.setUsage(THREE.DynamicDrawUsage);
  return attribute;
}

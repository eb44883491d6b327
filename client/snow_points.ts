/**
 * The snowfall as one `THREE.Points`: rotating flake sprites from the atlas, sized by distance.
 * Positions are evaluated by the world's closed form into a preallocated attribute each frame;
 * size, variant, spin and phase never change and are uploaded once.
 */
import * as THREE from "three";
import { TICK_RATE } from "../shared/constants.ts";
import type { SnowView } from "../shared/views.ts";
import { POINT_SIZE_GLSL, type PointUniforms } from "./point_uniforms.ts";
import { uploadPrefix } from "./upload_range.ts";

const VERTEX = /* glsl */ `
attribute float size;
attribute float variant;
attribute float spin;
attribute float phase;
uniform float uSeconds;
varying float vAngle;
varying float vVariant;
varying float vFade;
${POINT_SIZE_GLSL}
void main() {
  vec4 viewPosition = modelViewMatrix * vec4(position, 1.0);
  gl_Position = projectionMatrix * viewPosition;
  float depth = -viewPosition.z;
  float pixels = attenuatedPointSize(size, depth);
  // Sub-pixel flakes fade instead of flickering; very far flakes melt into the night.
  vFade = clamp(pixels / 2.0, 0.0, 1.0) * (1.0 - smoothstep(120.0, 220.0, depth));
  gl_PointSize = max(pixels, 1.0);
  vAngle = phase + spin * uSeconds;
  vVariant = variant;
}
`;

const FRAGMENT = /* glsl */ `
uniform sampler2D uAtlas;
uniform vec3 uTint;
uniform float uOpacity;
varying float vAngle;
varying float vVariant;
varying float vFade;
void main() {
  vec2 p = gl_PointCoord - 0.5;
  float c = cos(vAngle);
  float s = sin(vAngle);
  vec2 r = vec2(c * p.x - s * p.y, s * p.x + c * p.y) + 0.5;
  if (r.x < 0.0 || r.y < 0.0 || r.x > 1.0 || r.y > 1.0) discard;
  float cell = floor(vVariant + 0.5);
  vec2 offset = vec2(mod(cell, 2.0), floor(cell / 2.0));
  vec4 texel = texture2D(uAtlas, (r * 0.96 + 0.02 + offset) * 0.5);
  float alpha = texel.a * vFade * uOpacity;
  if (alpha < 0.01) discard;
  gl_FragColor = vec4(texel.rgb * uTint, alpha);
  #include <colorspace_fragment>
}
`;

/** Per-flake constants copied from the view once per world. */
const PER_FLAKE = ["size", "variant", "spin", "phase"] as const;

/** Options for {@link SnowPoints}. */
export interface SnowPointsOptions {
  uniforms: PointUniforms;
  atlas: THREE.Texture;
  /** Share of active flakes actually drawn (reduced motion draws fewer). */
  drawShare: number;
}

/** Snow renderer bound to one world's {@link SnowView}. */
export class SnowPoints {
  /** Add this to the scene. */
  readonly object: THREE.Points;
  private readonly geometry = new THREE.BufferGeometry();
  private readonly material: THREE.ShaderMaterial;
  private readonly drawShare: number;
  private positions: THREE.BufferAttribute | null = null;
  private view: SnowView | null = null;
  private drawn = 0;

  constructor(options: SnowPointsOptions) {
    this.drawShare = options.drawShare;
    this.material = new THREE.ShaderMaterial({
      vertexShader: VERTEX,
      fragmentShader: FRAGMENT,
      uniforms: {
        ...options.uniforms,
        uSeconds: { value: 0 },
        uAtlas: { value: options.atlas },
        uTint: { value: new THREE.Color(0.9, 0.94, 1.0) },
        uOpacity: { value: 0.9 },
      },
      transparent: true,
      depthWrite: false,
    });
    this.object = new THREE.Points(this.geometry, this.material);
    this.object.frustumCulled = false;
    this.object.renderOrder = 2;
  }

  /**
   * Points the renderer at a (new) world's snow. The per-flake constants are copied into this
   * object's own attributes, so a rebuilt world reuses the same GPU buffers.
   */
  bind(view: SnowView): void {
    if (view === this.view) return;
    this.view = view;
    const capacity = view.capacity;
    if (!this.positions || this.positions.count !== capacity) {
      this.geometry.dispose();
      this.positions = new THREE.BufferAttribute(new Float32Array(capacity * 3), 3);
      this.positions.setUsage(THREE.DynamicDrawUsage);
      this.geometry.setAttribute("position", this.positions);
      for (const name of PER_FLAKE) {
        this.geometry.setAttribute(name, new THREE.BufferAttribute(new Float32Array(capacity), 1));
      }
    }
    for (const name of PER_FLAKE) {
      const attribute = this.geometry.getAttribute(name) as THREE.BufferAttribute;
      (attribute.array as Float32Array).set(view[name].subarray(0, capacity));
      attribute.needsUpdate = true;
    }
  }

  /** Evaluates flake positions at fractional tick `time` and uploads just the active range. */
  update(time: number): void {
    const view = this.view;
    const positions = this.positions;
    if (!view || !positions) return;
    view.fill(time, positions.array as Float32Array);
    const drawn = Math.floor(view.count * this.drawShare);
    uploadPrefix(positions, drawn * 3);
    this.geometry.setDrawRange(0, drawn);
    this.drawn = drawn;
    this.material.uniforms.uSeconds.value = time / TICK_RATE;
  }

  /** Flakes drawn by the last `update`. */
  get drawnCount(): number {
    return this.drawn;
  }

  /** Frees GPU resources. */
  dispose(): void {
    this.geometry.dispose();
    this.material.dispose();
  }
}

/**
 * The snowfall as one `THREE.Points`: rotating flake sprites from the atlas, sized by distance.
 * The world's closed form is evaluated on the CPU only at a base tick (every few seconds, and
 * when the wind or the intensity changes); the vertex shader carries it forward with the elapsed
 * ticks and the wind's integral since then, so a frame uploads no flake data at all.
 */
import * as THREE from "three";
import { SCENE_HALF_EXTENT, TICK_RATE } from "../../shared/constants.ts";
import { SNOW_HEIGHT } from "../../shared/snow.ts";
import type { SnowView } from "../../shared/views.ts";
import { POINT_SIZE_GLSL, type PointUniforms } from "./point_uniforms.ts";

/** Re-evaluate the closed form on the CPU at least this often, keeping GPU float32 offsets small. */
const REBASE_TICKS = 240;

const WIDTH = 2 * SCENE_HALF_EXTENT;

// The same closed form as shared/snow.ts, carried forward from the base tick: `position` holds
// x, height, z in box units and `cycle` the sway cycle at the base tick (Snow.fillPhases).
const VERTEX = /* glsl */ `
attribute float size;
attribute float variant;
attribute float spin;
attribute float phase;
attribute float cycle;
attribute vec4 motion; // box heights per tick, wind factor, sway cycles per tick, sway x (m)
attribute float swayZ;
uniform float uSeconds;
uniform float uTicks;   // since the base tick
uniform vec2 uWind;     // wind integral since the base tick, in box widths
uniform vec2 uFarFade;  // depths (m) where far flakes start and finish melting into the night
varying float vAngle;
varying float vVariant;
varying float vFade;
${POINT_SIZE_GLSL}
float sway(float u) {
  float v = 1.0 - 2.0 * u;
  float p = 4.0 * v * (1.0 - abs(v));
  return p + 0.225 * (p * abs(p) - p);
}
void main() {
  float s = sway(fract(cycle + motion.z * uTicks)) / ${WIDTH.toFixed(1)};
  vec3 world = vec3(
    fract(position.x + motion.y * uWind.x + motion.w * s) * ${WIDTH.toFixed(1)} - ${
  SCENE_HALF_EXTENT.toFixed(1)
},
    fract(position.y - motion.x * uTicks) * ${SNOW_HEIGHT.toFixed(1)},
    fract(position.z + motion.y * uWind.y + swayZ * s) * ${WIDTH.toFixed(1)} - ${
  SCENE_HALF_EXTENT.toFixed(1)
}
  );
  vec4 viewPosition = modelViewMatrix * vec4(world, 1.0);
  gl_Position = projectionMatrix * viewPosition;
  float depth = -viewPosition.z;
  float pixels = attenuatedPointSize(size, depth);
  // Sub-pixel flakes fade instead of flickering; very far flakes melt into the night.
  vFade = clamp(pixels / 2.0, 0.0, 1.0) * (1.0 - smoothstep(uFarFade.x, uFarFade.y, depth));
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
  private readonly wind = new THREE.Vector2();
  /** x, height, z (box units) and sway cycle per flake at the base tick, interleaved. */
  private phases: THREE.InterleavedBuffer | null = null;
  private motion: THREE.BufferAttribute | null = null;
  private swayZ: THREE.BufferAttribute | null = null;
  private view: SnowView | null = null;
  private drawn = 0;
  private baseTick = NaN;
  private baseCount = -1;
  private baseWindX = 0;
  private baseWindZ = 0;

  constructor(options: SnowPointsOptions) {
    this.drawShare = options.drawShare;
    this.material = new THREE.ShaderMaterial({
      vertexShader: VERTEX,
      fragmentShader: FRAGMENT,
      uniforms: {
        ...options.uniforms,
        uSeconds: { value: 0 },
        uTicks: { value: 0 },
        uWind: { value: this.wind },
        uAtlas: { value: options.atlas },
        uTint: { value: new THREE.Color(0.9, 0.94, 1.0) },
        uOpacity: { value: 0.9 },
        uFarFade: { value: new THREE.Vector2(120, 220) },
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
    this.baseTick = NaN;
    const capacity = view.capacity;
    if (!this.phases || this.phases.count !== capacity) {
      this.geometry.dispose();
      this.phases = new THREE.InterleavedBuffer(new Float32Array(capacity * 4), 4);
      this.phases.setUsage(THREE.DynamicDrawUsage);
      this.geometry.setAttribute(
        "position",
        new THREE.InterleavedBufferAttribute(this.phases, 3, 0),
      );
      this.geometry.setAttribute("cycle", new THREE.InterleavedBufferAttribute(this.phases, 1, 3));
      this.motion = new THREE.BufferAttribute(new Float32Array(capacity * 4), 4);
      this.swayZ = new THREE.BufferAttribute(new Float32Array(capacity), 1);
      this.geometry.setAttribute("motion", this.motion);
      this.geometry.setAttribute("swayZ", this.swayZ);
      for (const name of PER_FLAKE) {
        this.geometry.setAttribute(name, new THREE.BufferAttribute(new Float32Array(capacity), 1));
      }
    }
    for (const name of PER_FLAKE) {
      const attribute = this.geometry.getAttribute(name) as THREE.BufferAttribute;
      (attribute.array as Float32Array).set(view[name].subarray(0, capacity));
      attribute.needsUpdate = true;
    }
    const motion = this.motion!.array as Float32Array;
    for (let i = 0; i < capacity; i++) {
      motion[i * 4] = view.fallPerTick[i] / SNOW_HEIGHT;
      motion[i * 4 + 1] = view.windFactor[i];
      motion[i * 4 + 2] = view.swayFrequency[i];
      motion[i * 4 + 3] = view.swayX[i];
    }
    (this.swayZ!.array as Float32Array).set(view.swayZ.subarray(0, capacity));
    this.motion!.needsUpdate = true;
    this.swayZ!.needsUpdate = true;
  }

  /**
   * Moves the flakes to fractional tick `time`: only uniforms change, except at a rebase (every
   * REBASE_TICKS, or when the wind or the intensity changed), which evaluates the closed form
   * at `time` and uploads the active range.
   */
  update(time: number): void {
    const view = this.view;
    const phases = this.phases;
    if (!view || !phases) return;
    const windMoved = view.windOffsetX(this.baseTick) !== this.baseWindX ||
      view.windOffsetZ(this.baseTick) !== this.baseWindZ;
    if (
      !(time >= this.baseTick && time - this.baseTick <= REBASE_TICKS) ||
      view.count !== this.baseCount || windMoved
    ) {
      view.fillPhases(time, phases.array as Float32Array);
      this.baseTick = time;
      this.baseCount = view.count;
      this.baseWindX = view.windOffsetX(time);
      this.baseWindZ = view.windOffsetZ(time);
      phases.clearUpdateRanges();
      phases.addUpdateRange(0, view.count * 4);
      phases.needsUpdate = true;
    }
    this.wind.set(
      (view.windOffsetX(time) - this.baseWindX) / WIDTH,
      (view.windOffsetZ(time) - this.baseWindZ) / WIDTH,
    );
    const drawn = Math.floor(view.count * this.drawShare);
    this.geometry.setDrawRange(0, drawn);
    this.drawn = drawn;
    const uniforms = this.material.uniforms;
    uniforms.uTicks.value = time - this.baseTick;
    uniforms.uSeconds.value = time / TICK_RATE;
  }

  /**
   * Far flakes melt into the night between these depths (metres): the renderer sets them from
   * the default view's distance, so a phone's farther camera still sees the snow in the scene.
   */
  setFarFade(start: number, end: number): void {
    (this.material.uniforms.uFarFade.value as THREE.Vector2).set(start, end);
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

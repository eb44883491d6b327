/**
 * The snowfall as one `THREE.Points`, with the viewer inside it (docs/sources.md, snow): each flake is drawn
 * at its periodic image nearest a box around the camera (the world's snow field wraps every
 * scene width sideways and every SNOW_HEIGHT vertically), so flakes surround the camera and fill
 * the whole view, the sky above the bursts included. Flakes tumble about their centres in world
 * axes, yaw then pitch as source 000 turns its quads (no billboarding: docs/sources.md, snow), so
 * orbiting the camera shows them from another side; each is drawn as a point sprite whose
 * fragments map back into the flake's own square (`snow_flake_look.ts` has the same rules in
 * TypeScript), from a six-shape atlas, sized by distance.
 *
 * The world's closed form is evaluated on the CPU only at a base tick (every few seconds, and
 * when the wind or the intensity changes); the vertex shader carries it forward with the elapsed
 * ticks and the wind's integral since then, so a frame uploads no flake data at all. When the
 * intensity changes, the flakes that join (or leave) do so at the top of the snowfall (seed
 * 003's `Emit`): a joining flake shows once it has wrapped through the top since the change, a
 * leaving one until it reaches the ground.
 */
import * as THREE from "three";
import { SCENE_HALF_EXTENT, TICK_RATE } from "../../shared/constants.ts";
import { Snow, SNOW_FALL_SPEED, SNOW_HEIGHT } from "../../shared/snow.ts";
import type { SnowView } from "../../shared/views.ts";
import { POINT_SIZE_GLSL, type PointUniforms } from "./point_uniforms.ts";
import { FLAKE_FADE_PIXELS, FLAKE_NEAR_FADE } from "./snow_flake_look.ts";
import { SNOW_ATLAS_COLUMNS, SNOW_ATLAS_ROWS } from "./sprite_textures.ts";

/** Re-evaluate the closed form on the CPU at least this often, keeping GPU float32 offsets small. */
const REBASE_TICKS = 240;

const WIDTH = 2 * SCENE_HALF_EXTENT;

/**
 * How far behind the camera the drawn box of flakes reaches, metres (the rest of its width lies
 * ahead, along the camera's horizontal view direction).
 */
export const SNOW_BOX_BEHIND = 25;

/** Far flakes melt into the night over this many metres beyond the default view's distance. */
export const SNOW_FAR_FADE_SPAN = 100;

/** Ticks after an intensity change by which every flake has wrapped through the top once. */
const TRANSITION_TICKS = Math.ceil((SNOW_HEIGHT / SNOW_FALL_SPEED[0]) * TICK_RATE);

// The same closed form as shared/snow.ts, carried forward from the base tick: `position` holds
// x, height, z in box units and `cycle` the sway cycle at the base tick (Snow.fillPhases).
const VERTEX = /* glsl */ `
attribute float size;
attribute float variant;
attribute float spin;
attribute vec2 phases;  // angles about world x and y at time 0 (pitch a, yaw b)
attribute float cycle;
attribute vec4 motion;  // box heights per tick, wind factor, sway cycles per tick, sway x (m)
attribute vec3 drift;   // windless drift x, z (box widths per tick), sway z (m)
uniform float uSeconds;
uniform float uTicks;   // since the base tick
uniform vec2 uWind;     // wind integral since the base tick, in box widths
uniform vec2 uFarFade;  // depths (m) where far flakes start and finish melting into the night
uniform vec4 uCentre;   // centre of the drawn box: x, z in metres, then in box units
uniform vec4 uTransition; // flakes [x, y) join (w = 1) or leave (w = 0); z: ticks since the change at the base
varying vec4 vInverse;
varying float vFacing;
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
  float u = position.x + drift.x * uTicks + motion.y * uWind.x + motion.w * s;
  float w = position.z + drift.y * uTicks + motion.y * uWind.y + drift.z * s;
  float h = fract(position.y - motion.x * uTicks);
  float id = float(gl_VertexID);
  if (id >= uTransition.x && id < uTransition.y) {
    // Box heights fallen since the change: the flake has come in through the top iff ≥ 1 − h.
    bool entered = motion.x * (uTicks + uTransition.z) >= 1.0 - h;
    if (entered != (uTransition.w > 0.5)) {
      gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
      gl_PointSize = 0.0;
      return;
    }
  }
  // The flake's periodic image nearest the drawn box's centre.
  vec3 world = vec3(
    (fract(u - uCentre.z + 0.5) - 0.5) * ${WIDTH.toFixed(1)} + uCentre.x,
    h * ${SNOW_HEIGHT.toFixed(1)},
    (fract(w - uCentre.w + 0.5) - 0.5) * ${WIDTH.toFixed(1)} + uCentre.y
  );
  vec4 viewPosition = modelViewMatrix * vec4(world, 1.0);
  gl_Position = projectionMatrix * viewPosition;
  float depth = max(-viewPosition.z, 0.05);
  float pixels = attenuatedPointSize(size, depth);
  // Sub-pixel flakes fade instead of flickering; very far flakes melt into the night; a flake
  // about to touch the lens fades rather than filling the screen (snow_flake_look.ts).
  vFade = clamp(pixels / ${FLAKE_FADE_PIXELS.toFixed(1)}, 0.0, 1.0) *
    (1.0 - smoothstep(uFarFade.x, uFarFade.y, depth)) *
    smoothstep(${FLAKE_NEAR_FADE[0].toFixed(2)}, ${FLAKE_NEAR_FADE[1].toFixed(2)}, depth);
  // The flake tumbles about its centre in world axes, as source 000 turns its quad: yaw b about
  // world y, then pitch a about world x (docs/sources.md, snow). Its edges in world space:
  vec2 angles = phases + spin * uSeconds;
  float ca = cos(angles.x), sa = sin(angles.x), cb = cos(angles.y), sb = sin(angles.y);
  mat3 toView = mat3(modelViewMatrix);
  vec3 ex = toView * vec3(cb, sa * sb, -ca * sb);
  vec3 ey = toView * vec3(0.0, ca, sa);
  // Their perspective image on the screen, in pixels (y up), at this flake's place.
  vec2 lean = viewPosition.xy / depth;
  float k = pixels;
  vec2 A = k * (ex.xy + ex.z * lean);
  vec2 B = k * (ey.xy + ey.z * lean);
  float side = max(max(abs(A.x) + abs(B.x), abs(A.y) + abs(B.y)), 1.0);
  gl_PointSize = min(side + 1.0, uMaxPointSize);
  // The inverse of [A B] takes a sprite pixel back to the flake's own square; seen edge-on
  // (det → 0) the flake stays a sliver rather than vanishing.
  float det = A.x * B.y - A.y * B.x;
  float least = 0.06 * length(A) * length(B) + 1e-6;
  det = det < 0.0 ? min(det, -least) : max(det, least);
  // gl_PointCoord runs down the screen: flip y, and scale by the sprite's side.
  float ps = gl_PointSize;
  vInverse = vec4(B.y * ps, -A.y * ps, B.x * ps, -A.x * ps) / det;
  // A flake facing the viewer catches more light than one seen edge-on.
  vec3 normal = toView * vec3(sb, -cb * sa, cb * ca);
  vFacing = 0.65 + 0.35 * abs(dot(normal, viewPosition.xyz) / length(viewPosition.xyz));
  vVariant = variant;
}
`;

const FRAGMENT = /* glsl */ `
uniform sampler2D uAtlas;
uniform vec3 uTint;
uniform float uOpacity;
varying vec4 vInverse;
varying float vFacing;
varying float vVariant;
varying float vFade;
void main() {
  // The sprite pixel in the flake's own square (the vertex shader's inverse image).
  vec2 q = gl_PointCoord - 0.5;
  vec2 r = vec2(vInverse.x * q.x + vInverse.z * q.y, vInverse.y * q.x + vInverse.w * q.y) + 0.5;
  if (r.x < 0.0 || r.y < 0.0 || r.x > 1.0 || r.y > 1.0) discard;
  float cell = floor(vVariant + 0.5);
  vec2 offset = vec2(mod(cell, ${SNOW_ATLAS_COLUMNS.toFixed(1)}), floor(cell / ${
  SNOW_ATLAS_COLUMNS.toFixed(1)
}));
  vec4 texel = texture2D(
    uAtlas,
    (r * 0.96 + 0.02 + offset) / vec2(${SNOW_ATLAS_COLUMNS.toFixed(1)}, ${
  SNOW_ATLAS_ROWS.toFixed(1)
})
  );
  float facing = vFacing;
  float alpha = texel.a * vFade * uOpacity;
  if (alpha < 0.01) discard;
  gl_FragColor = vec4(texel.rgb * uTint * facing, alpha);
  #include <colorspace_fragment>
}
`;

/**
 * The shader's rule for flakes joining after an intensity change, in TypeScript: a flake whose
 * height is `height` (box heights, [0, 1)) and which has fallen `fallen` box heights since the
 * change has come in through the top since then. (It was at height + fallen at the change, so
 * it wrapped iff that is ≥ 1.) A leaving flake shows while this is false.
 *
 * @example
 * ```ts
 * enteredFromTop(0.9, 0.2); // true: it was at 1.1 box heights, so it wrapped
 * ```
 */
export function enteredFromTop(height: number, fallen: number): boolean {
  return fallen >= 1 - height;
}

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
  /** Share of active flakes drawn (reduced motion and quality); may change at any time. */
  drawShare: number;
  private readonly wind = new THREE.Vector2();
  private readonly centre = new THREE.Vector4();
  private readonly transition = new THREE.Vector4();
  private readonly forward = new THREE.Vector3();
  /** x, height, z (box units) and sway cycle per flake at the base tick, interleaved. */
  private phases: THREE.InterleavedBuffer | null = null;
  private view: SnowView | null = null;
  private drawn = 0;
  private baseTick = NaN;
  private baseCount = -1;
  private baseWindX = 0;
  private baseWindZ = 0;
  /** The intensity change being played out: flakes [lo, hi) join (growing) or leave. */
  private changeTick = NaN;
  private changeLo = 0;
  private changeHi = 0;
  private growing = true;

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
        uCentre: { value: this.centre },
        uTransition: { value: this.transition },
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
    this.baseCount = -1;
    this.changeTick = NaN;
    this.changeLo = this.changeHi = 0;
    const capacity = view.capacity;
    if (!this.phases || this.phases.count !== capacity) {
      this.geometry.dispose();
      this.phases = new THREE.InterleavedBuffer(new Float32Array(capacity * 4), 4);
      this.phases.setUsage(THREE.DynamicDrawUsage);
      const g = this.geometry;
      g.setAttribute("position", new THREE.InterleavedBufferAttribute(this.phases, 3, 0));
      g.setAttribute("cycle", new THREE.InterleavedBufferAttribute(this.phases, 1, 3));
      g.setAttribute("motion", new THREE.BufferAttribute(new Float32Array(capacity * 4), 4));
      g.setAttribute("drift", new THREE.BufferAttribute(new Float32Array(capacity * 3), 3));
      g.setAttribute("phases", new THREE.BufferAttribute(new Float32Array(capacity * 2), 2));
      for (const name of ["size", "variant", "spin"]) {
        g.setAttribute(name, new THREE.BufferAttribute(new Float32Array(capacity), 1));
      }
    }
    const attribute = (name: string) => this.geometry.getAttribute(name) as THREE.BufferAttribute;
    for (const name of ["size", "variant", "spin"] as const) {
      (attribute(name).array as Float32Array).set(view[name].subarray(0, capacity));
      attribute(name).needsUpdate = true;
    }
    // The tumbling's second angle and the windless drift are the Snow class's (not every view's).
    const snow = view instanceof Snow ? view : null;
    const motion = attribute("motion").array as Float32Array;
    const drift = attribute("drift").array as Float32Array;
    const angles = attribute("phases").array as Float32Array;
    for (let i = 0; i < capacity; i++) {
      motion[i * 4] = view.fallPerTick[i] / SNOW_HEIGHT;
      motion[i * 4 + 1] = view.windFactor[i];
      motion[i * 4 + 2] = view.swayFrequency[i];
      motion[i * 4 + 3] = view.swayX[i];
      drift[i * 3] = snow ? snow.driftX[i] / WIDTH : 0;
      drift[i * 3 + 1] = snow ? snow.driftZ[i] / WIDTH : 0;
      drift[i * 3 + 2] = view.swayZ[i];
      angles[i * 2] = view.phase[i];
      angles[i * 2 + 1] = snow ? snow.phaseY[i] : view.phase[i] * 1.618;
    }
    for (const name of ["motion", "drift", "phases"]) attribute(name).needsUpdate = true;
  }

  /**
   * Moves the flakes to fractional tick `time` around `camera`: only uniforms change, except at
   * a rebase (every REBASE_TICKS, or when the wind or the intensity changed), which evaluates
   * the closed form at `time` and uploads the range drawn. Never allocates.
   */
  update(time: number, camera: THREE.Camera): void {
    const view = this.view;
    const phases = this.phases;
    if (!view || !phases) return;
    const count = view.count;
    if (count !== this.baseCount && this.baseCount >= 0) {
      // The intensity changed: the difference joins or leaves through the top (render only).
      this.changeTick = time;
      this.growing = count > this.baseCount;
      this.changeLo = Math.min(count, this.baseCount);
      this.changeHi = Math.max(count, this.baseCount);
    }
    const changing = time - this.changeTick < TRANSITION_TICKS;
    const range = changing ? Math.max(count, this.changeHi) : count;
    const windMoved = view.windOffsetX(this.baseTick) !== this.baseWindX ||
      view.windOffsetZ(this.baseTick) !== this.baseWindZ;
    if (
      !(time >= this.baseTick && time - this.baseTick <= REBASE_TICKS) ||
      count !== this.baseCount || windMoved
    ) {
      const out = phases.array as Float32Array;
      if (view instanceof Snow) view.fillPhasesOf(time, out, range);
      else view.fillPhases(time, out);
      this.baseTick = time;
      this.baseCount = count;
      this.baseWindX = view.windOffsetX(time);
      this.baseWindZ = view.windOffsetZ(time);
      phases.clearUpdateRanges();
      phases.addUpdateRange(0, range * 4);
      phases.needsUpdate = true;
    }
    if (changing) {
      this.transition.set(
        this.changeLo,
        this.changeHi,
        this.baseTick - this.changeTick,
        this.growing ? 1 : 0,
      );
    } else {
      this.transition.set(0, 0, 0, 1);
    }
    this.wind.set(
      (view.windOffsetX(time) - this.baseWindX) / WIDTH,
      (view.windOffsetZ(time) - this.baseWindZ) / WIDTH,
    );
    // The drawn box: SNOW_BOX_BEHIND metres behind the camera, the rest of its width ahead.
    camera.getWorldDirection(this.forward);
    this.forward.y = 0;
    const flat = this.forward.length();
    if (flat > 1e-3) this.forward.multiplyScalar((WIDTH / 2 - SNOW_BOX_BEHIND) / flat);
    else this.forward.set(0, 0, 0);
    const cx = camera.position.x + this.forward.x, cz = camera.position.z + this.forward.z;
    this.centre.set(cx, cz, (cx + SCENE_HALF_EXTENT) / WIDTH, (cz + SCENE_HALF_EXTENT) / WIDTH);
    const drawn = Math.floor((view instanceof Snow ? range : count) * this.drawShare);
    this.geometry.setDrawRange(0, drawn);
    this.drawn = drawn;
    const uniforms = this.material.uniforms;
    uniforms.uTicks.value = time - this.baseTick;
    uniforms.uSeconds.value = time / TICK_RATE;
  }

  /**
   * Far flakes melt into the night between these depths (metres): the renderer sets them from
   * the default view's distance.
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

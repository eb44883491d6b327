/**
 * The fountain's water as seed 004 draws it (docs/sources.md, fountain): "fat" particles, each a
 * textured droplet with an alpha channel, blended over the scene (not added as light), and lit
 * by the scene's own lights: the hemisphere sky, the moon and the basin's warm glow. One instanced
 * quad per live drop, stretched a little along its velocity (the source's line from the drop to
 * its next position), packed each frame by `packSparks` into one preallocated buffer.
 *
 * The droplet texture holds a small sphere's normal (rgb) and its soft-edged coverage (alpha);
 * the fragment shader turns that normal into view space and lights it: Lambert for the body,
 * Blinn–Phong highlights from the moon and the glow, and a Fresnel rim reflecting the sky.
 */
import * as THREE from "three";
import type { StreakView } from "../../shared/views.ts";
import type { PointUniforms } from "./point_uniforms.ts";
import { packSparks, type StreakTail } from "./spark_packing.ts";
import { STREAK_FRAGMENT_HEAD_GLSL, STREAK_VERTEX_HEAD_GLSL } from "./spark_streak_shader.ts";
import { PackedStreakMesh } from "./packed_streak_mesh.ts";

/** Side of the droplet texture, texels. */
const DROPLET_TEXELS = 32;
/** The nearest a drop is lit from by the basin's glow, metres. */
const GLOW_NEAREST = 3;
/** How much of the light on it a drop's body scatters (clear water: little). */
const WATER_ALBEDO = 0.5;
/** A drop's streak: back along its velocity over this many seconds (a short exposure). */
const DROP_TAIL: StreakTail = { ticks: 0, velocitySeconds: 0.03 };

/**
 * The droplet texture: per texel the unit normal of a sphere seen from the front (xyz mapped to
 * 0–1) and its coverage, 1 inside with a soft edge. Made in code (no image downloads).
 *
 * @example
 * ```ts
 * const texture = createDropletTexture();
 * texture.dispose();
 * ```
 */
export function createDropletTexture(): THREE.DataTexture {
  const n = DROPLET_TEXELS;
  const data = new Uint8Array(n * n * 4);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const x = ((i + 0.5) / n) * 2 - 1, y = ((j + 0.5) / n) * 2 - 1;
      const r2 = x * x + y * y;
      const z = Math.sqrt(Math.max(0, 1 - r2));
      const o = (j * n + i) * 4;
      data[o] = Math.round((x * 0.5 + 0.5) * 255);
      data[o + 1] = Math.round((y * 0.5 + 0.5) * 255);
      data[o + 2] = Math.round(z * 255);
      // Coverage: solid to r = 0.75, then a smooth edge to nothing at r = 1.
      const edge = Math.min(1, Math.max(0, (1 - Math.sqrt(r2)) / 0.25));
      data[o + 3] = Math.round(edge * edge * (3 - 2 * edge) * 255);
    }
  }
  const texture = new THREE.DataTexture(data, n, n, THREE.RGBAFormat);
  texture.magFilter = THREE.LinearFilter;
  texture.minFilter = THREE.LinearFilter;
  texture.needsUpdate = true;
  return texture;
}

/** The water shader: a streak quad per drop, a lit droplet in it. */
export const FountainWaterShader = {
  vertexShader: /* glsl */ `
${STREAK_VERTEX_HEAD_GLSL}
uniform vec3 uMoonDirection;  // world, towards the moon
uniform vec3 uGlowPosition;   // world
uniform vec3 uGlowColor;      // colour × intensity
uniform float uGlowRange;
uniform float uGlowDecay;
varying vec2 vAxis;           // the streak's direction on the screen
varying vec3 vMoon;           // view space
varying vec3 vGlowDirection;  // view space
varying vec3 vGlowLight;      // the glow's light reaching this drop
varying vec3 vUp;             // world up in view space
void main() {
  float pixels = placeStreak(head, tail, size);
  if (pixels < 0.0) return;
  vColor = color;
  // A tiny drop keeps some presence rather than vanishing between pixels.
  vColor.a *= clamp(pixels / 2.0, 0.3, 1.0);
  vec4 viewHead = modelViewMatrix * vec4(head, 1.0);
  vec4 viewTail = modelViewMatrix * vec4(head + tail, 1.0);
  vec2 axis = (viewHead.xy / -viewHead.z) - (viewTail.xy / -max(-viewTail.z, 0.1));
  vAxis = length(axis) > 1e-6 ? normalize(axis) : vec2(1.0, 0.0);
  vMoon = normalize((viewMatrix * vec4(uMoonDirection, 0.0)).xyz);
  vec3 toGlow = (viewMatrix * vec4(uGlowPosition, 1.0)).xyz - viewHead.xyz;
  float d = length(toGlow);
  vGlowDirection = toGlow / max(d, 1e-3);
  // three's point light fall-off: intensity / d^decay, cut off smoothly at its range; a drop
  // passing right by the lamp is lit as if ${GLOW_NEAREST} m away (the lamp is a glow, not a point).
  float cutoff = pow(clamp(1.0 - pow(d / uGlowRange, 4.0), 0.0, 1.0), 2.0);
  vGlowLight = uGlowColor * cutoff / pow(max(d, ${GLOW_NEAREST.toFixed(1)}), uGlowDecay);
  vUp = normalize((viewMatrix * vec4(0.0, 1.0, 0.0, 0.0)).xyz);
}
`,
  fragmentShader: /* glsl */ `
uniform sampler2D uDroplet;
uniform vec3 uSky;
uniform vec3 uGround;
uniform vec3 uMoonColor;
uniform float uOpacity;
${STREAK_FRAGMENT_HEAD_GLSL}
varying vec2 vAxis;
varying vec3 vMoon;
varying vec3 vGlowDirection;
varying vec3 vGlowLight;
varying vec3 vUp;
void main() {
  // The nearest point of the streak's spine: around it, the droplet's disc.
  float nearest;
  vec2 d = spineOffset(nearest);
  if (dot(d, d) > 1.0) discard;
  vec4 texel = texture2D(uDroplet, d * 0.5 + 0.5);
  float coverage = texel.a * vColor.a * uOpacity;
  if (coverage < 0.004) discard;
  // The texture's normal is in the quad's frame (along, across, out): turn it into view space.
  vec3 local = vec3(texel.rg * 2.0 - 1.0, texel.b);
  vec2 across = vec2(-vAxis.y, vAxis.x);
  vec3 n = normalize(vec3(local.x * vAxis + local.y * across, max(local.z, 0.0)));
  vec3 toEye = vec3(0.0, 0.0, 1.0);
  float up = dot(n, vUp);
  vec3 ambient = mix(uGround, uSky, 0.5 + 0.5 * up);
  vec3 lambert = ambient + uMoonColor * max(dot(n, vMoon), 0.0) +
    vGlowLight * max(dot(n, vGlowDirection), 0.0);
  float moonSpec = pow(max(dot(n, normalize(vMoon + toEye)), 0.0), 60.0);
  float glowSpec = pow(max(dot(n, normalize(vGlowDirection + toEye)), 0.0), 40.0);
  vec3 highlight = (uMoonColor * moonSpec * 3.0 + vGlowLight * glowSpec) * ${
    (1 / Math.PI).toFixed(5)
  };
  float fresnel = 0.04 + 0.96 * pow(1.0 - max(n.z, 0.0), 5.0);
  // Water: a clear body lit by the scene, a rim that reflects the sky, bright highlights.
  // (Lambert over π, as three's own materials light the dishes and the snow around it.)
  vec3 body = vColor.rgb * ${WATER_ALBEDO.toFixed(2)} * lambert * ${
    (1 / Math.PI).toFixed(5)
  } + uSky * fresnel;
  float alpha = coverage * (0.3 + 0.7 * fresnel);
  gl_FragColor = vec4(body * alpha + highlight * coverage, alpha);
  #include <colorspace_fragment>
}
`,
};

/** The scene's lights the water reflects (found in the scenery). */
export interface WaterLights {
  hemisphere: THREE.HemisphereLight | null;
  moon: THREE.DirectionalLight | null;
  glow: THREE.PointLight | null;
}

/** The first hemisphere, directional and point light under `root`. */
export function findWaterLights(root: THREE.Object3D): WaterLights {
  const lights: WaterLights = { hemisphere: null, moon: null, glow: null };
  root.traverse((object) => {
    if (object instanceof THREE.HemisphereLight) lights.hemisphere ??= object;
    else if (object instanceof THREE.DirectionalLight) lights.moon ??= object;
    else if (object instanceof THREE.PointLight) lights.glow ??= object;
  });
  return lights;
}

/** Options for {@link FountainWater}. */
export interface FountainWaterOptions {
  uniforms: PointUniforms;
  /** Shared `uViewport` uniform: the drawing buffer's size in pixels. */
  viewport: THREE.IUniform<THREE.Vector2>;
  lights: WaterLights;
  /** Overall opacity (reduced motion draws the water a little fainter). */
  opacity: number;
  /** Draw order among the transparent layers. */
  renderOrder: number;
}

/** The fountain's water: lit, alpha-blended textured droplets. */
export class FountainWater {
  /** Add this to the scene. */
  readonly object: THREE.Mesh;
  private readonly material: THREE.ShaderMaterial;
  private readonly texture = createDropletTexture();
  private readonly lights: WaterLights;
  private readonly mesh: PackedStreakMesh;
  private view: StreakView | null = null;
  private drawn = 0;

  constructor(options: FountainWaterOptions) {
    this.lights = options.lights;
    this.material = new THREE.ShaderMaterial({
      vertexShader: FountainWaterShader.vertexShader,
      fragmentShader: FountainWaterShader.fragmentShader,
      uniforms: {
        ...options.uniforms,
        uViewport: options.viewport,
        uGlow: { value: 1.3 },
        uDroplet: { value: this.texture },
        uOpacity: { value: options.opacity },
        uSky: { value: new THREE.Color() },
        uGround: { value: new THREE.Color() },
        uMoonColor: { value: new THREE.Color() },
        uMoonDirection: { value: new THREE.Vector3(0, 1, 0) },
        uGlowPosition: { value: new THREE.Vector3() },
        uGlowColor: { value: new THREE.Color() },
        uGlowRange: { value: 40 },
        uGlowDecay: { value: 1.6 },
      },
      transparent: true,
      depthWrite: false,
      // Premultiplied: the shader writes colour × alpha (plus highlights), blended over the scene.
      blending: THREE.CustomBlending,
      blendSrc: THREE.OneFactor,
      blendDst: THREE.OneMinusSrcAlphaFactor,
      blendSrcAlpha: THREE.OneFactor,
      blendDstAlpha: THREE.OneMinusSrcAlphaFactor,
    });
    this.mesh = new PackedStreakMesh(this.material, options.renderOrder);
    this.object = this.mesh.object;
  }

  /** Drops drawn by the last `update`. */
  get drawnCount(): number {
    return this.drawn;
  }

  /** Binds a (new) world's fountain view; allocates only when its capacity grows. */
  bind(view: StreakView): void {
    this.view = view;
    this.mesh.room(view.size.length);
  }

  /**
   * Packs and uploads the live drops at interpolation `alpha` between ticks, and copies the
   * scene's lights into the uniforms (the glow flickers). Never allocates.
   */
  update(alpha: number): void {
    const view = this.view;
    if (!view) return;
    const n = packSparks(view, alpha, DROP_TAIL, 1, NaN, this.mesh.room(view.size.length));
    this.mesh.draw(n);
    this.drawn = n;
    this.copyLights();
  }

  private copyLights(): void {
    const u = this.material.uniforms;
    const { hemisphere, moon, glow } = this.lights;
    if (hemisphere) {
      (u.uSky.value as THREE.Color).copy(hemisphere.color).multiplyScalar(hemisphere.intensity);
      (u.uGround.value as THREE.Color).copy(hemisphere.groundColor).multiplyScalar(
        hemisphere.intensity,
      );
    }
    if (moon) {
      (u.uMoonColor.value as THREE.Color).copy(moon.color).multiplyScalar(moon.intensity);
      (u.uMoonDirection.value as THREE.Vector3).copy(moon.position).sub(moon.target.position)
        .normalize();
    }
    if (glow) {
      glow.getWorldPosition(u.uGlowPosition.value as THREE.Vector3);
      (u.uGlowColor.value as THREE.Color).copy(glow.color).multiplyScalar(glow.intensity);
      u.uGlowRange.value = glow.distance > 0 ? glow.distance : 1e6;
      u.uGlowDecay.value = glow.decay;
    }
  }

  /** Frees GPU resources. */
  dispose(): void {
    this.mesh.dispose();
    this.material.dispose();
    this.texture.dispose();
  }
}

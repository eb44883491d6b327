/**
 * The static night scenery: a sky-dome gradient with twinkling stars and a moon, soft snowy
 * ground with gentle drifts, the fountain's stone basin with warm light, and a ring of snowy pines.
 */
import * as THREE from "three";
import { FOUNTAIN_BASIN_RADIUS, SCENE_HALF_EXTENT } from "../../shared/constants.ts";
import { FOUNTAIN_JETS, FOUNTAIN_SURFACES, surfaceHeight } from "../../shared/fountain.ts";
import { type MoonPlace, moonPlace } from "./moon_place.ts";

const SKY_VERTEX = /* glsl */ `
varying vec3 vDirection;
void main() {
  vDirection = normalize(position);
  gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
}
`;

const SKY_FRAGMENT = /* glsl */ `
uniform vec3 uZenith;
uniform vec3 uHorizon;
uniform vec3 uGlow;
varying vec3 vDirection;
void main() {
  float h = clamp(vDirection.y, -1.0, 1.0);
  vec3 color = mix(uHorizon, uZenith, pow(smoothstep(-0.05, 0.75, h), 0.6));
  // A faint warm haze low on the horizon (a distant town), strongest at its edge.
  color += uGlow * exp(-abs(h) * 14.0) * 0.55;
  gl_FragColor = vec4(color, 1.0);
  #include <colorspace_fragment>
}
`;

const STAR_VERTEX = /* glsl */ `
attribute float brightness;
attribute float twinklePhase;
uniform float uSeconds;
uniform float uTwinkle;
varying float vBrightness;
void main() {
  vBrightness = brightness * (1.0 - uTwinkle * 0.35 * (0.5 + 0.5 * sin(uSeconds * 2.3 + twinklePhase)));
  gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
  gl_PointSize = 1.0 + brightness * 2.2;
}
`;

const STAR_FRAGMENT = /* glsl */ `
varying float vBrightness;
void main() {
  vec2 p = gl_PointCoord * 2.0 - 1.0;
  float d2 = dot(p, p);
  if (d2 > 1.0) discard;
  float light = exp(-d2 * 4.0) * vBrightness;
  gl_FragColor = vec4(vec3(0.85, 0.9, 1.0) * light, light);
  #include <colorspace_fragment>
}
`;

/** Small deterministic generator so the scenery looks the same for everyone. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Height of the snow surface at (x, z): soft drifts, flat near the basin. */
export function groundHeight(x: number, z: number): number {
  const drifts = Math.sin(x * 0.09) * Math.cos(z * 0.07) * 0.6 +
    Math.sin(x * 0.23 + z * 0.17) * 0.18;
  const r = Math.sqrt(x * x + z * z);
  const flat = THREE.MathUtils.smoothstep(r, FOUNTAIN_BASIN_RADIUS + 1, FOUNTAIN_BASIN_RADIUS + 8);
  return drifts * 0.8 * flat;
}

/** Options for {@link Ground}. */
export interface GroundOptions {
  /** Stars twinkle unless the viewer prefers reduced motion. */
  twinkle: boolean;
}

/** Everything that does not move (except the stars' twinkle and the basin light's flicker). */
export class Ground {
  /** Add this to the scene. */
  readonly group = new THREE.Group();
  private readonly disposables: { dispose(): void }[] = [];
  private readonly starMaterial: THREE.ShaderMaterial;
  private readonly basinLight: THREE.PointLight;
  private readonly moon: THREE.Sprite | null;
  private readonly moonPlace: MoonPlace = { position: new THREE.Vector3(), scale: 0 };
  private twinkle: boolean;

  constructor(options: GroundOptions) {
    this.twinkle = options.twinkle;
    const random = mulberry32(0x5eed);
    this.addSky();
    this.starMaterial = this.addStars(random);
    this.moon = this.addMoon();
    this.addSnowfield();
    this.basinLight = this.addBasin();
    this.addTrees(random);
    this.addLights();
  }

  /** Stars twinkle and the basin light flickers (off for reduced motion); followed live. */
  setTwinkle(on: boolean): void {
    this.twinkle = on;
    this.starMaterial.uniforms.uTwinkle.value = on ? 1 : 0;
    if (!on) this.basinLight.intensity = 60;
  }

  /** Animates the star twinkle and the warm flicker of the basin light. */
  update(seconds: number): void {
    this.starMaterial.uniforms.uSeconds.value = seconds;
    if (this.twinkle) {
      this.basinLight.intensity = 60 + Math.sin(seconds * 3.1) * 4 + Math.sin(seconds * 7.3) * 2;
    }
  }

  /** Frees every geometry, material and texture created here. */
  dispose(): void {
    for (const item of this.disposables) item.dispose();
    this.disposables.length = 0;
  }

  private keep<T extends { dispose(): void }>(item: T): T {
    this.disposables.push(item);
    return item;
  }

  private addSky(): void {
    const material = this.keep(
      new THREE.ShaderMaterial({
        vertexShader: SKY_VERTEX,
        fragmentShader: SKY_FRAGMENT,
        uniforms: {
          uZenith: { value: new THREE.Color(0x02040d) },
          uHorizon: { value: new THREE.Color(0x16284a) },
          uGlow: { value: new THREE.Color(0x3a2c3a) },
        },
        side: THREE.BackSide,
        depthWrite: false,
      }),
    );
    const sky = new THREE.Mesh(this.keep(new THREE.SphereGeometry(400, 32, 16)), material);
    sky.renderOrder = -10;
    this.group.add(sky);
  }

  private addStars(random: () => number): THREE.ShaderMaterial {
    const count = 1800;
    const positions = new Float32Array(count * 3);
    const brightness = new Float32Array(count);
    const phases = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      // Uniform on the upper hemisphere, kept a little above the horizon haze.
      const y = 0.08 + random() * 0.92;
      const ring = Math.sqrt(1 - y * y);
      const angle = random() * Math.PI * 2;
      positions[i * 3] = Math.cos(angle) * ring * 380;
      positions[i * 3 + 1] = y * 380;
      positions[i * 3 + 2] = Math.sin(angle) * ring * 380;
      brightness[i] = Math.pow(random(), 3) * 0.9 + 0.1;
      phases[i] = random() * Math.PI * 2;
    }
    const geometry = this.keep(new THREE.BufferGeometry());
    geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
    geometry.setAttribute("brightness", new THREE.BufferAttribute(brightness, 1));
    geometry.setAttribute("twinklePhase", new THREE.BufferAttribute(phases, 1));
    const material = this.keep(
      new THREE.ShaderMaterial({
        vertexShader: STAR_VERTEX,
        fragmentShader: STAR_FRAGMENT,
        uniforms: { uSeconds: { value: 0 }, uTwinkle: { value: this.twinkle ? 1 : 0 } },
        transparent: true,
        depthWrite: false,
        blending: THREE.AdditiveBlending,
      }),
    );
    const stars = new THREE.Points(geometry, material);
    stars.renderOrder = -9;
    this.group.add(stars);
    return material;
  }

  private addMoon(): THREE.Sprite | null {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 128;
    const ctx = canvas.getContext("2d");
    if (!ctx) return null;
    const halo = ctx.createRadialGradient(64, 64, 10, 64, 64, 64);
    halo.addColorStop(0, "rgba(255,250,235,1)");
    halo.addColorStop(0.22, "rgba(245,240,225,1)");
    halo.addColorStop(0.25, "rgba(200,210,255,0.25)");
    halo.addColorStop(1, "rgba(120,140,220,0)");
    ctx.fillStyle = halo;
    ctx.fillRect(0, 0, 128, 128);
    const texture = this.keep(new THREE.CanvasTexture(canvas));
    texture.colorSpace = THREE.SRGBColorSpace;
    const material = this.keep(
      new THREE.SpriteMaterial({
        map: texture,
        transparent: true,
        depthWrite: false,
        blending: THREE.AdditiveBlending,
        fog: false,
      }),
    );
    const moon = new THREE.Sprite(material);
    moon.position.set(150, 150, -280);
    moon.scale.setScalar(46);
    moon.renderOrder = -8;
    this.group.add(moon);
    return moon;
  }

  /** Hangs the moon where `camera` (a fitted default view, matrices current) shows it whole. */
  placeMoon(camera: THREE.PerspectiveCamera): void {
    if (!this.moon) return;
    const place = moonPlace(camera, this.moonPlace);
    this.moon.position.copy(place.position);
    this.moon.scale.setScalar(place.scale);
  }

  private addSnowfield(): void {
    const size = SCENE_HALF_EXTENT * 6;
    const geometry = this.keep(new THREE.PlaneGeometry(size, size, 96, 96));
    geometry.rotateX(-Math.PI / 2);
    const positions = geometry.getAttribute("position") as THREE.BufferAttribute;
    for (let i = 0; i < positions.count; i++) {
      positions.setY(i, groundHeight(positions.getX(i), positions.getZ(i)));
    }
    geometry.computeVertexNormals();
    // Lambert: snow is matte, and per-pixel PBR over the whole screen is costly on weak GPUs.
    const material = this.keep(new THREE.MeshLambertMaterial({ color: 0xdfe8f5 }));
    const ground = new THREE.Mesh(geometry, material);
    ground.receiveShadow = false;
    this.group.add(ground);
  }

  private addBasin(): THREE.PointLight {
    const r = FOUNTAIN_BASIN_RADIUS;
    const stone = this.keep(new THREE.MeshLambertMaterial({ color: 0x8a8790 }));
    const rim = new THREE.Mesh(this.keep(new THREE.TorusGeometry(r, 0.45, 12, 64)), stone);
    rim.rotation.x = Math.PI / 2;
    rim.position.y = 0.55;
    this.group.add(rim);
    const wall = new THREE.Mesh(
      this.keep(new THREE.CylinderGeometry(r, r + 0.2, 0.6, 64, 1, true)),
      stone,
    );
    wall.position.y = 0.3;
    this.group.add(wall);
    const snowCap = new THREE.Mesh(
      this.keep(new THREE.TorusGeometry(r, 0.3, 8, 64)),
      this.keep(new THREE.MeshLambertMaterial({ color: 0xf3f7ff })),
    );
    snowCap.rotation.x = Math.PI / 2;
    snowCap.position.y = 0.88;
    snowCap.scale.z = 0.5;
    this.group.add(snowCap);
    const water = new THREE.Mesh(
      this.keep(new THREE.CircleGeometry(r - 0.2, 64)),
      this.keep(
        new THREE.MeshStandardMaterial({
          color: 0x0d2236,
          roughness: 0.15,
          metalness: 0.6,
          emissive: 0x0a1a2a,
        }),
      ),
    );
    water.rotation.x = -Math.PI / 2;
    water.position.y = 0.35;
    this.group.add(water);
    this.addFountainBody(stone);
    const light = new THREE.PointLight(0xffa860, 60, 40, 1.6);
    // Above the jet's top, not on the dishes: 0.3 m over the upper dish it burned it white.
    light.position.set(0, 6.5, 0);
    this.group.add(light);
    return light;
  }

  /**
   * The fountain as the simulation builds it (shared/fountain.ts): the two dishes the water
   * bounces off, drawn from FOUNTAIN_SURFACES as shallow domes (centre high, so water runs off
   * their rims), the central column carrying them up to the nozzle of the tall jet, and a short
   * spout under each ring jet.
   */
  private addFountainBody(stone: THREE.Material): void {
    const wet = this.keep(
      new THREE.MeshLambertMaterial({ color: 0xa5a2ad, side: THREE.DoubleSide }),
    );
    const shaft = 0.16;
    let top = 0;
    for (const surface of FOUNTAIN_SURFACES) {
      const { apexY, rMax } = surface;
      const inner = shaft;
      // The top face: exactly the bounce dome from the column out to rMax, turned from its
      // profile; the underside the same profile 0.12 m lower, closed at the rim by the lip.
      const profile = (drop: number) => {
        const points: THREE.Vector2[] = [];
        for (let k = 0; k <= 16; k++) {
          const r = inner + (rMax - inner) * (k / 16);
          points.push(new THREE.Vector2(r, surfaceHeight(surface, r) - drop));
        }
        return points;
      };
      this.group.add(new THREE.Mesh(this.keep(new THREE.LatheGeometry(profile(0), 48)), wet));
      this.group.add(new THREE.Mesh(this.keep(new THREE.LatheGeometry(profile(0.12), 48)), stone));
      const lip = new THREE.Mesh(this.keep(new THREE.TorusGeometry(rMax, 0.06, 8, 64)), wet);
      lip.rotation.x = Math.PI / 2;
      lip.position.y = surfaceHeight(surface, rMax) - 0.05;
      this.group.add(lip);
      top = Math.max(top, apexY);
    }
    // The column from the pool floor to the central nozzle, which sits just above the top dish.
    const nozzle = FOUNTAIN_JETS[0];
    const base = new THREE.Mesh(this.keep(new THREE.CylinderGeometry(0.3, 0.6, 0.7, 24)), stone);
    base.position.y = 0.35;
    this.group.add(base);
    const column = new THREE.Mesh(
      this.keep(new THREE.CylinderGeometry(shaft, shaft * 1.3, top, 16)),
      stone,
    );
    column.position.y = top / 2;
    this.group.add(column);
    const tip = new THREE.Mesh(
      this.keep(new THREE.CylinderGeometry(0.06, 0.12, nozzle.y - top + 0.02, 12)),
      wet,
    );
    tip.position.y = (nozzle.y + top) / 2;
    this.group.add(tip);
    // Ring jets: a spout under each nozzle, standing in the pool.
    const spout = this.keep(new THREE.CylinderGeometry(0.07, 0.12, 0.3, 10));
    for (const jet of FOUNTAIN_JETS.slice(1)) {
      const mesh = new THREE.Mesh(spout, wet);
      mesh.position.set(jet.x, jet.y - 0.15, jet.z);
      this.group.add(mesh);
    }
  }

  /** A ring of snowy pines: three instanced meshes (trunks, green tiers, snow caps). */
  private addTrees(random: () => number): void {
    const trees = 34;
    const tiers = 3;
    const foliage = this.keep(
      new THREE.MeshLambertMaterial({ color: 0x17382a, flatShading: true }),
    );
    const snow = this.keep(new THREE.MeshLambertMaterial({ color: 0xeef4ff, flatShading: true }));
    const bark = this.keep(new THREE.MeshLambertMaterial({ color: 0x3b2a20 }));
    const cone = this.keep(new THREE.ConeGeometry(1, 1, 9));
    const trunk = this.keep(new THREE.CylinderGeometry(0.25, 0.35, 1.6, 8));
    const stems = new THREE.InstancedMesh(trunk, bark, trees);
    const greens = new THREE.InstancedMesh(cone, foliage, trees * tiers);
    const caps = new THREE.InstancedMesh(cone, snow, trees * tiers);
    const place = new THREE.Matrix4();
    const position = new THREE.Vector3();
    const scale = new THREE.Vector3();
    const upright = new THREE.Quaternion();
    for (let i = 0; i < trees; i++) {
      const angle = (i / trees) * Math.PI * 2 + random() * 0.15;
      const radius = SCENE_HALF_EXTENT + 4 + random() * 22;
      const x = Math.cos(angle) * radius;
      const z = Math.sin(angle) * radius;
      const base = groundHeight(x, z) - 0.2;
      const height = 7 + random() * 8;
      stems.setMatrixAt(
        i,
        place.compose(position.set(x, base + 0.8, z), upright, scale.set(1, 1, 1)),
      );
      for (let tier = 0; tier < tiers; tier++) {
        const width = height * 0.32 * (1 - tier * 0.25);
        const tierHeight = height * 0.42;
        const y = base + 1.4 + tier * height * 0.24 + tierHeight / 2;
        greens.setMatrixAt(
          i * tiers + tier,
          place.compose(position.set(x, y, z), upright, scale.set(width, tierHeight, width)),
        );
        caps.setMatrixAt(
          i * tiers + tier,
          place.compose(
            position.set(x, y + tierHeight * 0.32, z),
            upright,
            scale.set(width * 0.6, tierHeight * 0.4, width * 0.6),
          ),
        );
      }
    }
    this.keep(stems);
    this.keep(greens);
    this.keep(caps);
    this.group.add(stems, greens, caps);
  }

  private addLights(): void {
    this.group.add(new THREE.HemisphereLight(0x4a5f8f, 0x1a1f2e, 1.1));
    const moonlight = new THREE.DirectionalLight(0xaec4ff, 0.9);
    moonlight.position.set(150, 150, -280);
    this.group.add(moonlight);
  }
}

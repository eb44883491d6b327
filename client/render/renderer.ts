/**
 * The three.js side: WebGL renderer, scene, camera with bounded orbit controls, the scenery and
 * one renderer per particle system. It reads the world each frame and never writes it.
 */
import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import { SCENE_HALF_EXTENT, SCENE_HEIGHT } from "../../shared/constants.ts";
import type { World } from "../../shared/world.ts";
import { fitDefaultView } from "./camera_fit.ts";
import { zoomPoint, zoomToward } from "./camera_zoom.ts";
import { ClickMarker } from "./click_marker.ts";
import { FireworkSparks } from "./firework_sparks.ts";
import { GlowPipeline } from "./glow_pipeline.ts";
import type { QualityLevel } from "./quality.ts";
import { Ground } from "./ground.ts";
import { createPointUniforms, type PointUniforms } from "./point_uniforms.ts";
import { findWaterLights, FountainWater } from "./fountain_water.ts";
import { SNOW_FAR_FADE_SPAN, SnowPoints } from "./snow_points.ts";
import { SparkStreaks, type SparkStreaksOptions } from "./spark_streaks.ts";
import { createSnowflakeAtlas } from "./sprite_textures.ts";
import { FIREWORK_YOUTH_RADIUS } from "./firework_youth.ts";

/** Options for {@link SceneRenderer}. */
export interface SceneRendererOptions {
  canvas: HTMLCanvasElement;
  /** Honour `prefers-reduced-motion`: fewer flakes, dimmer bursts, no twinkle. */
  reducedMotion: boolean;
  /** Keep the drawing buffer so tests can read pixels back. */
  preserveDrawingBuffer?: boolean;
}

/**
 * Per firework motion class (MOTION order: shell, trail, spark, child, ember, willow, willowEmber,
 * comet, cometEmber, star, split, crackle, crackleChild), a factor on the 5-tick streak: crossette
 * stars and their splits stay crisp points with short tails (a cross of stars, not of dashes) and
 * a crackle pop is a round flash.
 */
const FIREWORK_TAIL_TICKS: readonly number[] = [1, 1, 1, 1, 1, 1, 1, 1, 1, 0.4, 0.3, 1, 0.2];

/** Share of the flakes drawn with reduced motion (times the quality's share). */
const REDUCED_FLAKE_SHARE = 0.35;

/**
 * Young-burst radii with reduced motion: 1.5× the full page's, so a burst's white-hot first
 * moments (shared/firework_colors.ts) come in at under half the full page's (d/R)² light — a
 * hue-keeping highlight ceiling leaves white sparks at its full luminance, and a calm viewer must
 * not get a white flash. Every reduced spark is also dimmer (makeFireworks: 0.4 of 1.3, was 0.5).
 */
const REDUCED_YOUTH_RADIUS: readonly number[] = FIREWORK_YOUTH_RADIUS.map((r) => 1.5 * r);

/** Lowest the camera may go, metres above the ground. */
const MIN_CAMERA_HEIGHT = 1.5;
/**
 * Orbit limits as polar angles from straight up: the camera looks down at most 30° (from higher
 * up the trees' tops would turn toward the screen's bottom and the sky leave the view) and up at
 * most about 5° (the ground stays in view).
 */
const MIN_POLAR = THREE.MathUtils.degToRad(60);
const MAX_POLAR = Math.PI * 0.53;
/** A zoom stops this far from the point it heads for, metres: close enough to fill the view with the fountain. */
const ZOOM_NEAR = 4;

/** Renders the world into a canvas. */
export class SceneRenderer {
  readonly renderer: THREE.WebGLRenderer;
  readonly scene = new THREE.Scene();
  readonly camera: THREE.PerspectiveCamera;
  readonly controls: OrbitControls;
  private readonly uniforms: PointUniforms = createPointUniforms();
  private readonly atlas: THREE.Texture;
  private readonly ground: Ground;
  private readonly snow: SnowPoints;
  private readonly viewport = { value: new THREE.Vector2(1, 1) };
  private fireworks: FireworkSparks;
  private gun: SparkStreaks;
  private readonly fountain: FountainWater;
  private readonly glow: GlowPipeline;
  private readonly canvas: HTMLCanvasElement;
  private readonly marker: ClickMarker;
  private seconds = 0;
  private world: World | null = null;
  private width = 0;
  private height = 0;
  private userMoved = false;
  private pendingPixelRatio = NaN;
  private readonly fog = new THREE.FogExp2(0x0b1426, 0.0065);
  private reduced: boolean;
  private quality: QualityLevel = { pixelRatio: 1, glow: true, flakeShare: 1 };
  private readonly zoomRay = new THREE.Raycaster();
  private readonly zoomNdc = new THREE.Vector2();
  private readonly zoomPointAt = new THREE.Vector3();

  constructor(options: SceneRendererOptions) {
    this.canvas = options.canvas;
    this.renderer = new THREE.WebGLRenderer({
      canvas: options.canvas,
      // The scene is drawn into an off-screen HDR target (glow_pipeline.ts); the canvas only gets
      // the final full-screen pass, so canvas antialiasing would be wasted.
      antialias: false,
      powerPreference: "high-performance",
      preserveDrawingBuffer: options.preserveDrawingBuffer ?? false,
    });
    this.renderer.setPixelRatio(Math.min(globalThis.devicePixelRatio || 1, 2));
    this.renderer.outputColorSpace = THREE.SRGBColorSpace;
    const gl = this.renderer.getContext();
    const range = gl.getParameter(gl.ALIASED_POINT_SIZE_RANGE) as Float32Array | null;
    this.uniforms.uMaxPointSize.value = range ? range[1] : 64;

    this.scene.fog = this.fog;
    this.camera = new THREE.PerspectiveCamera(55, 1, 0.5, 2000);
    this.controls = new OrbitControls(this.camera, options.canvas);
    this.controls.enableDamping = true;
    this.controls.dampingFactor = 0.08;
    // Zoom is ours (zoomAt: toward the point under the pointer); the controls orbit and pan.
    this.controls.enableZoom = false;
    this.controls.minDistance = ZOOM_NEAR;
    this.controls.minPolarAngle = MIN_POLAR;
    this.controls.maxPolarAngle = MAX_POLAR;
    this.controls.addEventListener("change", () => this.keepCameraInBounds());
    // Until the viewer moves the camera, every resize re-fits the default view.
    this.controls.addEventListener("start", () => this.userMoved = true);
    // Arrow keys pan the view while the canvas has focus (keyboard users can look around).
    this.controls.listenToKeyEvents(options.canvas);
    this.controls.update();

    const reduced = options.reducedMotion;
    this.reduced = reduced;
    this.ground = new Ground({ twinkle: !reduced });
    this.scene.add(this.ground.group);
    this.atlas = createSnowflakeAtlas();
    this.snow = new SnowPoints({
      uniforms: this.uniforms,
      atlas: this.atlas,
      drawShare: reduced ? REDUCED_FLAKE_SHARE : 1,
    });
    this.fountain = new FountainWater({
      uniforms: this.uniforms,
      viewport: this.viewport,
      lights: findWaterLights(this.ground.group),
      opacity: 1,
      renderOrder: 1,
    });
    this.fireworks = this.makeFireworks(reduced);
    this.gun = this.makeGun(reduced);
    for (const object of [this.fountain.object, this.snow.object]) {
      this.scene.add(object);
    }
    this.scene.add(this.fireworks.object, this.gun.object);
    this.marker = new ClickMarker(reduced);
    this.scene.add(this.marker.group);
    this.glow = new GlowPipeline({
      renderer: this.renderer,
      scene: this.scene,
      camera: this.camera,
      bloomStrength: reduced ? 0.6 : 1.5,
      // Reduced motion: no white flashes (a burst tops out at about 80 % sRGB).
      highlightCeiling: reduced ? 0.6 : undefined,
    });
    this.resize();
  }

  // Firework sparks, evaluated on the GPU from their births: streaks over their last ticks of
  // motion (long where fast, points where slow); reduced motion draws half of them, dimmer, and
  // its young bursts dimmer still (REDUCED_YOUTH_RADIUS).
  private makeFireworks(reduced: boolean): FireworkSparks {
    return new FireworkSparks({
      ...this.sparkBasics(),
      glow: 1.7,
      intensity: reduced ? 0.4 : 1.3,
      tailTicks: 5,
      classTicks: FIREWORK_TAIL_TICKS,
      classYouth: reduced ? REDUCED_YOUTH_RADIUS : FIREWORK_YOUTH_RADIUS,
      tailLight: 0.2,
      keepEvery: reduced ? 2 : 1,
      strobe: !reduced,
      gl: this.renderer.getContext() as WebGL2RenderingContext,
    });
  }

  // Gun tracers: bright dashes, each as long as two ticks of flight (shots fly two ticks apart).
  private makeGun(reduced: boolean): SparkStreaks {
    return new SparkStreaks({
      ...this.sparkBasics(),
      glow: 1.6,
      intensity: reduced ? 0.6 : 2,
      tail: { ticks: 2 },
      tailLight: 0.1,
    });
  }

  /** What both spark renderers share: the frame's uniforms and viewport, drawn after the water. */
  private sparkBasics(): Pick<SparkStreaksOptions, "uniforms" | "viewport" | "renderOrder"> {
    return { uniforms: this.uniforms, viewport: this.viewport, renderOrder: 3 };
  }

  /** Whether the page follows `prefers-reduced-motion` now. */
  get reducedMotion(): boolean {
    return this.reduced;
  }

  /**
   * Follows a change of `prefers-reduced-motion` live: fewer and dimmer sparks without strobing,
   * fewer flakes, no twinkle, a still launch ring, a gentler glow with no white flash. The
   * particle renderers whose look is fixed at construction are made anew and bound to the world.
   */
  setReducedMotion(reduced: boolean): void {
    if (reduced === this.reduced) return;
    this.reduced = reduced;
    const old = [this.fireworks, this.gun];
    for (const item of old) this.scene.remove(item.object);
    this.fireworks = this.makeFireworks(reduced);
    this.gun = this.makeGun(reduced);
    this.scene.add(this.fireworks.object, this.gun.object);
    for (const item of old) item.dispose();
    if (this.world) {
      this.fireworks.bind(this.world);
      this.gun.bind(this.world.gun);
    }
    this.ground.setTwinkle(!reduced);
    this.marker.calm = reduced;
    this.glow.strength = reduced ? 0.6 : 1.5;
    this.glow.highlightCeiling = reduced ? 0.6 : Infinity;
    this.applyFlakeShare();
  }

  /** Draws at `level` (quality: pixel ratio, glow, share of the flakes); never the simulation. */
  applyQuality(level: QualityLevel): void {
    this.quality = { ...level };
    if (level.pixelRatio !== this.pixelRatio) this.setPixelRatio(level.pixelRatio);
    this.glow.bloomEnabled = level.glow;
    this.applyFlakeShare();
  }

  /** The quality level drawn now. */
  get qualityLevel(): QualityLevel {
    return { ...this.quality, pixelRatio: this.pixelRatio };
  }

  private applyFlakeShare(): void {
    this.snow.drawShare = (this.reduced ? REDUCED_FLAKE_SHARE : 1) * this.quality.flakeShare;
  }

  /** How many flakes and firework sparks the last frame drew. */
  drawnCounts(): { flakes: number; fireworks: number } {
    return { flakes: this.snow.drawnCount, fireworks: this.fireworks.drawnCount };
  }

  /** Named groups of drawables, so people (and the benchmark) can switch layers off. */
  layers(): Record<string, THREE.Object3D> {
    return {
      scenery: this.ground.group,
      snow: this.snow.object,
      fireworks: this.fireworks.object,
      gun: this.gun.object,
      fountain: this.fountain.object,
    };
  }

  /** Starts drawing a (new) world. */
  bindWorld(world: World): void {
    this.world = world;
    this.snow.bind(world.snow);
    this.fireworks.bind(world);
    this.gun.bind(world.gun);
    this.fountain.bind(world.fountain);
  }

  /**
   * Draws the world's state at fractional tick `time` (between `world.tick − 1` and
   * `world.tick`). `seconds` drives purely decorative animation.
   */
  render(time: number, seconds: number): void {
    this.prepare(time, seconds);
    if (this.drawing) this.draw();
  }

  /**
   * Whether {@link render} reaches the GPU. Tests that check only the page's state (its HUD, the
   * world, the camera's projection) switch drawing off: on a software renderer the draw is nearly
   * all of a frame's cost, and every browser action waits for frames.
   */
  drawing = true;

  /**
   * CPU side of a frame: moves the snow (uniforms; it re-evaluates the flakes only at a rebase),
   * packs the visible particles, marks the live ranges of every particle attribute
   * for upload and sets the interpolation uniforms. The fireworks' new launches go up here (their
   * references and rows: what a frame uploads for them, counted in this frame's CPU whether or
   * not it is drawn); the packed particles go up at {@link draw}.
   */
  prepare(time: number, seconds: number): void {
    if (!Number.isNaN(this.pendingPixelRatio)) {
      this.renderer.setPixelRatio(this.pendingPixelRatio);
      this.pendingPixelRatio = NaN;
      this.resize();
    }
    this.resizeIfNeeded();
    this.controls.update();
    const world = this.world;
    if (world) {
      const alpha = Math.min(1, Math.max(0, time - (world.tick - 1)));
      const clamped = world.tick - 1 + alpha;
      this.snow.update(clamped, this.camera);
      this.fireworks.update(alpha);
      this.fireworks.upload(this.renderer);
      this.gun.update(alpha, world.tick);
      this.fountain.update(alpha);
    }
    this.ground.update(seconds);
    this.marker.update(seconds);
    this.seconds = seconds;
  }

  /** Marks a ground point where this viewer just asked for a launch (immediate feedback). */
  markLaunch(x: number, z: number): void {
    this.marker.mark(x, z, this.seconds);
  }

  /** Uploads the marked buffer ranges and issues the draw calls (scene, bloom, tone mapping). */
  draw(): void {
    this.glow.render();
  }

  /** Whether the bloom pass runs (on by default; the benchmark measures its share). */
  get bloom(): boolean {
    return this.glow.bloomEnabled;
  }

  set bloom(on: boolean) {
    this.glow.bloomEnabled = on;
  }

  /**
   * Renders at `ratio` device pixels per CSS pixel from the next frame on. The drawing buffer is
   * resized at the start of that frame's {@link prepare}, not now: resizing it clears the
   * canvas, and a clear after this frame's draw is what the browser would show (two fully black
   * phone frames were seen when the governor changed the resolution between draw and display).
   */
  setPixelRatio(ratio: number): void {
    this.pendingPixelRatio = ratio;
  }

  /** Device pixels per CSS pixel currently rendered (or about to be, from the next frame). */
  get pixelRatio(): number {
    return Number.isNaN(this.pendingPixelRatio)
      ? this.renderer.getPixelRatio()
      : this.pendingPixelRatio;
  }

  /** Matches the drawing buffer and the point-size scale to the canvas' CSS size. */
  resize(): void {
    const width = Math.max(1, this.canvas.clientWidth);
    const height = Math.max(1, this.canvas.clientHeight);
    this.width = width;
    this.height = height;
    this.renderer.setSize(width, height, false);
    this.glow.setSize(width, height);
    this.camera.aspect = width / height;
    if (!this.userMoved) this.fitView();
    this.camera.updateProjectionMatrix();
    const buffer = this.renderer.getDrawingBufferSize(this.viewport.value);
    const bufferHeight = buffer.y;
    const halfFov = THREE.MathUtils.degToRad(this.camera.fov) / 2;
    this.uniforms.uPointScale.value = bufferHeight / (2 * Math.tan(halfFov));
  }

  /** Frees everything this renderer created. */
  dispose(): void {
    this.controls.stopListenToKeyEvents();
    this.controls.dispose();
    this.snow.dispose();
    this.fireworks.dispose();
    this.gun.dispose();
    this.fountain.dispose();
    this.ground.dispose();
    this.marker.dispose();
    this.glow.dispose();
    this.atlas.dispose();
    this.renderer.dispose();
  }

  /**
   * Zooms toward the scene point under NDC (x, y) by `scale` (below 1 closer): that point stays
   * where it is on the screen. Returns the scale applied (1 at a limit).
   */
  zoomAt(ndcX: number, ndcY: number, scale: number): number {
    const camera = this.camera, target = this.controls.target;
    camera.updateMatrixWorld();
    this.zoomNdc.set(ndcX, ndcY);
    this.zoomRay.setFromCamera(this.zoomNdc, camera);
    zoomPoint(this.zoomRay.ray, camera.position.distanceTo(target), this.zoomPointAt);
    const applied = zoomToward(camera.position, target, this.zoomPointAt, scale, {
      near: ZOOM_NEAR,
      far: this.controls.maxDistance,
    });
    if (applied === 1) return 1;
    this.userMoved = true;
    this.keepCameraInBounds();
    this.controls.update();
    return applied;
  }

  /** Whether the viewer moved the camera away from the default view (Reset view brings it back). */
  get viewMoved(): boolean {
    return this.userMoved;
  }

  /** The camera now: position, orbit target and vertical field of view (degrees). */
  view(): { position: THREE.Vector3; target: THREE.Vector3; fov: number } {
    return { position: this.camera.position, target: this.controls.target, fov: this.camera.fov };
  }

  /** Back to the default view for this screen's shape (fits the launch area and burst heights). */
  fitView(): void {
    // Spend what is left of a drag's glide first, so it cannot carry on from the new view.
    this.controls.enableDamping = false;
    this.controls.update();
    this.controls.enableDamping = true;
    const view = fitDefaultView(this.camera.aspect);
    this.camera.fov = view.fov;
    this.camera.position.copy(view.position);
    this.controls.target.copy(view.target);
    this.controls.maxDistance = Math.max(170, view.distance * 1.4);
    // Fog thins with the viewing distance, so the fitted scene reads the same near and far.
    this.fog.density = 0.78 / view.distance;
    this.snow.setFarFade(view.distance, view.distance + SNOW_FAR_FADE_SPAN);
    this.camera.updateProjectionMatrix();
    this.controls.update();
    this.camera.updateMatrixWorld();
    this.ground.placeMoon(this.camera);
    this.userMoved = false;
  }

  private resizeIfNeeded(): void {
    if (this.canvas.clientWidth !== this.width || this.canvas.clientHeight !== this.height) {
      this.resize();
    }
  }

  /** Keeps the camera above the snow and the orbit target inside the scene. */
  private keepCameraInBounds(): void {
    const target = this.controls.target;
    const limit = SCENE_HALF_EXTENT;
    target.x = THREE.MathUtils.clamp(target.x, -limit, limit);
    target.z = THREE.MathUtils.clamp(target.z, -limit, limit);
    target.y = THREE.MathUtils.clamp(target.y, 2, SCENE_HEIGHT);
    if (this.camera.position.y < MIN_CAMERA_HEIGHT) this.camera.position.y = MIN_CAMERA_HEIGHT;
  }
}

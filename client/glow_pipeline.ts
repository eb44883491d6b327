/**
 * The frame's light path: the scene is rendered into a half-float (HDR) target, where additive
 * sparks may add up past 1; a bloom pass (three's `UnrealBloomPass`, run at a quarter of the
 * pixels) spreads only what is brighter than white into a glow; the output pass tone-maps with
 * Khronos PBR Neutral, which leaves colours below ~0.8 as they were (snow, sky, fountain keep
 * their look) and rolls highlights off smoothly, so a dense burst is a coloured glow rather than
 * a blown-out white disc.
 */
import * as THREE from "three";
import { EffectComposer } from "three/examples/jsm/postprocessing/EffectComposer.js";
import { OutputPass } from "three/examples/jsm/postprocessing/OutputPass.js";
import { RenderPass } from "three/examples/jsm/postprocessing/RenderPass.js";
import { UnrealBloomPass } from "three/examples/jsm/postprocessing/UnrealBloomPass.js";

/** Bloom runs at this share of the drawing buffer's width and height. */
const BLOOM_SCALE = 0.5;
/**
 * Light above this (linear) is not fed to the bloom: a fresh burst's thousand overlapping sparks
 * sum to hundreds, which would bloom into a sun; capped, it glows like the rest.
 */
const BLOOM_INPUT_CAP = 2.5;

/** Options for {@link GlowPipeline}. */
export interface GlowPipelineOptions {
  renderer: THREE.WebGLRenderer;
  scene: THREE.Scene;
  camera: THREE.Camera;
  /** Bloom strength (reduced motion uses a gentler glow). */
  bloomStrength: number;
}

/** Render → bloom → tone map + sRGB, sized with the renderer. */
export class GlowPipeline {
  private readonly composer: EffectComposer;
  private readonly bloom: UnrealBloomPass;
  private readonly output = new OutputPass();
  private readonly renderer: THREE.WebGLRenderer;

  constructor(options: GlowPipelineOptions) {
    const { renderer, scene, camera } = options;
    this.renderer = renderer;
    renderer.toneMapping = THREE.NeutralToneMapping;
    renderer.toneMappingExposure = 1;
    this.composer = new EffectComposer(renderer);
    this.composer.addPass(new RenderPass(scene, camera));
    // Threshold at white: only sparks and their overlaps bloom, never snow or scenery.
    this.bloom = new UnrealBloomPass(new THREE.Vector2(256, 256), options.bloomStrength, 0.3, 1);
    const highPass = this.bloom.materialHighPassFilter;
    highPass.fragmentShader = highPass.fragmentShader.replace(
      "vec4 texel = texture2D( tDiffuse, vUv );",
      `vec4 texel = min( texture2D( tDiffuse, vUv ), vec4( ${BLOOM_INPUT_CAP.toFixed(2)} ) );`,
    );
    this.composer.addPass(this.bloom);
    this.composer.addPass(this.output);
  }

  /** Whether the bloom pass runs (the benchmark measures its share by switching it off). */
  get bloomEnabled(): boolean {
    return this.bloom.enabled;
  }

  set bloomEnabled(on: boolean) {
    this.bloom.enabled = on;
  }

  /** Matches the renderer's CSS size and pixel ratio. */
  setSize(width: number, height: number): void {
    const ratio = this.renderer.getPixelRatio();
    this.composer.setPixelRatio(ratio);
    this.composer.setSize(width, height);
    this.bloom.setSize(
      Math.max(2, Math.round(width * ratio * BLOOM_SCALE)),
      Math.max(2, Math.round(height * ratio * BLOOM_SCALE)),
    );
  }

  /** Renders one frame to the canvas. */
  render(): void {
    this.composer.render();
  }

  /** Frees the render targets and materials. */
  dispose(): void {
    this.bloom.dispose();
    this.output.dispose();
    this.composer.dispose();
  }
}

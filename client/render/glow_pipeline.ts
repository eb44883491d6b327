/**
 * The frame's light path: the scene is rendered into a half-float (HDR) target with mipmaps, where
 * additive sparks may add up past 1; one small pass gathers a glow from the 1/8 and 1/32 mip
 * levels (`GlowGatherShader`) into a target of 1/8 the width and height; the output pass adds the
 * glow, tone-maps with Khronos PBR Neutral — which leaves colours below ~0.8 as they were, so snow,
 * sky and fountain keep their look, and rolls highlights off smoothly, so a dense burst is a
 * coloured glow rather than a blown-out white disc — and writes sRGB to the canvas.
 *
 * Two passes touch every pixel (the scene and the output) and one touches 1/64 of them. Three's
 * UnrealBloomPass needs four full-size passes and ten more small ones; on a software renderer
 * each pass costs far more than its pixels, so fewer passes is what counts.
 */
import * as THREE from "three";
import { FullScreenQuad } from "three/examples/jsm/postprocessing/Pass.js";
import { GlowGatherShader, GlowOutputShader } from "./glow_shaders.ts";

/** Options for {@link GlowPipeline}. */
export interface GlowPipelineOptions {
  renderer: THREE.WebGLRenderer;
  scene: THREE.Scene;
  camera: THREE.Camera;
  /** Glow strength (reduced motion uses a gentler glow). */
  bloomStrength: number;
  /**
   * Largest linear channel value before tone mapping (hue kept); reduced motion caps it so a
   * burst never flashes white. Default: no cap.
   */
  highlightCeiling?: number;
}

function material(shader: {
  uniforms: Record<string, { value: unknown }>;
  vertexShader: string;
  fragmentShader: string;
}): THREE.ShaderMaterial {
  return new THREE.ShaderMaterial({
    uniforms: THREE.UniformsUtils.clone(shader.uniforms as Record<string, THREE.IUniform>),
    vertexShader: shader.vertexShader,
    fragmentShader: shader.fragmentShader,
    depthTest: false,
    depthWrite: false,
  });
}

/** Render → glow → tone map + sRGB, sized with the renderer. */
export class GlowPipeline {
  /**
   * Whether the glow (mipmaps + gather pass) runs; the benchmark measures its share by switching
   * it off.
   */
  get bloomEnabled(): boolean {
    return this.sceneTarget.texture.generateMipmaps;
  }

  set bloomEnabled(on: boolean) {
    this.sceneTarget.texture.generateMipmaps = on;
  }

  private readonly renderer: THREE.WebGLRenderer;
  private readonly scene: THREE.Scene;
  private readonly camera: THREE.Camera;
  private readonly sceneTarget = new THREE.WebGLRenderTarget(1, 1, {
    type: THREE.HalfFloatType,
    generateMipmaps: true,
    minFilter: THREE.LinearMipmapLinearFilter,
    magFilter: THREE.LinearFilter,
  });
  private readonly glowTarget = new THREE.WebGLRenderTarget(1, 1, {
    type: THREE.HalfFloatType,
    depthBuffer: false,
  });
  private readonly gather = material(GlowGatherShader);
  private readonly output = material(GlowOutputShader);
  private readonly quad = new FullScreenQuad();
  private readonly black = new THREE.DataTexture(new Uint8Array([0, 0, 0, 255]), 1, 1);
  /** Glow strength; may change at any time (reduced motion is followed live). */
  strength: number;
  private readonly mipTexel = new THREE.Vector2();

  constructor(options: GlowPipelineOptions) {
    this.renderer = options.renderer;
    this.scene = options.scene;
    this.camera = options.camera;
    this.strength = options.bloomStrength;
    this.renderer.toneMapping = THREE.NeutralToneMapping;
    this.renderer.toneMappingExposure = 1;
    this.black.needsUpdate = true;
    this.gather.uniforms.tScene.value = this.sceneTarget.texture;
    this.gather.uniforms.uTexel.value = this.mipTexel;
    this.output.uniforms.tScene.value = this.sceneTarget.texture;
    this.output.uniforms.uCeiling.value = options.highlightCeiling ?? 1e9;
  }

  /** Largest linear channel value before tone mapping (Infinity: no cap). */
  set highlightCeiling(value: number) {
    this.output.uniforms.uCeiling.value = Number.isFinite(value) ? value : 1e9;
  }

  /** Matches the renderer's CSS size and pixel ratio. */
  setSize(width: number, height: number): void {
    const ratio = this.renderer.getPixelRatio();
    const w = Math.max(1, Math.round(width * ratio));
    const h = Math.max(1, Math.round(height * ratio));
    this.sceneTarget.setSize(w, h);
    this.glowTarget.setSize(Math.max(1, Math.ceil(w / 8)), Math.max(1, Math.ceil(h / 8)));
    this.mipTexel.set(8 / w, 8 / h);
  }

  /** Renders one frame to the canvas. */
  render(): void {
    const renderer = this.renderer;
    // Rendering into the target also rebuilds its mipmaps (generateMipmaps).
    renderer.setRenderTarget(this.sceneTarget);
    renderer.render(this.scene, this.camera);
    const uniforms = this.output.uniforms;
    if (this.bloomEnabled) {
      this.pass(this.gather, this.glowTarget);
      uniforms.tGlow.value = this.glowTarget.texture;
      uniforms.uStrength.value = this.strength;
    } else {
      uniforms.tGlow.value = this.black;
      uniforms.uStrength.value = 0;
    }
    this.pass(this.output, null);
  }

  /** Frees the render targets and materials. */
  dispose(): void {
    const owned = [
      this.sceneTarget,
      this.glowTarget,
      this.gather,
      this.output,
      this.black,
      this.quad,
    ];
    for (const part of owned) part.dispose();
  }

  private pass(material: THREE.ShaderMaterial, to: THREE.WebGLRenderTarget | null): void {
    this.quad.material = material;
    this.renderer.setRenderTarget(to);
    this.quad.render(this.renderer);
  }
}

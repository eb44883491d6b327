/**
 * The frame's light path: the scene is rendered into a half-float (HDR) target, where additive
 * sparks may add up past 1; what is brighter than white is kept at a quarter of the width and
 * height, blurred there and once more at an eighth (a near and a wide glow); the output pass adds
 * the glow, tone-maps with Khronos PBR Neutral — which leaves colours below ~0.8 as they were, so
 * snow, sky and fountain keep their look, and rolls highlights off smoothly, so a dense burst is a
 * coloured glow rather than a blown-out white disc — and writes sRGB to the canvas.
 *
 * Only two passes touch every pixel (the scene and the output); three's UnrealBloomPass needs
 * four, which on a software renderer halved the frame rate.
 */
import * as THREE from "three";
import { FullScreenQuad } from "three/examples/jsm/postprocessing/Pass.js";
import { GlowBlurShader, GlowBrightShader, GlowOutputShader } from "./glow_shaders.ts";

/** Options for {@link GlowPipeline}. */
export interface GlowPipelineOptions {
  renderer: THREE.WebGLRenderer;
  scene: THREE.Scene;
  camera: THREE.Camera;
  /** Glow strength (reduced motion uses a gentler glow). */
  bloomStrength: number;
}

function target(): THREE.WebGLRenderTarget {
  return new THREE.WebGLRenderTarget(1, 1, {
    type: THREE.HalfFloatType,
    depthBuffer: false,
    minFilter: THREE.LinearFilter,
    magFilter: THREE.LinearFilter,
  });
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
  /** Whether the glow passes run (the benchmark measures their share by switching them off). */
  bloomEnabled = true;
  private readonly renderer: THREE.WebGLRenderer;
  private readonly scene: THREE.Scene;
  private readonly camera: THREE.Camera;
  private readonly sceneTarget = new THREE.WebGLRenderTarget(1, 1, { type: THREE.HalfFloatType });
  private readonly nearA = target();
  private readonly nearB = target();
  private readonly wideA = target();
  private readonly wideB = target();
  private readonly bright = material(GlowBrightShader);
  private readonly downsample = material(GlowBrightShader);
  private readonly blur = material(GlowBlurShader);
  private readonly output = material(GlowOutputShader);
  private readonly quad = new FullScreenQuad();
  private readonly black = new THREE.DataTexture(new Uint8Array([0, 0, 0, 255]), 1, 1);
  private readonly strength: number;
  private readonly nearTexel = new THREE.Vector2();
  private readonly wideTexel = new THREE.Vector2();
  private readonly horizontal = new THREE.Vector2();
  private readonly vertical = new THREE.Vector2();

  constructor(options: GlowPipelineOptions) {
    this.renderer = options.renderer;
    this.scene = options.scene;
    this.camera = options.camera;
    this.strength = options.bloomStrength;
    this.renderer.toneMapping = THREE.NeutralToneMapping;
    this.renderer.toneMappingExposure = 1;
    this.black.needsUpdate = true;
    this.bright.uniforms.tScene.value = this.sceneTarget.texture;
    this.downsample.uniforms.tScene.value = this.nearA.texture;
    this.downsample.uniforms.uThreshold.value = 0;
    this.downsample.uniforms.uCap.value = 1e4;
    this.output.uniforms.tScene.value = this.sceneTarget.texture;
    this.output.uniforms.tNear.value = this.nearA.texture;
    this.output.uniforms.tWide.value = this.wideA.texture;
  }

  /** Matches the renderer's CSS size and pixel ratio. */
  setSize(width: number, height: number): void {
    const ratio = this.renderer.getPixelRatio();
    const w = Math.max(1, Math.round(width * ratio));
    const h = Math.max(1, Math.round(height * ratio));
    this.sceneTarget.setSize(w, h);
    const nw = Math.max(1, Math.ceil(w / 4)), nh = Math.max(1, Math.ceil(h / 4));
    const ww = Math.max(1, Math.ceil(nw / 2)), wh = Math.max(1, Math.ceil(nh / 2));
    this.nearA.setSize(nw, nh);
    this.nearB.setSize(nw, nh);
    this.wideA.setSize(ww, wh);
    this.wideB.setSize(ww, wh);
    this.bright.uniforms.uTexel.value = new THREE.Vector2(1 / w, 1 / h);
    this.downsample.uniforms.uTexel.value = new THREE.Vector2(0.5 / nw, 0.5 / nh);
    this.nearTexel.set(1 / nw, 1 / nh);
    this.wideTexel.set(1 / ww, 1 / wh);
  }

  /** Renders one frame to the canvas. */
  render(): void {
    const renderer = this.renderer;
    renderer.setRenderTarget(this.sceneTarget);
    renderer.render(this.scene, this.camera);
    const uniforms = this.output.uniforms;
    if (this.bloomEnabled) {
      this.pass(this.bright, this.nearA);
      this.blurPass(this.nearA, this.nearB, this.nearTexel);
      this.pass(this.downsample, this.wideA);
      this.blurPass(this.wideA, this.wideB, this.wideTexel);
      uniforms.tNear.value = this.nearA.texture;
      uniforms.tWide.value = this.wideA.texture;
      uniforms.uStrength.value = this.strength;
    } else {
      uniforms.tNear.value = this.black;
      uniforms.tWide.value = this.black;
      uniforms.uStrength.value = 0;
    }
    this.pass(this.output, null);
  }

  /** Frees the render targets and materials. */
  dispose(): void {
    for (const t of [this.sceneTarget, this.nearA, this.nearB, this.wideA, this.wideB]) {
      t.dispose();
    }
    for (const m of [this.bright, this.downsample, this.blur, this.output]) m.dispose();
    this.black.dispose();
    this.quad.dispose();
  }

  private pass(material: THREE.ShaderMaterial, to: THREE.WebGLRenderTarget | null): void {
    this.quad.material = material;
    this.renderer.setRenderTarget(to);
    this.quad.render(this.renderer);
  }

  /** Blurs `image` in place: horizontally into `scratch`, vertically back. */
  private blurPass(
    image: THREE.WebGLRenderTarget,
    scratch: THREE.WebGLRenderTarget,
    texel: THREE.Vector2,
  ): void {
    const uniforms = this.blur.uniforms;
    uniforms.tInput.value = image.texture;
    uniforms.uDirection.value = this.horizontal.set(texel.x, 0);
    this.pass(this.blur, scratch);
    uniforms.tInput.value = scratch.texture;
    uniforms.uDirection.value = this.vertical.set(0, texel.y);
    this.pass(this.blur, image);
  }
}

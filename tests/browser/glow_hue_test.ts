/**
 * The glow's gather pass (`GlowGatherShader`, client/render/glow_shaders.ts), run in headless
 * Chromium's WebGL2 over a scene of one even colour, keeps the hue of that light: a white-hot
 * burst glows white and a yellow one yellow (seed 002's colour law stays visible on screen), and
 * the snow's dim haze does not glow. A floor taken per channel gave white-hot light a red rim.
 */
import assert from "node:assert/strict";
import { GlowGatherShader } from "../../client/render/glow_shaders.ts";
import { browserTest, launchBrowser } from "../../testing/browser.ts";

/** three's WebGL2 prefix of a `ShaderMaterial`'s fragment stage, as the shader relies on it. */
const FRAGMENT_PREFIX = `#version 300 es
#define varying in
#define texture2D texture
precision highp float;
precision highp int;
out highp vec4 pc_fragColor;
#define gl_FragColor pc_fragColor
`;

/** A full-screen triangle pair with three's `vUv`, without three's matrices. */
const VERTEX = `#version 300 es
in vec2 corner;
out vec2 vUv;
void main() {
  vUv = corner * 0.5 + 0.5;
  gl_Position = vec4(corner, 0.0, 1.0);
}
`;

/** The glow the gather pass writes over a 64×64 scene lit evenly by `rgb` (linear light). */
function glowOf(page: import("playwright-core").Page, rgb: number[]): Promise<number[]> {
  return page.evaluate(({ vertex, fragment, rgb, floor, cap }) => {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 8;
    const gl = canvas.getContext("webgl2")!;
    if (!gl.getExtension("EXT_color_buffer_float")) throw new Error("no float targets");
    const compile = (type: number, source: string) => {
      const shader = gl.createShader(type)!;
      gl.shaderSource(shader, source);
      gl.compileShader(shader);
      if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) {
        throw new Error(gl.getShaderInfoLog(shader) ?? "compile");
      }
      return shader;
    };
    const program = gl.createProgram()!;
    gl.attachShader(program, compile(gl.VERTEX_SHADER, vertex));
    gl.attachShader(program, compile(gl.FRAGMENT_SHADER, fragment));
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) {
      throw new Error(gl.getProgramInfoLog(program) ?? "link");
    }
    gl.useProgram(program);
    // The scene: 64×64 of one colour in a half-float texture with every mip level.
    const size = 64, texels = new Float32Array(size * size * 4);
    for (let i = 0; i < size * size; i++) texels.set([rgb[0], rgb[1], rgb[2], 1], i * 4);
    const scene = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, scene);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA16F, size, size, 0, gl.RGBA, gl.FLOAT, texels);
    gl.generateMipmap(gl.TEXTURE_2D);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR);
    gl.uniform1i(gl.getUniformLocation(program, "tScene"), 0);
    gl.uniform2f(gl.getUniformLocation(program, "uTexel"), 8 / size, 8 / size);
    gl.uniform1f(gl.getUniformLocation(program, "uFloor"), floor);
    gl.uniform1f(gl.getUniformLocation(program, "uCap"), cap);
    // The glow target: float, so nothing is clamped or rounded to bytes.
    const target = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, target);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, 8, 8, 0, gl.RGBA, gl.FLOAT, null);
    const fbo = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, target, 0);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, scene);
    const corners = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, corners);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, 1, 1]), gl.STATIC_DRAW);
    const at = gl.getAttribLocation(program, "corner");
    gl.enableVertexAttribArray(at);
    gl.vertexAttribPointer(at, 2, gl.FLOAT, false, 0, 0);
    gl.viewport(0, 0, 8, 8);
    gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
    const out = new Float32Array(4);
    gl.readPixels(4, 4, 1, 1, gl.RGBA, gl.FLOAT, out);
    return [out[0], out[1], out[2]];
  }, {
    vertex: VERTEX,
    fragment: FRAGMENT_PREFIX + GlowGatherShader.fragmentShader,
    rgb,
    floor: GlowGatherShader.uniforms.uFloor.value,
    cap: GlowGatherShader.uniforms.uCap.value,
  });
}

browserTest("the glow keeps the hue of the light it comes from", async (t) => {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const hueOf = (c: number[]) => [c[1] / c[0], c[2] / c[0]];
    // Seed 002's colours at a burst's edge, where the glow's floor matters: white-hot (the
    // law at 0.1 of its run), yellow (its warm yellow (1, 0.8, 0.3)) and orange, dim and bright.
    const lights: [string, number[]][] = [
      ["white-hot, dim", [0.4, 0.37, 0.33]],
      ["white-hot, bright", [3.2, 2.9, 2.6]],
      ["yellow, dim", [0.45, 0.36, 0.135]],
      ["orange", [0.9, 0.52, 0.2]],
    ];
    for (const [name, light] of lights) {
      await t.step(name, async () => {
        const glow = await glowOf(page, light);
        assert.ok(glow[0] > 0.01, `${name} glows: ${glow}`);
        const [g, b] = hueOf(glow), [wantG, wantB] = hueOf(light);
        assert.ok(
          Math.abs(g - wantG) < 0.02 && Math.abs(b - wantB) < 0.02,
          `${name}: glow ${glow.map((v) => v.toFixed(3))} has the hue of ${light}`,
        );
      });
    }
    await t.step("the snow's haze does not glow", async () => {
      const glow = await glowOf(page, [0.25, 0.27, 0.28]);
      assert.deepEqual(glow, [0, 0, 0]);
    });
  } finally {
    await browser.close();
  }
});

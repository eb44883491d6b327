/**
 * Runs the firework spark vertex shader itself (`FireworkSparkShader.vertexShader`,
 * client/render/firework_spark_shader.ts) in headless Chromium's WebGL2 and reads back where it
 * puts each slot's head, so tests compare the GPU's maths with shared/'s directly instead of
 * through a hand-kept copy.
 *
 * How: the shader is linked with three's WebGL2 declarations for a `ShaderMaterial` (the version,
 * `attribute`/`varying` as `in`/`out`, highp, `position`, the two matrices) and with
 * `gl_Position` captured by transform feedback; one point per instance (slot) is drawn with the
 * rasterizer off. Every uniform of the renderer's material goes in as it is, except the camera
 * and streak: with the streak's tail at zero length, the vertex at the middle of the quad
 * (`position = (0.5, 0)`), `uViewport` (2, 2) and the matrices below, `placeStreak` writes
 * `gl_Position = (head.x, head.y, head.z, 2)` exactly (every step multiplies by 0, 1 or a power
 * of two), and a hidden slot `(2, 2, 2, 1)`.
 */
import { Buffer } from "node:buffer";
import type { Browser, Page } from "playwright-core";
import type * as THREE from "three";
import type { FireworkSparks } from "../client/render/firework_sparks.ts";
import { BREAK_TABLE_WIDTH } from "../client/render/firework_break_table.ts";
import { FireworkSparkShader } from "../client/render/firework_spark_shader.ts";

/** three's prefix of a `ShaderMaterial`'s vertex stage under WebGL2 (what the shader relies on). */
const THREE_PREFIX = `#version 300 es
#define attribute in
#define varying out
#define texture2D texture
precision highp float;
precision highp int;
precision highp sampler2D;
#define HIGH_PRECISION
uniform mat4 modelViewMatrix;
uniform mat4 projectionMatrix;
attribute vec3 position;
`;

/** A uniform's value as sent to the page: numbers, or a float RGBA texture. */
type SentUniform =
  | { numbers: number[] }
  | { texture: { width: number; height: number; data: string } };

/** The heads the shader drew: `drawn[i]` 1 when slot i is drawn, its head at `head[3i..3i+2]`. */
export interface ShaderHeads {
  drawn: Uint8Array;
  head: Float32Array;
}

function base64(array: Float32Array): string {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString("base64");
}

/** The numbers of a uniform value (a number, a vector, an array of either), or null. */
function numbersOf(value: unknown): number[] | null {
  if (typeof value === "number") return [value];
  if (typeof value === "boolean") return [value ? 1 : 0];
  if (Array.isArray(value)) {
    const out: number[] = [];
    for (const item of value) {
      const inner = numbersOf(item);
      if (!inner) return null;
      out.push(...inner);
    }
    return out;
  }
  if (value && typeof (value as THREE.Vector4).toArray === "function") {
    return (value as THREE.Vector4).toArray() as number[];
  }
  return null;
}

/**
 * The material's uniforms as the page takes them (textures as base64 RGBA float texels):
 * a texture three samples from a WebGL texture of its own (`ExternalTexture`) by the texels
 * `external` gives it.
 */
function sentUniforms(
  material: THREE.ShaderMaterial,
  external: Map<unknown, { data: Float32Array; width: number; height: number }>,
): Record<string, SentUniform> {
  const out: Record<string, SentUniform> = {};
  for (const [name, { value }] of Object.entries(material.uniforms)) {
    const image = (value as THREE.DataTexture | null)?.isDataTexture
      ? (value as THREE.DataTexture).image
      : external.get(value) ?? null;
    if (image) {
      const data = image.data as Float32Array;
      if (!(data instanceof Float32Array)) throw new TypeError(`${name}: not a float texture`);
      out[name] = { texture: { width: image.width, height: image.height, data: base64(data) } };
      continue;
    }
    const numbers = numbersOf(value);
    if (!numbers) throw new TypeError(`${name}: a uniform the probe cannot send`);
    out[name] = { numbers };
  }
  return out;
}

/** Evaluates the spark shader of `FireworkSparks` objects in a page of `browser`. */
export class SparkShaderProbe {
  private constructor(private readonly page: Page) {}

  /** Opens a blank page and links the shader there (throws with the compiler's log if it fails). */
  static async open(browser: Browser): Promise<SparkShaderProbe> {
    const page = await browser.newPage();
    const log = await page.evaluate(linkInPage, THREE_PREFIX + FireworkSparkShader.vertexShader);
    if (log) {
      await page.close();
      throw new Error(`spark shader did not link: ${log}`);
    }
    return new SparkShaderProbe(page);
  }

  /**
   * Where the shader puts the head of each of the first `count` slots of `sparks` (its last
   * `update`: the world's tick, with display time `tick − 1 + alpha`), and whether it draws it.
   */
  async heads(sparks: FireworkSparks, count: number, alpha: number): Promise<ShaderHeads> {
    const material = sparks.object.material as THREE.ShaderMaterial;
    // The break rows' texture is the table's own (FireworkBreakTable): its texels are its data.
    const breaks = sparks.writtenRows.breaks;
    const uniforms = sentUniforms(
      material,
      new Map([[material.uniforms.uBreaks.value, {
        data: breaks,
        width: BREAK_TABLE_WIDTH,
        height: breaks.length / (BREAK_TABLE_WIDTH * 4),
      }]]),
    );
    uniforms.uAlpha = { numbers: [alpha] };
    uniforms.uTailTicks = { numbers: [0] };
    uniforms.uViewport = { numbers: [2, 2] };
    // Column-major: view (x, y, z) → (x, y, −1, z); projection (x, y, z, w) → (x, y, w, 2).
    uniforms.modelViewMatrix = { numbers: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0] };
    uniforms.projectionMatrix = { numbers: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, -2, 0, 0, 1, 0] };
    const refs = sparks.refMirror.subarray(0, count * 2);
    const out = Buffer.from(
      await this.page.evaluate(drawInPage, { uniforms, refs: base64(refs), count }),
      "base64",
    );
    const positions = new Float32Array(out.buffer, out.byteOffset, count * 4);
    const drawn = new Uint8Array(count), head = new Float32Array(count * 3);
    for (let i = 0; i < count; i++) {
      const w = positions[i * 4 + 3];
      if (w !== 2 && w !== 1) throw new Error(`slot ${i}: gl_Position.w ${w} is neither case`);
      drawn[i] = w === 2 ? 1 : 0;
      for (let c = 0; c < 3; c++) head[i * 3 + c] = positions[i * 4 + c];
    }
    return { drawn, head };
  }

  /** Closes its page. */
  async close(): Promise<void> {
    await this.page.close();
  }
}

declare global {
  /** The linked program and its context, kept in the probe's page. */
  var sparkProbe: { gl: WebGL2RenderingContext; program: WebGLProgram } | undefined;
}

/** In the page: links the vertex shader with `gl_Position` captured; returns an error log or "". */
function linkInPage(vertexSource: string): string {
  const gl = document.createElement("canvas").getContext("webgl2");
  if (!gl) return "no WebGL2 context";
  const shader = (type: number, source: string) => {
    const s = gl.createShader(type)!;
    gl.shaderSource(s, source);
    gl.compileShader(s);
    return s;
  };
  const vertex = shader(gl.VERTEX_SHADER, vertexSource);
  if (!gl.getShaderParameter(vertex, gl.COMPILE_STATUS)) return gl.getShaderInfoLog(vertex) ?? "?";
  const fragment = shader(
    gl.FRAGMENT_SHADER,
    "#version 300 es\nprecision highp float;\nout vec4 color;\nvoid main() { color = vec4(1.0); }",
  );
  const program = gl.createProgram()!;
  gl.attachShader(program, vertex);
  gl.attachShader(program, fragment);
  gl.transformFeedbackVaryings(program, ["gl_Position"], gl.INTERLEAVED_ATTRIBS);
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS)) return gl.getProgramInfoLog(program) ?? "?";
  globalThis.sparkProbe = { gl, program };
  return "";
}

/**
 * In the page: sets every active uniform from `uniforms` (by its GL type), the per-slot
 * references as the `derivedRef` instance attribute, draws `count` instances of one point into
 * transform feedback and returns the captured `gl_Position`s (base64 float32).
 */
function drawInPage(
  { uniforms, refs, count }: { uniforms: Record<string, SentUniform>; refs: string; count: number },
): string {
  const { gl, program } = globalThis.sparkProbe!;
  const floats = (text: string) => {
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    return new Float32Array(bytes.buffer);
  };
  gl.useProgram(program);
  const textures: WebGLTexture[] = [];
  const buffers: WebGLBuffer[] = [];
  const active = gl.getProgramParameter(program, gl.ACTIVE_UNIFORMS) as number;
  for (let u = 0; u < active; u++) {
    const info = gl.getActiveUniform(program, u)!;
    const name = info.name.replace(/\[0\]$/, "");
    const sent = uniforms[name];
    if (!sent) throw new Error(`uniform ${name}: not in the material`);
    const at = gl.getUniformLocation(program, info.name);
    if ("texture" in sent) {
      if (info.type !== gl.SAMPLER_2D) {
        throw new Error(`uniform ${name}: a texture for a non-sampler`);
      }
      const unit = textures.length;
      const texture = gl.createTexture()!;
      textures.push(texture);
      gl.activeTexture(gl.TEXTURE0 + unit);
      gl.bindTexture(gl.TEXTURE_2D, texture);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
      const { width, height, data } = sent.texture;
      gl.texImage2D(
        gl.TEXTURE_2D,
        0,
        gl.RGBA32F,
        width,
        height,
        0,
        gl.RGBA,
        gl.FLOAT,
        floats(data),
      );
      gl.uniform1i(at, unit);
      continue;
    }
    const n = sent.numbers;
    switch (info.type) {
      case gl.FLOAT:
        gl.uniform1fv(at, n);
        break;
      case gl.FLOAT_VEC2:
        gl.uniform2fv(at, n);
        break;
      case gl.FLOAT_VEC3:
        gl.uniform3fv(at, n);
        break;
      case gl.FLOAT_VEC4:
        gl.uniform4fv(at, n);
        break;
      case gl.INT:
        gl.uniform1iv(at, n);
        break;
      case gl.FLOAT_MAT4:
        gl.uniformMatrix4fv(at, false, n);
        break;
      default:
        throw new Error(`uniform ${name}: GL type 0x${info.type.toString(16)} not handled`);
    }
  }
  const attribute = (name: string, data: Float32Array, size: number, divisor: number) => {
    const at = gl.getAttribLocation(program, name);
    if (at < 0) throw new Error(`attribute ${name}: not in the shader`);
    const buffer = gl.createBuffer()!;
    buffers.push(buffer);
    gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
    gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
    gl.enableVertexAttribArray(at);
    gl.vertexAttribPointer(at, size, gl.FLOAT, false, 0, 0);
    gl.vertexAttribDivisor(at, divisor);
  };
  attribute("position", new Float32Array([0.5, 0, 0]), 3, 0);
  attribute("derivedRef", floats(refs), 2, 1);
  const captured = gl.createBuffer()!;
  buffers.push(captured);
  gl.bindBuffer(gl.TRANSFORM_FEEDBACK_BUFFER, captured);
  gl.bufferData(gl.TRANSFORM_FEEDBACK_BUFFER, count * 16, gl.STATIC_READ);
  const feedback = gl.createTransformFeedback()!;
  gl.bindTransformFeedback(gl.TRANSFORM_FEEDBACK, feedback);
  gl.bindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, captured);
  gl.enable(gl.RASTERIZER_DISCARD);
  gl.beginTransformFeedback(gl.POINTS);
  gl.drawArraysInstanced(gl.POINTS, 0, 1, count);
  gl.endTransformFeedback();
  gl.disable(gl.RASTERIZER_DISCARD);
  gl.bindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, null);
  gl.bindTransformFeedback(gl.TRANSFORM_FEEDBACK, null);
  const out = new Float32Array(count * 4);
  gl.bindBuffer(gl.TRANSFORM_FEEDBACK_BUFFER, captured);
  gl.getBufferSubData(gl.TRANSFORM_FEEDBACK_BUFFER, 0, out);
  const error = gl.getError();
  gl.deleteTransformFeedback(feedback);
  for (const buffer of buffers) gl.deleteBuffer(buffer);
  for (const texture of textures) gl.deleteTexture(texture);
  if (error !== gl.NO_ERROR) throw new Error(`WebGL error 0x${error.toString(16)}`);
  const bytes = new Uint8Array(out.buffer);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * Where FireworkSparks' per-slot records (its slot references, two floats a slot) go: straight
 * into a WebGL buffer the renderer owns (no CPU-side copy of the whole sky: a frame's new
 * launches are staged in a small array and copied into their slots with `bufferSubData`), or,
 * without a WebGL context (unit tests), into a CPU array that holds exactly what the GPU buffer
 * would.
 *
 * @example
 * ```ts
 * import { FireworkRecordMirror } from "./firework_records.ts";
 * const mirror = new FireworkRecordMirror(2, 4); // 4 slots of 2 floats
 * mirror.write(2, new Float32Array(2).fill(1), 0, 1); // slot 2's record
 * const grown = mirror.grow(8); // slots 0–3 kept, 4–7 zero
 * ```
 */
import * as THREE from "three";

/** Slots of the GPU buffer of zeros that `FireworkRecordBuffer.zero` copies from. */
const ZERO_CHUNK = 65_536;

/** A buffer of fixed-size records, one per pool slot, zero until written. */
export interface FireworkRecordTarget {
  /** Slots it holds. */
  readonly slots: number;
  /** Sets every record to zero. */
  clear(): void;
  /** Copies `count` records from `data` (starting at record `from`) into slots [slot, slot + count). */
  write(slot: number, data: Float32Array, from: number, count: number): void;
  /** Moves the records of slots [from, from + count) to [to, to + count) (overlap allowed). */
  move(from: number, to: number, count: number): void;
  /** Sets the records of slots [from, to) to zero. */
  zero(from: number, to: number): void;
  /**
   * A target of `slots` (at least `this.slots`) slots that holds this one's records in the same
   * slots (copied on the GPU, not written again from the CPU) and zero beyond them; this one is
   * freed (use the returned one from now on).
   */
  grow(slots: number): FireworkRecordTarget;
  /** The per-instance buffer the geometry's attributes read (three's view of it). */
  readonly instances: THREE.InstancedInterleavedBuffer | THREE.GLBufferAttribute;
  /** Frees it. */
  dispose(): void;
}

/** Records in a CPU array (tests, or no WebGL context): the array is what the GPU would hold. */
export class FireworkRecordMirror implements FireworkRecordTarget {
  readonly slots: number;
  readonly array: Float32Array;
  readonly instances: THREE.InstancedInterleavedBuffer;
  readonly #stride: number;

  constructor(stride: number, slots: number) {
    this.#stride = stride;
    this.slots = slots;
    this.array = new Float32Array(slots * stride);
    this.instances = new THREE.InstancedInterleavedBuffer(this.array, stride);
  }

  clear(): void {
    this.array.fill(0);
    this.instances.needsUpdate = true;
  }

  write(slot: number, data: Float32Array, from: number, count: number): void {
    const s = this.#stride;
    this.array.set(data.subarray(from * s, (from + count) * s), slot * s);
    this.instances.needsUpdate = true;
  }

  move(from: number, to: number, count: number): void {
    const s = this.#stride;
    this.array.copyWithin(to * s, from * s, (from + count) * s);
    this.instances.needsUpdate = true;
  }

  zero(from: number, to: number): void {
    const s = this.#stride;
    this.array.fill(0, from * s, to * s);
    this.instances.needsUpdate = true;
  }

  grow(slots: number): FireworkRecordMirror {
    if (slots < this.slots) throw new RangeError(`firework_grow: ${slots} < ${this.slots} slots`);
    const grown = new FireworkRecordMirror(this.#stride, slots);
    grown.array.set(this.array);
    return grown;
  }

  dispose(): void {}
}

/**
 * Records in a WebGL buffer written with `bufferSubData` (8 bytes a slot for 2 floats, on the
 * GPU only). three draws it through a GLBufferAttribute marked as per instance.
 */
export class FireworkRecordBuffer implements FireworkRecordTarget {
  readonly slots: number;
  readonly instances: THREE.GLBufferAttribute;
  readonly #gl: WebGL2RenderingContext;
  readonly #buffer: WebGLBuffer;
  readonly #stride: number;
  /** A GPU buffer a move goes through (a copy within one buffer may not overlap). */
  #temp: WebGLBuffer | null = null;
  #tempSlots = 0;
  /**
   * A GPU buffer of zero records that `zero` copies from (`copyBufferSubData`, in chunks): no
   * upload from the CPU, so zeroing a compaction's leftovers (up to a quarter of the sky) costs
   * a few commands, not megabytes through `bufferSubData`.
   */
  #zeros: WebGLBuffer | null = null;

  constructor(gl: WebGL2RenderingContext, stride: number, slots: number) {
    this.#gl = gl;
    this.#stride = stride;
    this.slots = slots;
    const buffer = gl.createBuffer();
    if (!buffer) throw new Error("firework_records: no WebGL buffer");
    this.#buffer = buffer;
    this.clear();
    const attribute = new THREE.GLBufferAttribute(buffer, gl.FLOAT, stride, 4, slots);
    // three binds an interleaved attribute over a buffer attribute with a divisor when its data
    // says it is per instance (as for the columns of instance matrices); an interleaved attribute
    // reads its data's array type once (normalisation), so an empty Float32Array names it.
    Object.assign(attribute, {
      isInstancedBufferAttribute: true,
      meshPerAttribute: 1,
      array: new Float32Array(0),
    });
    this.instances = attribute;
  }

  clear(): void {
    const gl = this.#gl;
    gl.bindBuffer(gl.ARRAY_BUFFER, this.#buffer);
    // A new data store reads as zeros (WebGL initialises it).
    gl.bufferData(gl.ARRAY_BUFFER, this.slots * this.#stride * 4, gl.DYNAMIC_DRAW);
  }

  write(slot: number, data: Float32Array, from: number, count: number): void {
    if (count <= 0) return;
    const gl = this.#gl, s = this.#stride;
    // Bound here (three binds its own buffers between frames; moves and zeroing use the COPY
    // targets): one call per run of slots.
    gl.bindBuffer(gl.ARRAY_BUFFER, this.#buffer);
    gl.bufferSubData(gl.ARRAY_BUFFER, slot * s * 4, data, from * s, count * s);
  }

  move(from: number, to: number, count: number): void {
    if (count <= 0 || from === to) return;
    const gl = this.#gl, bytes = this.#stride * 4;
    if (count > this.#tempSlots || !this.#temp) {
      if (this.#temp) gl.deleteBuffer(this.#temp);
      this.#temp = gl.createBuffer();
      this.#tempSlots = count;
      gl.bindBuffer(gl.COPY_WRITE_BUFFER, this.#temp);
      gl.bufferData(gl.COPY_WRITE_BUFFER, count * bytes, gl.DYNAMIC_COPY);
    }
    gl.bindBuffer(gl.COPY_READ_BUFFER, this.#buffer);
    gl.bindBuffer(gl.COPY_WRITE_BUFFER, this.#temp);
    gl.copyBufferSubData(gl.COPY_READ_BUFFER, gl.COPY_WRITE_BUFFER, from * bytes, 0, count * bytes);
    gl.bindBuffer(gl.COPY_READ_BUFFER, this.#temp);
    gl.bindBuffer(gl.COPY_WRITE_BUFFER, this.#buffer);
    gl.copyBufferSubData(gl.COPY_READ_BUFFER, gl.COPY_WRITE_BUFFER, 0, to * bytes, count * bytes);
  }

  zero(from: number, to: number): void {
    if (to <= from) return;
    const gl = this.#gl, bytes = this.#stride * 4;
    if (!this.#zeros) {
      this.#zeros = gl.createBuffer();
      gl.bindBuffer(gl.COPY_READ_BUFFER, this.#zeros);
      // A new data store reads as zeros (WebGL initialises it).
      gl.bufferData(gl.COPY_READ_BUFFER, ZERO_CHUNK * bytes, gl.STATIC_COPY);
    }
    gl.bindBuffer(gl.COPY_READ_BUFFER, this.#zeros);
    gl.bindBuffer(gl.COPY_WRITE_BUFFER, this.#buffer);
    for (let slot = from; slot < to; slot += ZERO_CHUNK) {
      const count = Math.min(ZERO_CHUNK, to - slot);
      gl.copyBufferSubData(
        gl.COPY_READ_BUFFER,
        gl.COPY_WRITE_BUFFER,
        0,
        slot * bytes,
        count * bytes,
      );
    }
  }

  grow(slots: number): FireworkRecordBuffer {
    if (slots < this.slots) throw new RangeError(`firework_grow: ${slots} < ${this.slots} slots`);
    const gl = this.#gl;
    // A new data store reads as zeros; the old records go over on the GPU.
    const grown = new FireworkRecordBuffer(gl, this.#stride, slots);
    gl.bindBuffer(gl.COPY_READ_BUFFER, this.#buffer);
    gl.bindBuffer(gl.COPY_WRITE_BUFFER, grown.#buffer);
    gl.copyBufferSubData(
      gl.COPY_READ_BUFFER,
      gl.COPY_WRITE_BUFFER,
      0,
      0,
      this.slots * this.#stride * 4,
    );
    // The move and zero buffers keep serving the grown one.
    grown.#temp = this.#temp;
    grown.#tempSlots = this.#tempSlots;
    grown.#zeros = this.#zeros;
    this.#temp = null;
    this.#tempSlots = 0;
    this.#zeros = null;
    this.dispose();
    return grown;
  }

  dispose(): void {
    this.#gl.deleteBuffer(this.#buffer);
    if (this.#temp) this.#gl.deleteBuffer(this.#temp);
    if (this.#zeros) this.#gl.deleteBuffer(this.#zeros);
  }
}

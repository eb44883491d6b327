/**
 * `FireworkBreakTable`: each live launch's breaks as rows of a float texture the spark shader
 * reads, so that a slot placed on the GPU carries only a reference (its break's row and its place
 * in the break, firework_derived_packing.ts) instead of the break's numbers. A launch takes a
 * group of MAX_BREAKS_PER_GROUP rows while it lives; a row is BREAK_TEXELS texels (see
 * firework_derived_packing.ts). Rows are written once, when the launch is first drawn, and
 * `upload` copies only the groups written since the last: one `texSubImage2D` for each run of
 * neighbouring written groups in a texture line (a busy sky's frame: a launch or a few, 512
 * bytes each), straight into the table's own WebGL texture, which three samples as an
 * `ExternalTexture` (three's public API): none of three's per-upload texture machinery, and no
 * whole 8 KB line for one launch. Groups are handed out round the table from where the last one
 * was (ended launches' groups are free again, and launches end roughly in the order they came),
 * so a frame's new launches take neighbouring groups, mostly one run. The texture grows by
 * doubling its height when more than 3/4 of its groups are in use (uploaded whole then, a rare
 * event); after the renderer's context was lost and restored it is made and uploaded again.
 *
 * @example
 * ```ts
 * import { FireworkBreakTable } from "./firework_break_table.ts";
 * const table = new FireworkBreakTable();
 * const group = table.allocate(); // rows 4·group … 4·group + 3 (the next free group)
 * table.touch(group * 4, 4); // its rows written: they go up at the next upload
 * table.free(group);
 * table.dispose();
 * ```
 */
import * as THREE from "three";

/** Floats per break row (8 texels of RGBA). */
export const BREAK_TEXELS = 8;
/** Rows a launch's group holds: its breaks' (MAX_BREAKS is 3), then its launch row. */
export const MAX_BREAKS_PER_GROUP = 4;
/** The group's row that holds the shell and the launch's slot range (its last). */
export const LAUNCH_ROW = MAX_BREAKS_PER_GROUP - 1;
/** Texels per texture line: 64 rows of BREAK_TEXELS. */
export const BREAK_TABLE_WIDTH = 512;
/** Rows per texture line. */
export const ROWS_PER_LINE = BREAK_TABLE_WIDTH / BREAK_TEXELS;
/** Groups per texture line. */
const GROUPS_PER_LINE = ROWS_PER_LINE / MAX_BREAKS_PER_GROUP;
/** Texels of a group. */
const GROUP_TEXELS = MAX_BREAKS_PER_GROUP * BREAK_TEXELS;
/** Groups at first (texture lines: groups · 4 / 64). */
const INITIAL_GROUPS = 256;
/**
 * Groups at most: rows stay below 2^16, so a reference holds one exactly (3/4 of 2^14 launches
 * at once).
 */
export const MAX_GROUPS = 1 << 14;

/** What `upload` uses of three's renderer (its public API). */
export type TableRenderer = Pick<THREE.WebGLRenderer, "domElement" | "getContext" | "state">;

/**
 * The texture of break rows, its groups in use, and the groups written since the last upload.
 */
export class FireworkBreakTable {
  /** The rows, BREAK_TEXELS RGBA texels (32 floats) each: what the texture holds. */
  data: Float32Array;
  /** What the shader samples: the table's WebGL texture once uploaded (one object for good). */
  readonly texture = new THREE.ExternalTexture(null);
  /** Texture lines (its height). */
  lines: number;
  #groups: number;
  /** 1 for each group in use. */
  #inUse: Uint8Array;
  #used = 0;
  /** Where the search for a free group starts (after the last one handed out). */
  #next = 0;
  /** The highest group handed out since the last reset, plus one (rows beyond were never written). */
  #reached = 0;
  /** 1 for each group holding rows written since the last upload. */
  #dirty: Uint8Array;
  #dirtyFrom = Infinity;
  #dirtyTo = -1;
  /** The texture is to be made (first upload, growth, a restored context): sent whole. */
  #fresh = true;
  /** The WebGL texture and its context (null before the first upload). */
  #gl: WebGL2RenderingContext | null = null;
  #glTexture: WebGLTexture | null = null;
  /** The canvas whose restored context makes the texture new again. */
  #canvas: HTMLCanvasElement | null = null;
  #restored = (): void => {
    // The old context's objects are gone with it: nothing to delete.
    this.#glTexture = null;
    this.#fresh = true;
  };
  /** Called with the texture when the table grew (the same object: it is the uniform's value). */
  onGrow: ((texture: THREE.Texture) => void) | null = null;

  constructor(groups = INITIAL_GROUPS) {
    this.#groups = groups;
    this.data = new Float32Array(groups * MAX_BREAKS_PER_GROUP * BREAK_TEXELS * 4);
    this.#inUse = new Uint8Array(groups);
    this.#dirty = new Uint8Array(groups);
    this.lines = this.#lines;
  }

  /** Groups in use. */
  get used(): number {
    return this.#used;
  }

  /** Bytes of the table (on the CPU and again on the GPU). */
  get bytes(): number {
    return this.data.byteLength;
  }

  /**
   * What the next upload sends: `"all"` (a new texture), else the runs of neighbouring groups
   * written since the last upload, each within a texture line, as [first group, groups] in
   * ascending order (one `texSubImage2D` each).
   */
  get pendingRuns(): "all" | [number, number][] {
    if (this.#fresh) return "all";
    const runs: [number, number][] = [];
    for (let g = this.#nextDirty(this.#dirtyFrom); g <= this.#dirtyTo; g = this.#nextDirty(g)) {
      const end = this.#runEnd(g);
      runs.push([g, end - g]);
      g = end;
    }
    return runs;
  }

  /**
   * The first free group (its rows 4·group … 4·group + 3) from after the last one handed out,
   * round the table; the table grows first when more than 3/4 of it is in use.
   */
  allocate(): number {
    if (4 * (this.#used + 1) > 3 * this.#groups) this.#grow();
    const inUse = this.#inUse, groups = this.#groups;
    let group = this.#next;
    while (inUse[group] !== 0) group = group + 1 === groups ? 0 : group + 1;
    inUse[group] = 1;
    this.#used++;
    this.#next = group + 1 === groups ? 0 : group + 1;
    if (group >= this.#reached) this.#reached = group + 1;
    return group;
  }

  /** Frees `group` (its rows are no longer referenced by any drawn slot). */
  free(group: number): void {
    if (this.#inUse[group] === 0) throw new Error(`firework_breaks: group ${group} is not in use`);
    this.#inUse[group] = 0;
    this.#used--;
  }

  /** Frees every group (the slots referencing them are cleared by the caller). */
  reset(): void {
    this.#inUse.fill(0);
    this.#used = this.#next = this.#reached = 0;
  }

  /** Where row `row`'s floats start in `data`. */
  offset(row: number): number {
    return row * BREAK_TEXELS * 4;
  }

  /** Marks rows [row, row + count) for the next upload (their groups). */
  touch(row: number, count: number): void {
    const last = Math.floor((row + count - 1) / MAX_BREAKS_PER_GROUP);
    for (let g = Math.floor(row / MAX_BREAKS_PER_GROUP); g <= last; g++) this.#touchGroup(g);
  }

  /** Marks every group handed out for the next upload. */
  touchUsed(): void {
    for (let g = 0; g < this.#reached; g++) this.#touchGroup(g);
  }

  /**
   * Copies what was written since the last upload to the GPU now, into the table's texture: made
   * and sent whole when new (first upload, growth, a restored context), else one
   * `texSubImage2D` per run of written groups. Binds through three's state (`renderer.state`),
   * so that three's record of the bound textures stays true.
   */
  upload(renderer: TableRenderer): void {
    this.#watch(renderer.domElement as HTMLCanvasElement);
    const gl = renderer.getContext() as WebGL2RenderingContext;
    const state = renderer.state;
    if (!this.#fresh && this.#dirtyTo < 0) return;
    if (this.#fresh || this.#glTexture === null || this.#gl !== gl) {
      if (this.#glTexture && this.#gl === gl) gl.deleteTexture(this.#glTexture);
      this.#gl = gl;
      this.#glTexture = gl.createTexture();
      state.bindTexture(gl.TEXTURE_2D, this.#glTexture);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
      this.#unpackPlain(gl, state);
      gl.texImage2D(
        gl.TEXTURE_2D,
        0,
        gl.RGBA32F,
        BREAK_TABLE_WIDTH,
        this.lines,
        0,
        gl.RGBA,
        gl.FLOAT,
        this.data,
      );
      this.texture.sourceTexture = this.#glTexture;
      this.#fresh = false;
    } else {
      state.bindTexture(gl.TEXTURE_2D, this.#glTexture);
      this.#unpackPlain(gl, state);
      const data = this.data;
      for (let g = this.#nextDirty(this.#dirtyFrom); g <= this.#dirtyTo; g = this.#nextDirty(g)) {
        const end = this.#runEnd(g);
        const line = Math.floor(g / GROUPS_PER_LINE);
        const x = (g % GROUPS_PER_LINE) * GROUP_TEXELS;
        gl.texSubImage2D(
          gl.TEXTURE_2D,
          0,
          x,
          line,
          (end - g) * GROUP_TEXELS,
          1,
          gl.RGBA,
          gl.FLOAT,
          data,
          (line * BREAK_TABLE_WIDTH + x) * 4,
        );
        g = end;
      }
    }
    this.#clearDirty();
  }

  dispose(): void {
    this.#canvas?.removeEventListener("webglcontextrestored", this.#restored);
    this.#canvas = null;
    if (this.#gl && this.#glTexture) this.#gl.deleteTexture(this.#glTexture);
    this.#glTexture = null;
    this.texture.sourceTexture = null;
    this.texture.dispose();
  }

  /** Texels are read as laid out in `data`: no flip, no premultiplying, no row skips. */
  #unpackPlain(gl: WebGL2RenderingContext, state: THREE.WebGLState): void {
    state.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    state.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    state.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
    state.pixelStorei(gl.UNPACK_ROW_LENGTH, 0);
    state.pixelStorei(gl.UNPACK_SKIP_PIXELS, 0);
    state.pixelStorei(gl.UNPACK_SKIP_ROWS, 0);
  }

  /** The first dirty group from `group` on (past `#dirtyTo`: none). */
  #nextDirty(group: number): number {
    const dirty = this.#dirty, to = this.#dirtyTo;
    while (group <= to && dirty[group] === 0) group++;
    return group;
  }

  /** The end of the run of dirty groups from dirty `group`, within its texture line. */
  #runEnd(group: number): number {
    const dirty = this.#dirty;
    const end = Math.min(
      this.#dirtyTo + 1,
      (Math.floor(group / GROUPS_PER_LINE) + 1) * GROUPS_PER_LINE,
    );
    while (group < end && dirty[group] !== 0) group++;
    return group;
  }

  /** Listens for `canvas`'s context being restored (the texture then goes up whole). */
  #watch(canvas: HTMLCanvasElement): void {
    if (this.#canvas === canvas) return;
    this.#canvas?.removeEventListener("webglcontextrestored", this.#restored);
    this.#canvas = canvas;
    canvas.addEventListener("webglcontextrestored", this.#restored);
  }

  /** Texture lines of the table. */
  get #lines(): number {
    return (this.#groups * MAX_BREAKS_PER_GROUP) / ROWS_PER_LINE;
  }

  #touchGroup(group: number): void {
    this.#dirty[group] = 1;
    if (group < this.#dirtyFrom) this.#dirtyFrom = group;
    if (group > this.#dirtyTo) this.#dirtyTo = group;
  }

  #clearDirty(): void {
    if (this.#dirtyTo >= 0) this.#dirty.fill(0, this.#dirtyFrom, this.#dirtyTo + 1);
    this.#dirtyFrom = Infinity;
    this.#dirtyTo = -1;
  }

  #grow(): void {
    if (this.#groups >= MAX_GROUPS) {
      throw new RangeError(
        `firework_breaks: more than ${(3 * MAX_GROUPS) / 4} launches drawn at once`,
      );
    }
    // The search goes on from the old end, into the new half.
    this.#next = this.#groups;
    this.#groups *= 2;
    const data = new Float32Array(this.#groups * MAX_BREAKS_PER_GROUP * BREAK_TEXELS * 4);
    data.set(this.data);
    this.data = data;
    const inUse = new Uint8Array(this.#groups);
    inUse.set(this.#inUse);
    this.#inUse = inUse;
    this.lines = this.#lines;
    // A new texture goes up whole with every row written so far (the old one is deleted then).
    this.#dirty = new Uint8Array(this.#groups);
    this.#dirtyFrom = Infinity;
    this.#dirtyTo = -1;
    this.#fresh = true;
    this.onGrow?.(this.texture);
  }
}

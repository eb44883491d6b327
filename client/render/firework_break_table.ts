/**
 * `FireworkBreakTable`: each live launch's breaks as rows of a float texture the spark shader
 * reads, so that a slot placed on the GPU carries only a reference (its break's row and its place
 * in the break, firework_derived_packing.ts) instead of the break's numbers. A launch takes a
 * group of MAX_BREAKS_PER_GROUP rows while it lives; a row is BREAK_TEXELS texels (see
 * firework_derived_packing.ts). Rows are written once, when the launch is first drawn, and
 * `upload` copies only the texture lines holding rows written since the last, each line one of
 * the texture's update ranges (`Texture.addUpdateRange`, three's public API). Groups are handed out round the table from where the last
 * one was (ended launches' groups are free again, and launches end roughly in the order they
 * came), so a frame's new launches take neighbouring groups, mostly in one line. The texture
 * grows by doubling its height when more than 3/4 of its groups are in use (uploaded whole
 * then, a rare event).
 *
 * @example
 * ```ts
 * import { FireworkBreakTable } from "./firework_break_table.ts";
 * const table = new FireworkBreakTable();
 * const group = table.allocate(); // rows 4·group … 4·group + 3 (the next free group)
 * table.touch(group * 4, 4); // its rows written: their line goes up at the next upload
 * table.free(group);
 * table.dispose();
 * ```
 */
import * as THREE from "three";
import { floatTexture } from "./firework_tables.ts";

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
/** Groups at first (texture lines: groups · 4 / 64). */
const INITIAL_GROUPS = 256;
/**
 * Groups at most: rows stay below 2^16, so a reference holds one exactly (3/4 of 2^14 launches
 * at once).
 */
export const MAX_GROUPS = 1 << 14;

/** The texture of break rows, its groups in use, and the lines written since the last upload. */
export class FireworkBreakTable {
  /** The rows, BREAK_TEXELS RGBA texels (32 floats) each: what the texture holds. */
  data: Float32Array;
  texture: THREE.DataTexture;
  #groups: number;
  /** 1 for each group in use. */
  #inUse: Uint8Array;
  #used = 0;
  /** Where the search for a free group starts (after the last one handed out). */
  #next = 0;
  /** The highest group handed out since the last reset, plus one (rows beyond were never written). */
  #reached = 0;
  /** 1 for each texture line holding rows written since the last upload. */
  #dirty: Uint8Array;
  #dirtyFrom = Infinity;
  #dirtyTo = -1;
  /** The texture is new (created or grown): the next upload sends it whole. */
  #fresh = true;
  /** The canvas whose restored context makes the texture new again. */
  #canvas: HTMLCanvasElement | null = null;
  #restored = (): void => {
    this.#fresh = true;
  };
  /** Called with the new texture when the table grew (the material's uniform follows it). */
  onGrow: ((texture: THREE.DataTexture) => void) | null = null;

  constructor(groups = INITIAL_GROUPS) {
    this.#groups = groups;
    this.data = new Float32Array(groups * MAX_BREAKS_PER_GROUP * BREAK_TEXELS * 4);
    this.#inUse = new Uint8Array(groups);
    this.#dirty = new Uint8Array(this.#lines);
    this.texture = floatTexture(this.data, BREAK_TABLE_WIDTH, this.#lines);
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
   * What the next upload sends: `"all"` (a new texture), the texture lines holding rows written
   * since the last upload in ascending order, or none.
   */
  get pendingLines(): "all" | number[] {
    if (this.#fresh) return "all";
    const lines: number[] = [];
    for (let line = this.#dirtyFrom; line <= this.#dirtyTo; line++) {
      if (this.#dirty[line]) lines.push(line);
    }
    return lines;
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

  /** Marks rows [row, row + count) for the next upload (their texture lines). */
  touch(row: number, count: number): void {
    const last = Math.floor((row + count - 1) / ROWS_PER_LINE);
    for (let line = Math.floor(row / ROWS_PER_LINE); line <= last; line++) this.#touchLine(line);
  }

  /** Marks every texture line holding groups handed out for the next upload. */
  touchUsed(): void {
    const lines = Math.ceil((this.#reached * MAX_BREAKS_PER_GROUP) / ROWS_PER_LINE);
    for (let line = 0; line < lines; line++) this.#touchLine(line);
  }

  /**
   * Copies what was written since the last upload to the GPU now, through three's public texture
   * API: a new texture whole, else each written line as one of the texture's update ranges
   * (three sends a range a line, with one `texSubImage2D` each). After the renderer's context
   * was lost and restored the texture goes up whole again (three makes a new one then).
   */
  upload(renderer: THREE.WebGLRenderer): void {
    this.#watch(renderer.domElement);
    const texture = this.texture;
    if (this.#fresh) {
      texture.clearUpdateRanges();
      this.#fresh = false;
    } else {
      if (this.#dirtyTo < 0) return;
      const dirty = this.#dirty, floatsPerLine = BREAK_TABLE_WIDTH * 4;
      for (let line = this.#dirtyFrom; line <= this.#dirtyTo; line++) {
        if (dirty[line]) texture.addUpdateRange(line * floatsPerLine, floatsPerLine);
      }
    }
    texture.needsUpdate = true;
    renderer.initTexture(texture);
    this.#clearDirty();
  }

  dispose(): void {
    this.#canvas?.removeEventListener("webglcontextrestored", this.#restored);
    this.#canvas = null;
    this.texture.dispose();
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

  #touchLine(line: number): void {
    this.#dirty[line] = 1;
    if (line < this.#dirtyFrom) this.#dirtyFrom = line;
    if (line > this.#dirtyTo) this.#dirtyTo = line;
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
    this.texture.dispose();
    this.texture = floatTexture(this.data, BREAK_TABLE_WIDTH, this.#lines);
    // The new texture goes up whole with every row written so far.
    this.#dirty = new Uint8Array(this.#lines);
    this.#dirtyFrom = Infinity;
    this.#dirtyTo = -1;
    this.#fresh = true;
    this.onGrow?.(this.texture);
  }
}

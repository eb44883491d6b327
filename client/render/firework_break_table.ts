/**
 * `FireworkBreakTable`: each live launch's breaks as rows of a float texture the spark shader
 * reads, so that a slot placed on the GPU carries only a reference (its break's row and its place
 * in the break, firework_derived_packing.ts) instead of the break's numbers. A launch takes a
 * group of MAX_BREAKS_PER_GROUP rows while it lives; a row is BREAK_TEXELS texels (see
 * `FireworkBreakTable.write`). Rows are written once, when the launch is first drawn, and a
 * frame uploads only the rows written since the last (`addUpdateRange`). The texture grows by
 * doubling its height (rewritten then, a rare event); groups freed by ended launches are reused.
 *
 * @example
 * ```ts
 * import { FireworkBreakTable } from "./firework_break_table.ts";
 * const table = new FireworkBreakTable();
 * const group = table.allocate(); // rows 4·group … 4·group + 3
 * table.free(group);
 * table.dispose();
 * ```
 */
import type * as THREE from "three";
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
/** Groups at most: rows stay below 2^16, so a reference holds one exactly (2^14 launches). */
export const MAX_GROUPS = 1 << 14;

/** The texture of break rows, its free groups, and the rows written since the last upload. */
export class FireworkBreakTable {
  /** The rows, BREAK_TEXELS RGBA texels (32 floats) each: what the texture holds. */
  data: Float32Array;
  texture: THREE.DataTexture;
  #groups: number;
  #free: number[] = [];
  #next = 0;
  /** Called with the new texture when the table grew (the material's uniform follows it). */
  onGrow: ((texture: THREE.DataTexture) => void) | null = null;

  constructor(groups = INITIAL_GROUPS) {
    this.#groups = groups;
    this.data = new Float32Array(groups * MAX_BREAKS_PER_GROUP * BREAK_TEXELS * 4);
    this.texture = this.#makeTexture();
  }

  /** Groups in use. */
  get used(): number {
    return this.#next - this.#free.length;
  }

  /** Bytes of the table (on the CPU and again on the GPU). */
  get bytes(): number {
    return this.data.byteLength;
  }

  /** A free group (its rows 4·group … 4·group + 3), growing the table if none is left. */
  allocate(): number {
    const reused = this.#free.pop();
    if (reused !== undefined) return reused;
    if (this.#next === this.#groups) this.#grow();
    return this.#next++;
  }

  /** Returns `group` to the free list (its rows are no longer referenced by any slot). */
  free(group: number): void {
    this.#free.push(group);
  }

  /** Frees every group (the slots referencing them are cleared by the caller). */
  reset(): void {
    this.#free.length = 0;
    this.#next = 0;
  }

  /** Where row `row`'s floats start in `data`. */
  offset(row: number): number {
    return row * BREAK_TEXELS * 4;
  }

  /** Marks rows [row, row + count) for the next upload. */
  touch(row: number, count: number): void {
    this.texture.addUpdateRange(this.offset(row), count * BREAK_TEXELS * 4);
    this.texture.needsUpdate = true;
  }

  /**
   * Marks every texture line holding groups handed out for the next upload (one range a line:
   * three uploads a range as one line of texels).
   */
  touchUsed(): void {
    const lines = Math.ceil((this.#next * MAX_BREAKS_PER_GROUP) / ROWS_PER_LINE);
    for (let line = 0; line < lines; line++) {
      this.texture.addUpdateRange(line * BREAK_TABLE_WIDTH * 4, BREAK_TABLE_WIDTH * 4);
    }
    this.texture.needsUpdate = true;
  }

  dispose(): void {
    this.texture.dispose();
  }

  #makeTexture(): THREE.DataTexture {
    const lines = (this.#groups * MAX_BREAKS_PER_GROUP) / ROWS_PER_LINE;
    return floatTexture(this.data, BREAK_TABLE_WIDTH, lines);
  }

  #grow(): void {
    if (this.#groups >= MAX_GROUPS) {
      throw new RangeError(`firework_breaks: more than ${MAX_GROUPS} launches drawn at once`);
    }
    this.#groups *= 2;
    const data = new Float32Array(this.#groups * MAX_BREAKS_PER_GROUP * BREAK_TEXELS * 4);
    data.set(this.data);
    this.data = data;
    this.texture.dispose();
    this.texture = this.#makeTexture();
    // A new texture with update ranges is uploaded only in them (three allocates it, then copies
    // the ranges): every line holding rows in use goes up with the first.
    this.touchUsed();
    this.onGrow?.(this.texture);
  }
}

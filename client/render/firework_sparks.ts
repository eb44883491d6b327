/**
 * Firework sparks placed and evaluated on the GPU: every slot of the world's firework pool has one
 * instance. A launch is written once, when it is first drawn: its shell's record (origin, born,
 * velocity, max life, style, strobe key, size, how long it is drawn) with its whole trail ring
 * (the shader derives the trail spark each ring slot holds at any tick from the shell and the rise
 * tick's stream), one row per break in the break table (firework_break_table.ts) and, for every
 * other slot, a reference to its break's row and its place (firework_derived_packing.ts): the
 * vertex shader (firework_spark_shader.ts) places each burst spark, split child and ember from its
 * break as shared/ does and evaluates it at the displayed time. A break, a split or an ember wave
 * writes nothing, and nothing is read from the pool but the shell, so shared/ places a break's
 * sparks only when something else reads them (a checkpoint). A frame's CPU work here is therefore
 * in proportion to the launches since the last one, not to the live sparks nor to the births;
 * everything is written again only when the world was rebuilt (late join, fast-forward); when the
 * pool's buffer grows (its slots stay where they were) both buffers are copied into larger ones
 * on the GPU, a compaction's moves are repeated on the GPU copies, an ended launch's references
 * are cleared and its rows reused, and a launch that takes an ended one's gap writes over records
 * that are dead for good (never drawn).
 * Memory: 56 bytes per pool slot (a 48-byte record and an 8-byte reference) and 128 bytes per
 * break row, on the GPU: records are staged in a small array (STAGING_SLOTS) and copied into their
 * slots of the WebGL buffer (firework_records.ts); without a WebGL context (tests) they go to CPU
 * arrays that hold what the GPU would.
 */
import * as THREE from "three";
import { BREAK_GAP_TICKS } from "../../shared/constants.ts";
import type { FireworkBlock, Fireworks } from "../../shared/fireworks.ts";
import type { World } from "../../shared/world.ts";
import { GOLD_TINT, RAINBOW_FIRST, THEME_TINTS } from "../../shared/firework_colors.ts";
import { THEME_TRAIL_TINT } from "../../shared/fireworks.ts";
import { THEMES } from "../../shared/types.ts";
import { DERIVED, derivedRef, INDEX_SPAN, MAX_RECIPES } from "./firework_derived_packing.ts";
import { FireworkBreakTable, MAX_BREAKS_PER_GROUP } from "./firework_break_table.ts";
import { MOTION, MOTIONS, styleOf } from "../../shared/firework_motion.ts";
import { type Recipe, RECIPES } from "../../shared/firework_recipes.ts";
import { FIREWORK_KINDS } from "../../shared/firework_kinds.ts";
import { STREAM, streamPrefix } from "../../shared/prng.ts";
import { EMBER_N, EMBER_T, MAX_TRAILS, SHELL_TRAIL_ROW } from "./firework_ember_packing.ts";
import type { FireworkShaderRows } from "./firework_shader_math.ts";
import { createFireworkTables, type FireworkTables } from "./firework_tables.ts";
import {
  FireworkRecordBuffer,
  FireworkRecordMirror,
  type FireworkRecordTarget,
} from "./firework_records.ts";
import { FIREWORK_CLASSES, FireworkSparkShader, THEME_ROWS } from "./firework_spark_shader.ts";
import type { PointUniforms } from "./point_uniforms.ts";
import { ADDED_LIGHT, streakQuadGeometry } from "./streak_quad.ts";

/** Floats per slot in the instance buffer. */
export const FIREWORK_SLOT_STRIDE = 12;

/** Floats per slot in the reference buffer (firework_derived_packing.ts). */
export const REF_STRIDE = 2;

/**
 * Born ticks are stored relative to an epoch (float32 holds integers exactly up to 2^24); past
 * this many ticks after it (~19 hours at 60 Hz) the buffer is rewritten with a new epoch.
 */
const EPOCH_SPAN = 1 << 22;

/** Records staged on the CPU before they are copied into the GPU buffer (≈ 390 kB). */
export const STAGING_SLOTS = 8192;

/** Options for {@link FireworkSparks}. */
export interface FireworkSparksOptions {
  uniforms: PointUniforms;
  /** Shared `uViewport` uniform: the drawing buffer's size in pixels. */
  viewport: THREE.IUniform<THREE.Vector2>;
  /** Sprite diameter relative to the particle's size, so the glow halo has room. */
  glow: number;
  /** Overall brightness (linear, may exceed 1). */
  intensity: number;
  /** Streak length in ticks of the spark's own motion. */
  tailTicks: number;
  /** Per motion class, a factor on `tailTicks` (missing: 1). */
  classTicks: readonly number[];
  /** Per motion class, the young-burst radius in metres (0: none; spark_packing.ts). */
  classYouth: readonly number[];
  /** Brightness at the tail end relative to the head. */
  tailLight: number;
  /** Draw the sparks of every n-th slot of a launch (reduced motion: 2); default 1. */
  keepEvery?: number;
  /** Strobing sparks flicker (reduced motion: no); default true. */
  strobe?: boolean;
  renderOrder: number;
  /**
   * The renderer's WebGL context: records go straight into a GPU buffer. Without it (tests) they
   * go to a CPU array, `mirror`.
   */
  gl?: WebGL2RenderingContext;
}

/** `n` zero vectors, for a uniform array. */
function vectors(n: number): THREE.Vector4[] {
  return Array.from({ length: n }, () => new THREE.Vector4());
}

/**
 * Per theme (THEMES order) and break (4 each): the main and second tints, the theme's mode for
 * a spark's tint (0 by its pick, 1 rainbow, 2 alternating spark by spark, 3 silver twinkles) and
 * whether its trails are gold, as shared/fireworks.ts's launch and `#placeBurst` pick them.
 */
function themeRows(): THREE.Vector4[] {
  const rows = vectors(THEME_ROWS);
  THEMES.forEach((theme, t) => {
    for (let b = 0; b < 4; b++) {
      const tints = theme === "rainbow" ? [RAINBOW_FIRST] : THEME_TINTS[theme];
      const mode = theme === "rainbow"
        ? 1
        : theme === "green-purple"
        ? 2
        : theme === "blue-silver"
        ? 3
        : 0;
      rows[t * 4 + b].set(
        tints[b % tints.length],
        tints[(b + 1) % tints.length],
        mode,
        THEME_TRAIL_TINT[theme] === GOLD_TINT ? 1 : 0,
      );
    }
  });
  return rows;
}

/** The shader's shape codes (uBurstA.x). */
const SHAPE_CODES: Readonly<Record<Recipe["shape"], number>> = {
  sphere: 0,
  palm: 1,
  ring: 2,
  heart: 3,
};

/** GPU-evaluated firework sparks of a {@link World}. */
export class FireworkSparks {
  /** Add this to the scene. */
  readonly object: THREE.Mesh;
  private geometry = streakQuadGeometry();
  private readonly material: THREE.ShaderMaterial;
  private readonly tables: FireworkTables = createFireworkTables();
  private readonly keepEvery: number;
  private readonly strobe: boolean;
  private readonly gl: WebGL2RenderingContext | null;
  private target: FireworkRecordTarget | null = null;
  /** Each slot's reference to a break row (two floats; 0: the slot has a record of its own). */
  private refs: FireworkRecordTarget | null = null;
  /** The live launches' break rows (uBreaks). */
  private readonly table = new FireworkBreakTable();
  /** The launches holding a group of break rows, and their groups (freed when they end). */
  private readonly owners: FireworkBlock[] = [];
  private readonly ownerGroups: number[] = [];
  /**
   * Where each owner's slots are in the GPU buffers (its start as of the last update): a launch
   * that a compaction moved and that then ended in the same step has its new start in the pool
   * but its references still at the old one until the moves are repeated here.
   */
  private readonly ownerStarts: number[] = [];
  /** A launch's references, built before they are copied into `refs` (grown, never shrunk). */
  private refScratch = new Float32Array(4096);
  /** Records staged for the target: a run of consecutive slots is copied at once. */
  private readonly data = new Float32Array(STAGING_SLOTS * FIREWORK_SLOT_STRIDE);
  private staged = 0;
  private runSlot = 0;
  private runFrom = 0;
  private runCount = 0;
  private slots = 0;
  private world: World | null = null;
  private system: Fireworks | null = null;
  private layoutVersion = -1;
  private rebuilds = -1;
  private epoch = 0;
  private readonly trails = new Map<Recipe, number>();
  /** A break's burst point and inherited velocity (Fireworks.burstFrame). */
  private readonly frame = new Float64Array(6);
  /** Records written by the last `update` (shells and trail rings, or all after a change). */
  written = 0;
  /** Slot references written by the last `update` (a new launch's slots, once). */
  referenced = 0;
  /** Updates that followed a compaction by moving records on the GPU (instead of rewriting). */
  movedUpdates = 0;
  /** Updates that followed a growth by copying the records on the GPU (instead of rewriting). */
  grownUpdates = 0;

  constructor(options: FireworkSparksOptions) {
    this.keepEvery = Math.max(1, Math.floor(options.keepEvery ?? 1));
    this.strobe = options.strobe ?? true;
    this.gl = options.gl ?? null;
    const classTicks = new Array(FIREWORK_CLASSES).fill(1);
    const classYouth = new Array(FIREWORK_CLASSES).fill(0);
    for (let c = 0; c < FIREWORK_CLASSES; c++) {
      classTicks[c] = options.classTicks[c] ?? 1;
      classYouth[c] = options.classYouth[c] ?? 0;
    }
    this.material = new THREE.ShaderMaterial({
      vertexShader: FireworkSparkShader.vertexShader,
      fragmentShader: FireworkSparkShader.fragmentShader,
      uniforms: {
        ...options.uniforms,
        uViewport: options.viewport,
        uGlow: { value: options.glow },
        uIntensity: { value: options.intensity },
        uTailLight: { value: options.tailLight },
        uMotion: { value: this.tables.motion },
        uColors: { value: this.tables.colors },
        uTick: { value: 0 },
        uAlpha: { value: 1 },
        uStrobeTick: { value: -1 },
        uTailTicks: { value: options.tailTicks },
        uClassTicks: { value: classTicks },
        uClassYouth: { value: classYouth },
        uEmberA: { value: Array.from({ length: MAX_TRAILS }, () => new THREE.Vector4()) },
        uEmberB: { value: Array.from({ length: MAX_TRAILS }, () => new THREE.Vector4()) },
        uBurstA: { value: vectors(MAX_RECIPES) },
        uBurstB: { value: vectors(MAX_RECIPES) },
        uBurstC: { value: vectors(MAX_RECIPES) },
        uSplitA: { value: vectors(MAX_RECIPES) },
        uSplitB: { value: vectors(MAX_RECIPES) },
        uSplitC: { value: vectors(MAX_RECIPES) },
        uThemes: { value: themeRows() },
        uBreaks: { value: this.table.texture },
        uClassSize: { value: MOTIONS.map((motion) => motion.size) },
      },
      ...ADDED_LIGHT,
    });
    this.table.onGrow = (texture) => this.material.uniforms.uBreaks.value = texture;
    if (FIREWORK_KINDS.length > MAX_RECIPES) throw new RangeError("firework_kinds: too many");
    FIREWORK_KINDS.forEach((kind, row) => this.setRecipeRow(row, RECIPES[kind]));
    this.object = new THREE.Mesh(this.geometry, this.material);
    this.object.frustumCulled = false;
    this.object.renderOrder = options.renderOrder;
    this.allocate(1);
  }

  /**
   * About how many live sparks the GPU draws: the world's expected live fireworks over
   * `keepEvery` (the GPU decides per slot; the CPU does not count them). Evaluated when read.
   */
  get drawnCount(): number {
    const system = this.system;
    return system ? Math.round(system.expectedLive() / this.keepEvery) : 0;
  }

  /**
   * Without a WebGL context, the CPU array holding what the GPU buffer would
   * (FIREWORK_SLOT_STRIDE floats per pool slot).
   */
  get mirror(): Float32Array {
    if (!(this.target instanceof FireworkRecordMirror)) {
      throw new Error("firework_mirror: the records are on the GPU only");
    }
    return this.target.array;
  }

  /** Without a WebGL context, the CPU array holding the references (REF_STRIDE floats a slot). */
  get refMirror(): Float32Array {
    if (!(this.refs instanceof FireworkRecordMirror)) {
      throw new Error("firework_mirror: the references are on the GPU only");
    }
    return this.refs.array;
  }

  /** Bytes of the records: on the GPU (or in the mirror) and staged on the CPU. */
  get bytes(): { gpu: number; cpu: number } {
    const slots = this.slots * (FIREWORK_SLOT_STRIDE + REF_STRIDE) * 4;
    const gpu = slots + this.table.bytes;
    const cpu = this.data.byteLength + this.refScratch.byteLength + this.table.bytes;
    return { gpu, cpu: cpu + (this.gl ? 0 : slots) };
  }

  /** The shader's uniform tables, as arrays (for fireworkHead in tests). */
  get shaderRows(): FireworkShaderRows {
    const rows = (name: string) =>
      (this.material.uniforms[name].value as THREE.Vector4[]).map((v) => v.toArray());
    return {
      a: rows("uEmberA"),
      b: rows("uEmberB"),
      burstA: rows("uBurstA"),
      burstB: rows("uBurstB"),
      burstC: rows("uBurstC"),
      splitA: rows("uSplitA"),
      splitB: rows("uSplitB"),
      splitC: rows("uSplitC"),
      themes: rows("uThemes"),
      refs: this.refMirror,
      breaks: this.table.data,
    };
  }

  /** The tick that born ticks in the mirror (and the shader's `uTick`) are relative to. */
  get epochTick(): number {
    return this.epoch;
  }

  /** Binds a (new) world: everything is written at the next update. */
  bind(world: World): void {
    this.world = world;
    this.system = null;
  }

  /**
   * Writes and marks for upload what was born since the last call (or everything, after the
   * world changed) and sets the displayed time: `alpha` ∈ [0, 1] between the
   * world's tick − 1 and its tick.
   */
  update(alpha: number): void {
    const world = this.world;
    if (!world) return;
    const system = world.fireworkSystem;
    const pool = system.pool;
    const tick = world.tick;
    // The layout changes with a compaction (the pool keeps the last one's moves) or a new
    // buffer (growth, or the state arrays added), which keeps every slot where it was. Since the
    // last update: no compaction, or one that came first (then the same moves on the GPU copy);
    // else everything is written again.
    const same = system === this.system && system.rebuilds === this.rebuilds;
    const since = this.layoutVersion;
    const moved = same && pool.movesVersion === since + 1 && pool.moves.length > 0;
    const full = !same || (pool.movesVersion > since && !moved) || tick - this.epoch > EPOCH_SPAN;
    if (pool.allocated > this.slots) {
      if (full) this.allocate(pool.allocated);
      else {
        // The records so far go over on the GPU; the new slots are zero (never drawn) until
        // written.
        this.allocate(pool.allocated, true);
        this.grownUpdates++;
      }
    }
    const blocks = pool.blocks;
    this.written = 0;
    this.referenced = 0;
    this.target!.begin();
    if (full) {
      this.system = system;
      this.layoutVersion = pool.layoutVersion;
      this.rebuilds = system.rebuilds;
      this.epoch = tick;
      // Everything else is zero, never drawn: ended launches' gaps, and the slots beyond the
      // last block, which a later launch takes over before it spawns in all of them.
      this.target!.clear();
      this.refs!.clear();
      this.table.reset();
      this.owners.length = this.ownerGroups.length = this.ownerStarts.length = 0;
      for (let b = 0; b < blocks.length; b++) {
        const block = blocks[b];
        this.write(system, block, 0, block.size);
        block.births.length = 0;
      }
    } else {
      this.layoutVersion = pool.layoutVersion;
      // Launches that ended: their slots' references go (before any move: their slots are where
      // the last update left them) and their rows are free for new launches.
      this.release(tick);
      if (moved) {
        this.movedUpdates++;
        const moves = pool.moves, target = this.target!, refs = this.refs!;
        for (let m = 0; m < moves.length; m += 3) {
          target.move(moves[m], moves[m + 1], moves[m + 2]);
          refs.move(moves[m], moves[m + 1], moves[m + 2]);
        }
        // What lay above the compacted blocks is garbage (stale copies of moved sparks); blocks
        // added since take it over before they spawn in all of it.
        let end = 0;
        for (let m = 0; m < moves.length; m += 3) end = Math.max(end, moves[m + 1] + moves[m + 2]);
        target.zero(end, pool.movedFromCount);
        refs.zero(end, pool.movedFromCount);
        // Every owner left is live: its slots are now where the pool has them.
        for (let i = 0; i < this.owners.length; i++) this.ownerStarts[i] = this.owners[i].start;
      }
      for (let b = 0; b < blocks.length; b++) {
        const block = blocks[b];
        const births = block.births;
        if (births.length === 0) continue;
        for (let k = 0; k < births.length; k += 2) {
          this.write(system, block, births[k], births[k + 1]);
        }
        births.length = 0;
      }
    }
    this.flush();
    this.staged = 0;
    this.geometry.instanceCount = pool.count;
    const uniforms = this.material.uniforms;
    uniforms.uTick.value = tick - this.epoch;
    uniforms.uAlpha.value = alpha;
    uniforms.uStrobeTick.value = this.strobe ? tick : -1;
  }

  /** Frees GPU resources. */
  dispose(): void {
    this.geometry.dispose();
    this.material.dispose();
    this.tables.dispose();
    this.table.dispose();
    this.refs?.dispose();
    this.target?.dispose();
  }

  /**
   * Stages the records of pool slots [slot, slot + count) (count ≤ STAGING_SLOTS) and returns
   * where the first starts in `data`: consecutive slots form one run, copied to the target at
   * once (when the run breaks, the staging array is full, or the update ends).
   */
  private stageRun(slot: number, count: number): number {
    if (
      this.runCount === 0 || slot !== this.runSlot + this.runCount ||
      this.staged + count > STAGING_SLOTS
    ) {
      this.flush();
      if (this.staged + count > STAGING_SLOTS) this.staged = 0;
      this.runSlot = slot;
      this.runFrom = this.staged;
    }
    const at = this.staged * FIREWORK_SLOT_STRIDE;
    this.runCount += count;
    this.staged += count;
    return at;
  }

  /** Copies the staged run to the target. */
  private flush(): void {
    if (this.runCount === 0) return;
    this.target!.write(this.runSlot, this.data, this.runFrom, this.runCount);
    this.runCount = 0;
  }

  /**
   * Writes slots [from, to) of `block` (relative). A launch is written whole when it is first
   * drawn (from 0): its shell's record with its trail ring (the shader derives each trail spark
   * from the shell), its breaks' rows in the break table and every other slot's reference to its
   * break (each spark, split child and ember is placed by the shader from its break when it is
   * born there, so later births write nothing).
   */
  private write(system: Fireworks, block: FireworkBlock, from: number, to: number): void {
    if (from !== 0 || to <= 0) return;
    this.writeSlots(system, block, 0, 1);
    this.writeTrailRing(system, block);
    this.writeBreaks(system, block);
  }

  /**
   * Takes a group of break rows for `block`, writes each break's row (its burst point, born
   * tick, inherited velocity, base speed, plane, stream prefix, kind, theme and `aux`;
   * firework_derived_packing.ts) and every slot's reference past the trail ring: one run of
   * references for the whole launch.
   */
  private writeBreaks(system: Fireworks, block: FireworkBlock): void {
    const plan = block.plan, recipe = block.recipe;
    const group = this.table.allocate();
    this.owners.push(block);
    this.ownerGroups.push(group);
    this.ownerStarts.push(block.start);
    const first = group * MAX_BREAKS_PER_GROUP;
    const kind = FIREWORK_KINDS.indexOf(block.kind);
    const theme = THEMES.indexOf(block.theme);
    const prefix = streamPrefix(system.seed, STREAM.firework, block.seq);
    const children = recipe.split?.children ?? 0;
    const ring = recipe.trail?.ring ?? 0;
    if (this.refScratch.length < block.size * REF_STRIDE) {
      this.refScratch = new Float32Array(
        Math.max(block.size * REF_STRIDE, 2 * this.refScratch.length),
      );
    }
    const refs = this.refScratch;
    refs.fill(0, 0, block.size * REF_STRIDE);
    const keep = this.keepEvery;
    for (let b = 0; b < plan.breaks; b++) {
      const row = first + b;
      const t = this.table.data, o = this.table.offset(row);
      const frame = system.burstFrame(block, b, this.frame);
      t[o] = frame[0];
      t[o + 1] = frame[1];
      t[o + 2] = frame[2];
      t[o + 3] = block.tick - this.epoch + plan.riseTicks + b * BREAK_GAP_TICKS;
      t[o + 4] = frame[3];
      t[o + 5] = frame[4];
      t[o + 6] = frame[5];
      t[o + 7] = plan.sparkSpeed[b];
      for (let c = 0; c < 3; c++) {
        t[o + 8 + c] = plan.plane[b * 6 + c];
        t[o + 12 + c] = plan.plane[b * 6 + 3 + c];
      }
      t[o + 11] = prefix & 0xffff;
      t[o + 15] = prefix >>> 16;
      t[o + 16] = kind;
      t[o + 17] = theme;
      t[o + 18] = b;
      t[o + 19] = recipe.shape === "sphere" ? plan.splitCount[b] : plan.sparkCount[b];
      // Sparks, children, then each trailing spark's ember ring (derivedRef's values, counted
      // up run by run; the largest place checked once).
      derivedRef(DERIVED.ember, Math.max(plan.sparkCount[b], plan.splitCount[b] * children), 0);
      const tag = row + 1;
      let at = plan.sparkStart[b] * REF_STRIDE;
      for (let n = 0, v = EMBER_N * INDEX_SPAN * DERIVED.spark; n < plan.sparkCount[b]; n++) {
        refs[at++] = tag;
        refs[at++] = v + EMBER_N * n;
      }
      at = plan.childStart[b] * REF_STRIDE;
      const kids = plan.splitCount[b] * children;
      for (let c = 0, v = EMBER_N * INDEX_SPAN * DERIVED.child; c < kids; c++) {
        refs[at++] = tag;
        refs[at++] = v + EMBER_N * c;
      }
      at = plan.emberStart[b] * REF_STRIDE;
      for (let n = 0, v = EMBER_N * INDEX_SPAN * DERIVED.ember; n < plan.trailCount[b]; n++) {
        for (let q = 0; q < ring; q++) {
          refs[at++] = tag;
          refs[at++] = v + EMBER_N * n + q;
        }
      }
    }
    // Thinned out (reduced motion): every slot not a multiple of keepEvery from the launch's
    // first, so it stays stable.
    if (keep !== 1) {
      for (let r = 0; r < block.size; r++) {
        if (r % keep !== 0) refs[r * REF_STRIDE] = refs[r * REF_STRIDE + 1] = 0;
      }
    }
    this.table.touch(first, plan.breaks);
    this.refs!.write(block.start, refs, 0, block.size);
    this.referenced += block.size;
  }

  /**
   * Launches that ended by `tick`: their slots' references are cleared (a slot in the gap they
   * leave must not name rows another launch takes) and their groups freed.
   */
  private release(tick: number): void {
    const owners = this.owners, groups = this.ownerGroups, starts = this.ownerStarts;
    let kept = 0;
    for (let i = 0; i < owners.length; i++) {
      const block = owners[i];
      if (block.endTick <= tick) {
        this.refs!.zero(starts[i], starts[i] + block.size);
        this.table.free(groups[i]);
        continue;
      }
      owners[kept] = block;
      starts[kept] = starts[i];
      groups[kept++] = groups[i];
    }
    owners.length = groups.length = starts.length = kept;
  }

  /**
   * Sets row `index` (its kind's place in FIREWORK_KINDS) of the shader's recipe uniforms from
   * `recipe`: what placing its sparks, children and embers reads beside a derived record.
   */
  private setRecipeRow(index: number, recipe: Recipe): void {
    const split = recipe.split, trail = recipe.trail;
    const span = (range: readonly [number, number]) => range[1] - range[0] + 1;
    if (
      span(recipe.life) > 256 || (split && (span(split.life) > 256 || span(split.delay) > 256))
    ) throw new RangeError("firework_recipe: a life or delay span too wide for the shader's pick");
    const u = this.material.uniforms;
    const set = (name: string, x: number, y: number, z: number, w: number) =>
      (u[name].value as THREE.Vector4[])[index].set(x, y, z, w);
    const palette = recipe.palette === "gold" ? 1 : recipe.palette === "crackle" ? 2 : 0;
    set(
      "uBurstA",
      SHAPE_CODES[recipe.shape],
      recipe.spread[0],
      recipe.spread[1] - recipe.spread[0],
      recipe.noise ? 1 : 0,
    );
    set("uBurstB", recipe.life[0], span(recipe.life), recipe.motion, palette);
    set(
      "uBurstC",
      recipe.flicker ? 1 : 0,
      trail ? this.trailIndex(recipe) : -1,
      trail ? trail.motion : 0,
      0,
    );
    if (split) {
      set("uSplitA", split.children, split.pattern === "cross" ? 1 : 0, split.carry, split.motion);
      set(
        "uSplitB",
        split.speed[0],
        split.speed[1] - split.speed[0],
        split.life[0],
        span(split.life),
      );
      set(
        "uSplitC",
        split.delay[0],
        span(split.delay),
        split.tint === "silver" ? 1 : 0,
        split.flicker ? 1 : 0,
      );
    }
  }

  /** The row of `recipe`'s trail in the shader's ember uniforms (the recipes are constants). */
  private trailIndex(recipe: Recipe): number {
    let index = this.trails.get(recipe);
    if (index !== undefined) return index;
    const trail = recipe.trail!;
    index = this.trails.size;
    if (index >= MAX_TRAILS) throw new RangeError(`ember_trails: more than ${MAX_TRAILS} kinds`);
    if (trail.ring > EMBER_N || trail.life[1] - trail.life[0] + 1 > 256) {
      throw new RangeError("ember_trail: ring or life span too wide for the shader's packing");
    }
    this.trails.set(recipe, index);
    const uniforms = this.material.uniforms;
    (uniforms.uEmberA.value as THREE.Vector4[])[index].set(
      trail.every,
      trail.ring,
      trail.carry,
      trail.jitter,
    );
    (uniforms.uEmberB.value as THREE.Vector4[])[index].set(
      trail.life[0],
      trail.life[1] - trail.life[0] + 1,
      recipe.motion,
      MOTIONS[trail.motion].size,
    );
    return index;
  }

  /**
   * Writes a launch's shell trail ring, slots [1, trailEnd): one record per slot, each the
   * shell's birth state (born: the launch tick; life: its rise), the trail's style and the
   * launch's stream key, from which the shader derives the trail spark in that slot at any tick
   * (shared/'s `#spawnTrail`). Written once with the shell, never per rise tick.
   */
  private writeTrailRing(system: Fireworks, block: FireworkBlock): void {
    const { origin, velocity } = system.pool;
    const data = this.data;
    const keep = this.keepEvery;
    const thin = keep !== 1;
    const shell = block.start, p = shell * 3;
    const end = block.plan.trailEnd;
    const key = streamPrefix(system.seed, STREAM.firework, block.seq);
    const style = styleOf(MOTION.trail, block.trailTint);
    const bornAt = block.tick - this.epoch;
    const rise = block.plan.riseTicks;
    let o = this.stageRun(shell + 1, end - 1);
    for (let r = 1; r < end; r++, o += FIREWORK_SLOT_STRIDE) {
      data[o] = origin[p];
      data[o + 1] = origin[p + 1];
      data[o + 2] = origin[p + 2];
      data[o + 3] = bornAt;
      data[o + 4] = velocity[p];
      data[o + 5] = velocity[p + 1];
      data[o + 6] = velocity[p + 2];
      data[o + 7] = rise;
      data[o + 8] = style;
      data[o + 9] = key & 0xffff;
      data[o + 10] = key >>> 16;
      // Negative: trail ring slot r − 1; 0 when thinned out.
      data[o + 11] = thin && r % keep !== 0 ? 0 : -(1 + (r - 1) + EMBER_T * SHELL_TRAIL_ROW);
    }
    this.written += end - 1;
  }

  /** Writes pool slots `block.start + r` for r in [from, to) into their GPU instances. */
  private writeSlots(system: Fireworks, block: FireworkBlock, from: number, to: number): void {
    const { origin, velocity, maxLife, style, flicker, size, born } = system.pool;
    const data = this.data;
    const keep = this.keepEvery;
    const thin = keep !== 1;
    const base = block.tick - this.epoch;
    const rise = block.plan.riseTicks;
    for (let chunk = from; chunk < to; chunk += STAGING_SLOTS) {
      const stop = Math.min(to, chunk + STAGING_SLOTS);
      let o = this.stageRun(block.start + chunk, stop - chunk);
      for (let r = chunk; r < stop; r++, o += FIREWORK_SLOT_STRIDE) {
        const i = block.start + r, p = i * 3;
        const life = maxLife[i];
        data[o] = origin[p];
        data[o + 1] = origin[p + 1];
        data[o + 2] = origin[p + 2];
        data[o + 3] = base + born[i];
        data[o + 4] = velocity[p];
        data[o + 5] = velocity[p + 1];
        data[o + 6] = velocity[p + 2];
        data[o + 7] = life;
        data[o + 8] = style[i];
        data[o + 9] = flicker[i];
        data[o + 10] = size[i];
        // Drawn while younger than its life (the shell: until its burst puts it out); never when
        // not spawned or thinned out (counted from the launch's first slot, so it stays stable).
        data[o + 11] = life <= 0 || (thin && r % keep !== 0) ? 0 : r === 0 ? rise : life;
      }
    }
    this.written += to - from;
  }

  /**
   * A new buffer of `slots` instances on a fresh geometry (three caches instance counts): zero,
   * or with `keep` holding the old buffer's records in their slots (copied on the GPU).
   */
  private allocate(slots: number, keep = false): void {
    // Grown before the old geometry is disposed: three deletes the GL buffers of a disposed
    // geometry's attributes, the old records' buffer among them.
    const fresh = (stride: number) =>
      this.gl
        ? new FireworkRecordBuffer(this.gl, stride, slots)
        : new FireworkRecordMirror(stride, slots);
    let target: FireworkRecordTarget, refs: FireworkRecordTarget;
    if (keep && this.target && this.refs) {
      target = this.target.grow(slots);
      refs = this.refs.grow(slots);
    } else {
      this.target?.dispose();
      this.refs?.dispose();
      target = fresh(FIREWORK_SLOT_STRIDE);
      refs = fresh(REF_STRIDE);
    }
    this.target = target;
    this.refs = refs;
    this.geometry.dispose();
    this.geometry = streakQuadGeometry();
    this.object.geometry = this.geometry;
    // An interleaved view of a per-instance GL buffer is typed as an InterleavedBuffer only.
    const buffer = target.instances as THREE.InstancedInterleavedBuffer;
    this.geometry.setAttribute("originBorn", new THREE.InterleavedBufferAttribute(buffer, 4, 0));
    this.geometry.setAttribute("velocityLife", new THREE.InterleavedBufferAttribute(buffer, 4, 4));
    this.geometry.setAttribute("styleFlicker", new THREE.InterleavedBufferAttribute(buffer, 4, 8));
    const refBuffer = refs.instances as THREE.InstancedInterleavedBuffer;
    this.geometry.setAttribute("derivedRef", new THREE.InterleavedBufferAttribute(refBuffer, 2, 0));
    this.slots = slots;
  }
}

/**
 * Firework sparks drawn from their birth state: every slot of the world's firework pool has one
 * instance in a GPU buffer (origin, born, velocity, max life, style, strobe key, size, how long it
 * is drawn), written and uploaded once — the world lists each launch's newly spawned slot ranges
 * (`births`) — and the vertex shader (firework_spark_shader.ts) evaluates the spark at the
 * displayed time. A launch's shell is written with its whole trail ring, and the shader derives
 * the trail spark each ring slot holds at any tick from the shell and the rise tick's stream; a
 * break's sparks are written with every split child of the break (shared/ writes their birth with
 * the break, born at their split) and each trailing spark's ember ring (its birth state, the ring
 * slot, the break's ember stream key), from which the shader derives the ember each ring slot
 * holds, as shared/ does when it writes embers lazily. A frame's CPU work here is therefore in
 * proportion to the launches and breaks since the last one (one run of slots each), not to the
 * live sparks, nor to the trail sparks, children and embers born each tick; everything is copied
 * again only when the world was rebuilt (late join, fast-forward); when the pool's buffer grows
 * (its slots stay where they were) the records are copied into a larger GPU buffer on the GPU,
 * a compaction's moves are repeated on the GPU copy, and a launch that takes an ended one's gap
 * writes its births over records that are dead for good (never drawn).
 * Memory: 48 bytes per pool slot, on the GPU only: records are staged in a small array
 * (STAGING_SLOTS) and copied into their slots of the WebGL buffer (firework_records.ts); without a
 * WebGL context (tests) they go to a CPU array that holds what the GPU would.
 */
import * as THREE from "three";
import { BREAK_GAP_TICKS } from "../../shared/constants.ts";
import type { FireworkBlock, Fireworks } from "../../shared/fireworks.ts";
import type { World } from "../../shared/world.ts";
import {
  GOLD_TINT,
  PALETTE_SIZE,
  RAINBOW_FIRST,
  THEME_TINTS,
} from "../../shared/firework_colors.ts";
import { THEME_TRAIL_TINT } from "../../shared/fireworks.ts";
import { THEMES } from "../../shared/types.ts";
import { DERIVED, derivedCode, derivedIndex, MAX_RECIPES } from "./firework_derived_packing.ts";
import { MOTION, MOTIONS, styleOf } from "../../shared/firework_motion.ts";
import { PHASE } from "../../shared/firework_plan.ts";
import { type Recipe, RECIPES } from "../../shared/firework_recipes.ts";
import { FIREWORK_KINDS } from "../../shared/firework_kinds.ts";
import { STREAM, streamKey, streamPrefix } from "../../shared/prng.ts";
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

/** Whether a launch of `recipe` is drawn from derived records (its sparks placed on the GPU). */
function derives(recipe: Recipe): boolean {
  return recipe.shape === "sphere" || recipe.shape === "palm";
}

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
  /** Slots written by the last `update` (births, or everything after the world changed). */
  written = 0;
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
        uClassSize: { value: MOTIONS.map((motion) => motion.size) },
      },
      ...ADDED_LIGHT,
    });
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

  /** Bytes of the records: on the GPU (or in the mirror) and staged on the CPU. */
  get bytes(): { gpu: number; cpu: number } {
    const gpu = this.slots * FIREWORK_SLOT_STRIDE * 4;
    return { gpu, cpu: this.data.byteLength + (this.gl ? 0 : gpu) };
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
    this.target!.begin();
    if (full) {
      this.system = system;
      this.layoutVersion = pool.layoutVersion;
      this.rebuilds = system.rebuilds;
      this.epoch = tick;
      // Everything else is zero, never drawn: ended launches' gaps, and the slots beyond the
      // last block, which a later launch takes over before it spawns in all of them.
      this.target!.clear();
      for (let b = 0; b < blocks.length; b++) {
        const block = blocks[b];
        this.write(system, block, 0, block.size);
        block.births.length = 0;
      }
    } else {
      this.layoutVersion = pool.layoutVersion;
      if (moved) {
        this.movedUpdates++;
        const moves = pool.moves, target = this.target!;
        for (let m = 0; m < moves.length; m += 3) target.move(moves[m], moves[m + 1], moves[m + 2]);
        // What lay above the compacted blocks is garbage (stale copies of moved sparks); blocks
        // added since take it over before they spawn in all of it.
        let end = 0;
        for (let m = 0; m < moves.length; m += 3) end = Math.max(end, moves[m + 1] + moves[m + 2]);
        target.zero(end, pool.movedFromCount);
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
   * Writes slots [from, to) of `block` (relative) from the pool's birth state. Ember rings are
   * skipped: each trailing spark's ring is written with the spark (`writeRing`), since the
   * shader derives its embers from it; rings are written after the other slots, so that each
   * break's rings make one run of slots.
   */
  private write(system: Fireworks, block: FireworkBlock, from: number, to: number): void {
    const plan = block.plan;
    const trail = block.recipe.trail;
    const ring = trail?.ring ?? 0;
    // The shell and, with it, its whole trail ring (the shader derives each trail spark from the
    // shell); trail births later in the rise are then already written.
    if (from === 0) {
      this.writeSlots(system, block, 0, 1);
      this.writeTrailRing(system, block);
    }
    from = Math.max(from, plan.trailEnd);
    if (from >= to) return;
    if (derives(block.recipe)) {
      this.writeDerived(system, block, from, to);
      return;
    }
    // A ring's or heart's sparks from their birth state, placed in shared/ when first read (the
    // plane they lie in is not in a derived record).
    system.placeBursts(block);
    // The slots between the ember rings (which ascend break by break), run by run.
    let r = from;
    for (let b = 0; b <= plan.breaks && r < to; b++) {
      const start = b < plan.breaks ? plan.emberStart[b] : to;
      const end = b < plan.breaks ? start + plan.trailCount[b] * ring : to;
      if (r < start) {
        const stop = Math.min(to, start);
        this.writeSlots(system, block, r, stop);
        r = stop;
      }
      if (r < end) r = end;
    }
    if (!trail) return;
    for (let b = 0; b < plan.breaks; b++) {
      const first = plan.sparkStart[b];
      const lo = Math.max(from, first), hi = Math.min(to, first + plan.trailCount[b]);
      if (lo < hi) this.writeRings(system, block, b, lo - first, hi - first);
    }
  }

  /**
   * Writes slots [from, to) (relative, past the trail ring) of a sphere's or palm's launch as
   * derived records: per break, its sparks, its split children and its trailing sparks' ember
   * rings, each record the break's burst point, born tick, inherited velocity and base speed,
   * the launch's stream prefix and the slot's place (firework_derived_packing.ts), from which
   * the shader places the spark as shared/ does. Nothing is read from the pool but the shell.
   */
  private writeDerived(system: Fireworks, block: FireworkBlock, from: number, to: number): void {
    const plan = block.plan, recipe = block.recipe;
    const children = recipe.split?.children ?? 0;
    const ring = recipe.trail?.ring ?? 0;
    const row = FIREWORK_KINDS.indexOf(block.kind);
    const theme = THEMES.indexOf(block.theme);
    const prefix = streamPrefix(system.seed, STREAM.firework, block.seq);
    const record = this.breakRecord;
    // Only breaks that burst: a later one's slots stay zero (never drawn) until it does.
    for (let b = 0; b < block.bursts; b++) {
      const sparks = plan.sparkStart[b], count = plan.sparkCount[b];
      const kids = plan.childStart[b], kidsEnd = kids + plan.splitCount[b] * children;
      if (to <= sparks || from >= kidsEnd) continue;
      const frame = system.burstFrame(block, b, this.frame);
      for (let c = 0; c < 3; c++) {
        record[c] = frame[c];
        record[4 + c] = frame[3 + c];
      }
      record[3] = block.tick - this.epoch + plan.riseTicks + b * BREAK_GAP_TICKS;
      record[7] = plan.sparkSpeed[b];
      record[8] = prefix & 0xffff;
      record[9] = prefix >>> 16;
      const aux = recipe.shape === "palm" ? count : plan.splitCount[b];
      const index = derivedIndex(0, b, row, theme);
      // The sparks, then the children (they follow the sparks), then the ember rings.
      let lo = Math.max(from, sparks), hi = Math.min(to, sparks + count);
      if (lo < hi) {
        this.writeBreakRecords(
          block,
          lo,
          hi - lo,
          index + lo - sparks,
          1,
          derivedCode(DERIVED.spark, aux, 0),
        );
      }
      lo = Math.max(from, kids);
      hi = Math.min(to, kidsEnd);
      if (lo < hi) {
        this.writeBreakRecords(
          block,
          lo,
          hi - lo,
          index + lo - kids,
          1,
          derivedCode(DERIVED.child, aux, 0),
        );
      }
      // Each trailing spark written now has its ring of embers written with it (the code counts
      // down with the ring slot).
      lo = Math.max(from, sparks);
      hi = Math.min(to, sparks + plan.trailCount[b]);
      const embers = derivedCode(DERIVED.ember, aux, 0);
      for (let n = lo - sparks; n < hi - sparks; n++) {
        this.writeBreakRecords(block, plan.emberStart[b] + n * ring, ring, index + n, 0, embers);
      }
    }
  }

  /** The floats a break's derived records share (see `writeDerived`). */
  private readonly breakRecord = new Float32Array(10);

  /**
   * Stages `count` derived records of `block` from relative slot `first`: the break's shared
   * floats, then the k-th one's index `index + k · step` and code `code − k · (1 − step)` (a
   * run of sparks or children counts its index up; a ring counts its slot down in the code).
   */
  private writeBreakRecords(
    block: FireworkBlock,
    first: number,
    count: number,
    index: number,
    step: number,
    code: number,
  ): void {
    const data = this.data, record = this.breakRecord;
    const keep = this.keepEvery;
    const thin = keep !== 1;
    const r0 = record[0], r1 = record[1], r2 = record[2], r3 = record[3], r4 = record[4];
    const r5 = record[5], r6 = record[6], r7 = record[7], r8 = record[8], r9 = record[9];
    const codeStep = 1 - step;
    let o = this.stageRun(block.start + first, count);
    for (let k = 0; k < count; k++, o += FIREWORK_SLOT_STRIDE) {
      data[o] = r0;
      data[o + 1] = r1;
      data[o + 2] = r2;
      data[o + 3] = r3;
      data[o + 4] = r4;
      data[o + 5] = r5;
      data[o + 6] = r6;
      data[o + 7] = r7;
      data[o + 8] = r8;
      data[o + 9] = r9;
      data[o + 10] = index + k * step;
      // Not drawn when thinned out (counted from the launch's first slot, so it stays stable).
      data[o + 11] = thin && (first + k) % keep !== 0 ? 0 : code - k * codeStep;
    }
    this.written += count;
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
      recipe.shape === "palm" ? 1 : 0,
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
   * Writes the ember rings of trailing sparks [from, to) of break `b` (those spawned): per ring
   * slot one record, the spark's birth state plus the ring slot, the ember's style and the
   * break's ember stream key, from which the shader derives the ember in that slot at any tick
   * (shared/'s `#dropEmbers`). The break's constants are taken once.
   */
  private writeRings(
    system: Fireworks,
    block: FireworkBlock,
    b: number,
    from: number,
    to: number,
  ): void {
    const { origin, velocity, maxLife, style, born } = system.pool;
    const plan = block.plan;
    const trail = block.recipe.trail!;
    const ring = trail.ring;
    const data = this.data;
    const keep = this.keepEvery;
    // No integer division per record unless thinning (reduced motion).
    const thin = keep !== 1;
    const key = streamKey(system.seed, STREAM.firework, block.seq, PHASE.ember + b);
    const keyLo = key & 0xffff, keyHi = key >>> 16;
    const gold = block.trailTint === GOLD_TINT;
    const t = this.trailIndex(block.recipe);
    const code = 1 + EMBER_T * t;
    const base = block.tick - this.epoch;
    for (let n = from; n < to; n++) {
      const parent = block.start + plan.sparkStart[b] + n;
      const life = maxLife[parent];
      if (!(life > 0)) continue;
      const first = plan.emberStart[b] + n * ring;
      const emberStyle = styleOf(
        trail.motion,
        gold ? GOLD_TINT : (style[parent] | 0) % PALETTE_SIZE,
      );
      const p = parent * 3;
      const ox = origin[p], oy = origin[p + 1], oz = origin[p + 2];
      const vx = velocity[p], vy = velocity[p + 1], vz = velocity[p + 2];
      const bornAt = base + born[parent];
      let o = this.stageRun(block.start + first, ring);
      for (let q = 0; q < ring; q++, o += FIREWORK_SLOT_STRIDE) {
        data[o] = ox;
        data[o + 1] = oy;
        data[o + 2] = oz;
        data[o + 3] = bornAt;
        data[o + 4] = vx;
        data[o + 5] = vy;
        data[o + 6] = vz;
        data[o + 7] = life;
        data[o + 8] = emberStyle;
        data[o + 9] = keyLo;
        data[o + 10] = keyHi;
        // Negative: an ember ring slot (q, spark n, trail row t); 0 when thinned out.
        data[o + 11] = thin && (first + q) % keep !== 0 ? 0 : -(code + q + EMBER_N * n);
      }
      this.written += ring;
    }
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
    let target: FireworkRecordTarget;
    if (keep && this.target) target = this.target.grow(slots);
    else {
      this.target?.dispose();
      target = this.gl
        ? new FireworkRecordBuffer(this.gl, FIREWORK_SLOT_STRIDE, slots)
        : new FireworkRecordMirror(FIREWORK_SLOT_STRIDE, slots);
    }
    this.target = target;
    this.geometry.dispose();
    this.geometry = streakQuadGeometry();
    this.object.geometry = this.geometry;
    // An interleaved view of a per-instance GL buffer is typed as an InterleavedBuffer only.
    const buffer = target.instances as THREE.InstancedInterleavedBuffer;
    this.geometry.setAttribute("originBorn", new THREE.InterleavedBufferAttribute(buffer, 4, 0));
    this.geometry.setAttribute("velocityLife", new THREE.InterleavedBufferAttribute(buffer, 4, 4));
    this.geometry.setAttribute("styleFlicker", new THREE.InterleavedBufferAttribute(buffer, 4, 8));
    this.slots = slots;
  }
}

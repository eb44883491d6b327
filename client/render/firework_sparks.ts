/**
 * Firework sparks placed and evaluated on the GPU: every slot of the world's firework pool has one
 * instance, which carries only a reference (two floats, firework_derived_packing.ts) to a row of
 * its launch's group in the break table (firework_break_table.ts). A launch is written once, when
 * it is first drawn: its launch row (the shell's birth state, its trail's style and key, its slot
 * range), one row per break, and every slot's reference. The vertex shader
 * (firework_spark_shader.ts) derives from them the shell, each trail ring slot's trail spark,
 * each burst spark, split child and ember as shared/ does, and evaluates it at the displayed
 * time. A break, a split, an ember wave or a trail spark writes nothing, and nothing is read from
 * the pool but the shell, so shared/ places a break's sparks only when something else reads them
 * (a checkpoint). A frame's CPU work here is therefore in proportion to the launches since the
 * last one, not to the live sparks nor to the births: the references of a frame's new launches
 * are staged and copied with one `bufferSubData` for each run of adjacent launches (a busy sky's
 * launches of one tick mostly lie side by side), their rows with one texture range a launch.
 * Everything is written again only when the world was rebuilt (late join, fast-forward); when the
 * pool's buffer grows (its slots stay where they were) the references are copied into a larger
 * buffer on the GPU, a compaction's moves are repeated on the GPU and the launch rows' slot
 * ranges rewritten; an ended launch's group is reused, and its references are left as they are:
 * a slot outside the slot range of the row it names is not drawn.
 * Memory: 8 bytes per pool slot and 512 bytes per live launch (a group of four 128-byte rows), on
 * the GPU; without a WebGL context (tests) the references go to a CPU array that holds what the
 * GPU would.
 */
import * as THREE from "three";
import { BREAK_GAP_TICKS } from "../../shared/constants.ts";
import type { FireworkBlock, Fireworks } from "../../shared/fireworks/mod.ts";
import type { World } from "../../shared/world.ts";
import { GOLD_TINT, RAINBOW_FIRST, THEME_TINTS } from "../../shared/firework_colors.ts";
import { THEME_TRAIL_TINT } from "../../shared/fireworks/mod.ts";
import { THEMES } from "../../shared/types.ts";
import { DERIVED, derivedRef, MAX_RECIPES } from "./firework_derived_packing.ts";
import { FireworkBreakTable, LAUNCH_ROW, MAX_BREAKS_PER_GROUP } from "./firework_break_table.ts";
import { LaunchEndQueue } from "./launch_end_queue.ts";
import { MOTION, MOTIONS, styleOf } from "../../shared/firework_motion.ts";
import { type Recipe, RECIPES } from "../../shared/firework_recipes.ts";
import { FIREWORK_KINDS, MAX_BREAKS } from "../../shared/firework_kinds.ts";
import { STREAM, streamPrefix } from "../../shared/prng.ts";
import { EMBER_N, MAX_TRAILS } from "./firework_ember_packing.ts";
import { createFireworkTables, type FireworkTables } from "./firework_tables.ts";
import {
  FireworkRecordBuffer,
  FireworkRecordMirror,
  type FireworkRecordTarget,
} from "./firework_records.ts";
import { FIREWORK_CLASSES, FireworkSparkShader, THEME_ROWS } from "./firework_spark_shader.ts";
import { ADDED_LIGHT, type StreakLook, streakQuadGeometry, streakUniforms } from "./streak_quad.ts";

/** Floats per slot in the reference buffer (firework_derived_packing.ts). */
export const REF_STRIDE = 2;

/** References staged on the CPU before a run of them is copied into the GPU buffer (2 MB). */
const STAGE_SLOTS = 1 << 18;

if (MAX_BREAKS > LAUNCH_ROW) throw new RangeError("firework_breaks: no row left for the launch");

/**
 * Born ticks are stored relative to an epoch (float32 holds integers exactly up to 2^24); past
 * this many ticks after it (~19 hours at 60 Hz) the buffer is rewritten with a new epoch.
 */
const EPOCH_SPAN = 1 << 22;

/** Options for {@link FireworkSparks}. */
export interface FireworkSparksOptions extends StreakLook {
  /** Streak length in ticks of the spark's own motion. */
  tailTicks: number;
  /** Per motion class, a factor on `tailTicks` (missing: 1). */
  classTicks: readonly number[];
  /** Per motion class, the young-burst radius in metres (0: none; spark_packing.ts). */
  classYouth: readonly number[];
  /** Draw the sparks of every n-th slot of a launch (reduced motion: 2); default 1. */
  keepEvery?: number;
  /** Strobing sparks flicker (reduced motion: no); default true. */
  strobe?: boolean;
  renderOrder: number;
  /**
   * The renderer's WebGL context: references go straight into a GPU buffer. Without it (tests)
   * they go to a CPU array (`refMirror`).
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
 * whether its trails are gold, as shared/fireworks/ (block.ts, burst.ts) pick them.
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
  /** Each slot's reference to a row of its launch's group (two floats; 0: nothing drawn). */
  private refs: FireworkRecordTarget | null = null;
  /** The live launches' rows (uBreaks). */
  private readonly table = new FireworkBreakTable();
  /** The launches holding a group of rows, with their groups, by the tick they end. */
  private readonly owners = new LaunchEndQueue<FireworkBlock>();
  /**
   * References staged for `refs`: the run of adjacent launches' slots from `stageStart` (grown
   * up to STAGE_SLOTS, never shrunk).
   */
  private stage = new Float32Array(4096);
  private stageStart = 0;
  private stageCount = 0;
  private slots = 0;
  /** The newest launch written, by (tick, seq): the ones applied after it are new. */
  private newestTick = -Infinity;
  private newestSeq = -Infinity;
  private world: World | null = null;
  private system: Fireworks | null = null;
  private layoutVersion = -1;
  private rebuilds = -1;
  private epoch = 0;
  private readonly trails = new Map<Recipe, number>();
  /** A break's burst point and inherited velocity (Fireworks.burstFrame). */
  private readonly frame = new Float64Array(6);
  /** Rows written by the last `update` (a new launch's launch row and break rows, once). */
  written = 0;
  /** Slot references written by the last `update` (a new launch's slots, once). */
  referenced = 0;
  /** `bufferSubData` calls of the last `update` (one per run of adjacent new launches). */
  uploads = 0;
  /** Updates that followed a compaction by moving references on the GPU (not rewriting them). */
  movedUpdates = 0;
  /** Updates that followed a growth by copying the references on the GPU (not rewriting them). */
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
        ...streakUniforms(options),
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

  /** Without a WebGL context, the CPU array holding the references (REF_STRIDE floats a slot). */
  get refMirror(): Float32Array {
    if (!(this.refs instanceof FireworkRecordMirror)) {
      throw new Error("firework_mirror: the references are on the GPU only");
    }
    return this.refs.array;
  }

  /** Bytes of the references and rows: on the GPU (or in the mirror) and on the CPU. */
  get bytes(): { gpu: number; cpu: number } {
    const slots = this.slots * REF_STRIDE * 4;
    const gpu = slots + this.table.bytes;
    const cpu = this.stage.byteLength + this.table.bytes;
    return { gpu, cpu: cpu + (this.gl ? 0 : slots) };
  }

  /** What the renderer wrote for the shader: the references (the mirror) and the break rows. */
  get writtenRows(): { refs: Float32Array; breaks: Float32Array } {
    return { refs: this.refMirror, breaks: this.table.data };
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
   * Writes and marks for upload the launches made since the last call (or everything, after the
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
        // The references so far go over on the GPU; the new slots are zero (never drawn) until
        // written.
        this.allocate(pool.allocated, true);
        this.grownUpdates++;
      }
    }
    const blocks = pool.blocks;
    this.written = 0;
    this.referenced = 0;
    this.uploads = 0;
    if (full) {
      this.system = system;
      this.layoutVersion = pool.layoutVersion;
      this.rebuilds = system.rebuilds;
      this.epoch = tick;
      // Everything else is zero, never drawn: ended launches' gaps, and the slots beyond the
      // last block, which a later launch takes over before it spawns in all of them.
      this.refs!.clear();
      this.table.reset();
      this.owners.clear();
      this.newestTick = this.newestSeq = -Infinity;
      for (let b = 0; b < blocks.length; b++) this.write(system, blocks[b]);
    } else {
      this.layoutVersion = pool.layoutVersion;
      // Launches that ended: their groups are free for new launches (their slots' references
      // stay: a slot outside the range of the launch row it names is not drawn).
      this.release(tick);
      if (moved) {
        this.movedUpdates++;
        const moves = pool.moves, refs = this.refs!;
        for (let m = 0; m < moves.length; m += 3) refs.move(moves[m], moves[m + 1], moves[m + 2]);
        // What lay above the compacted blocks is stale copies of moved references; blocks
        // added since take it over before they spawn in all of it.
        let end = 0;
        for (let m = 0; m < moves.length; m += 3) end = Math.max(end, moves[m + 1] + moves[m + 2]);
        refs.zero(end, pool.movedFromCount);
        // Every launch left is live: its launch row's range follows its slots.
        const owners = this.owners, data = this.table.data;
        for (let i = 0; i < owners.size; i++) {
          const row = owners.valueAt(i) * MAX_BREAKS_PER_GROUP + LAUNCH_ROW;
          data[this.table.offset(row) + 16] = owners.itemAt(i).start;
        }
        this.table.touchUsed();
      }
      // The launches made since the last update: the pool lists its launches in the order they
      // were applied, so they are the last ones, after the newest written so far.
      let first = blocks.length;
      while (first > 0 && this.isNew(blocks[first - 1])) first--;
      for (let b = first; b < blocks.length; b++) this.write(system, blocks[b]);
    }
    this.flushStage();
    this.geometry.instanceCount = pool.count;
    const uniforms = this.material.uniforms;
    uniforms.uTick.value = tick - this.epoch;
    uniforms.uAlpha.value = alpha;
    uniforms.uStrobeTick.value = this.strobe ? tick : -1;
  }

  /**
   * Uploads the rows written since the last upload now (FireworkBreakTable.upload), not at the
   * next draw: a frame's CPU for its new launches is then all in the frame's preparation, drawn
   * or not. The references went up in `update`.
   */
  upload(renderer: THREE.WebGLRenderer): void {
    this.table.upload(renderer);
  }

  /** Whether `block` was applied after the newest launch written (in (tick, seq) order). */
  private isNew(block: FireworkBlock): boolean {
    return block.tick > this.newestTick ||
      (block.tick === this.newestTick && block.seq > this.newestSeq);
  }

  /** Frees GPU resources. */
  dispose(): void {
    this.geometry.dispose();
    this.material.dispose();
    this.tables.dispose();
    this.table.dispose();
    this.refs?.dispose();
  }

  /**
   * Where `size` references of the slots from `start` go in `stage` (the float index of the
   * first): after the staged run when `start` continues it, else from 0 once the run is copied.
   */
  private stageRun(start: number, size: number): number {
    if (
      this.stageCount > 0 &&
      (start !== this.stageStart + this.stageCount || this.stageCount + size > STAGE_SLOTS)
    ) this.flushStage();
    if (this.stageCount === 0) this.stageStart = start;
    const at = this.stageCount * REF_STRIDE, need = at + size * REF_STRIDE;
    if (this.stage.length < need) {
      const grown = new Float32Array(Math.max(need, 2 * this.stage.length));
      grown.set(this.stage.subarray(0, at));
      this.stage = grown;
    }
    this.stageCount += size;
    return at;
  }

  /** Copies the staged run of references to the GPU buffer. */
  private flushStage(): void {
    if (this.stageCount === 0) return;
    this.refs!.write(this.stageStart, this.stage, 0, this.stageCount);
    this.uploads++;
    this.stageCount = 0;
  }

  /**
   * Writes `block` whole, when it is first drawn: takes a group of rows for it, writes its
   * launch row (the shell's birth state as the pool has it, the trail's style, the launch's
   * stream prefix, its slot range; firework_derived_packing.ts), each break's row (its burst
   * point, born tick, inherited velocity, base speed, plane, stream prefix, kind, theme and `aux`)
   * and every slot's reference: the shell, its trail ring, each break's sparks, children and
   * ember rings. Later births write nothing (the shader derives them).
   */
  private write(system: Fireworks, block: FireworkBlock): void {
    const plan = block.plan, recipe = block.recipe;
    const group = this.table.allocate();
    this.owners.push(block, group);
    if (this.isNew(block)) {
      this.newestTick = block.tick;
      this.newestSeq = block.seq;
    }
    const first = group * MAX_BREAKS_PER_GROUP;
    const kind = FIREWORK_KINDS.indexOf(block.kind);
    const theme = THEMES.indexOf(block.theme);
    const prefix = streamPrefix(system.seed, STREAM.firework, block.seq);
    const children = recipe.split?.children ?? 0;
    const ring = recipe.trail?.ring ?? 0;
    const base = this.stageRun(block.start, block.size);
    const refs = this.stage;
    refs.fill(0, base, base + block.size * REF_STRIDE);
    const t = this.table.data;
    // The launch row: the shell as the pool spawned it.
    const launchRow = first + LAUNCH_ROW;
    {
      // Where the pool holds the shell's birth (a windowed pool writes it there now).
      const i = system.shellSlot(block), p = i * 3, o = this.table.offset(launchRow);
      const { origin, velocity, maxLife, style, flicker, size, born } = system.pool;
      t[o] = origin[p];
      t[o + 1] = origin[p + 1];
      t[o + 2] = origin[p + 2];
      t[o + 3] = block.tick - this.epoch + born[i];
      t[o + 4] = velocity[p];
      t[o + 5] = velocity[p + 1];
      t[o + 6] = velocity[p + 2];
      t[o + 7] = maxLife[i];
      t[o + 8] = style[i];
      t[o + 9] = flicker[i];
      t[o + 10] = size[i];
      // Drawn until its burst puts it out.
      t[o + 11] = maxLife[i] > 0 ? plan.riseTicks : 0;
      t[o + 12] = styleOf(MOTION.trail, block.trailTint);
      t[o + 13] = prefix & 0xffff;
      t[o + 14] = prefix >>> 16;
      t[o + 15] = 0;
      t[o + 16] = block.start;
      t[o + 17] = block.size;
      t[o + 18] = t[o + 19] = 0;
      const tag = launchRow + 1;
      this.reference(base, tag, DERIVED.shell, 1, 1);
      this.reference(base + REF_STRIDE, tag, DERIVED.trail, plan.trailEnd - 1, 1);
    }
    this.written++;
    for (let b = 0; b < plan.breaks; b++) {
      const row = first + b;
      const o = this.table.offset(row);
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
      // Sparks, children, then each trailing spark's ember ring.
      const tag = row + 1;
      const kids = plan.splitCount[b] * children;
      this.reference(
        base + plan.sparkStart[b] * REF_STRIDE,
        tag,
        DERIVED.spark,
        plan.sparkCount[b],
        1,
      );
      this.reference(base + plan.childStart[b] * REF_STRIDE, tag, DERIVED.child, kids, 1);
      this.reference(
        base + plan.emberStart[b] * REF_STRIDE,
        tag,
        DERIVED.ember,
        plan.trailCount[b],
        ring,
      );
      this.written++;
    }
    // Thinned out (reduced motion): every slot not a multiple of keepEvery from the launch's
    // first, so it stays stable.
    const keep = this.keepEvery;
    if (keep !== 1) {
      for (let r = 0; r < block.size; r++) {
        if (r % keep !== 0) refs[base + r * REF_STRIDE] = refs[base + r * REF_STRIDE + 1] = 0;
      }
    }
    this.table.touch(first, MAX_BREAKS_PER_GROUP);
    this.referenced += block.size;
  }

  /**
   * Stages the references of `count` places of kind `kind` (each with `ring` ring slots) in row
   * `tag − 1`, from float `at` of the stage: place i's ring slot q is derivedRef(kind, i, q).
   */
  private reference(at: number, tag: number, kind: number, count: number, ring: number): void {
    if (count <= 0 || ring <= 0) return;
    const refs = this.stage;
    // derivedRef's packing, its range checked once for the last place: q + EMBER_N · i + base.
    const base = derivedRef(kind, count - 1, ring - 1) - (ring - 1) - EMBER_N * (count - 1);
    for (let i = 0; i < count; i++) {
      const first = base + EMBER_N * i;
      for (let q = 0; q < ring; q++) {
        refs[at++] = tag;
        refs[at++] = first + q;
      }
    }
  }

  /**
   * Launches that ended by `tick`: their groups are freed. Their slots' references stay: a slot
   * in the gap they leave names rows another launch may take, but lies outside that launch's
   * slot range (else that launch wrote it), so the shader does not draw it.
   */
  private release(tick: number): void {
    for (let group = this.owners.popEnded(tick); group >= 0; group = this.owners.popEnded(tick)) {
      this.table.free(group);
    }
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
      0, // unused: an ember's size is its motion class's (uClassSize)
    );
    return index;
  }

  /**
   * A new buffer of `slots` references on a fresh geometry (three caches instance counts): zero,
   * or with `keep` holding the old buffer's references in their slots (copied on the GPU).
   */
  private allocate(slots: number, keep = false): void {
    // Grown before the old geometry is disposed: three deletes the GL buffers of a disposed
    // geometry's attributes, the old references' buffer among them.
    let refs: FireworkRecordTarget;
    if (keep && this.refs) refs = this.refs.grow(slots);
    else {
      this.refs?.dispose();
      refs = this.gl
        ? new FireworkRecordBuffer(this.gl, REF_STRIDE, slots)
        : new FireworkRecordMirror(REF_STRIDE, slots);
    }
    this.refs = refs;
    this.geometry.dispose();
    this.geometry = streakQuadGeometry();
    this.object.geometry = this.geometry;
    // An interleaved view of a per-instance GL buffer is typed as an InterleavedBuffer only.
    const refBuffer = refs.instances as THREE.InstancedInterleavedBuffer;
    this.geometry.setAttribute("derivedRef", new THREE.InterleavedBufferAttribute(refBuffer, 2, 0));
    this.slots = slots;
  }
}

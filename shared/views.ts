/**
 * Read-only render views of the world's particle systems. The client uploads these arrays to the
 * GPU as they are; it never writes them. A view's arrays may be replaced by larger ones when its
 * pool grows (on a launch, between steps): read them from the view each frame, do not cache them.
 */

/** How many seconds of velocity a fountain streak spans, from its position backwards. */
export const STREAK_SECONDS = 1 / 30;

/** A dense particle range `[0, count)`; dead slots inside it have colour alpha 0. */
export interface ParticleView {
  /** Number of slots in use; slots at and beyond `count` are garbage. */
  readonly count: number;
  /** xyz at the world's tick. */
  readonly position: Float32Array;
  /** xyz at tick − 1; render `previous + (position − previous) * alpha`. */
  readonly previous: Float32Array;
  /** rgba, linear, brightness already applied; a = 0 means invisible. */
  readonly color: Float32Array;
  /** Sprite diameter in metres. */
  readonly size: Float32Array;
}

/**
 * The fireworks (and gun) view. Streaks: `previous → position` is the exact motion over the last
 * tick (a velocity in metres per tick), so a renderer stretches a spark along it where it is fast;
 * a particle spawned this tick has previous = position. `flicker` is 0 for steady particles; for
 * strobing ones multiply the colour by `strobe(tick, flicker[i])` (firework_colors.ts).
 */
export interface FireworkView extends ParticleView {
  readonly flicker: Float32Array;
}

/** Particles drawn as streaks from `position` back along `velocity * STREAK_SECONDS`. */
export interface StreakView extends ParticleView {
  /** xyz velocity in metres per second. */
  readonly velocity: Float32Array;
}

/** The snowflakes, evaluated in closed form at any fractional tick. */
export interface SnowView {
  /** Active flakes: `round(settings.snow * MAX_FLAKES)`. */
  readonly count: number;
  /** `MAX_FLAKES`: the length (in flakes) of the per-flake arrays. */
  readonly capacity: number;
  /** Writes xyz of the first `count` flakes at fractional tick `time` into `out`. */
  fill(time: number, out: Float32Array): void;
  /** Per flake, sprite diameter in metres. */
  readonly size: Float32Array;
  /** Per flake, sprite variant 0..SNOW_VARIANTS − 1 (six textures, `shared/snow.ts`). */
  readonly variant: Float32Array;
  /** Per flake, radians per second. */
  readonly spin: Float32Array;
  /** Per flake, radians. */
  readonly phase: Float32Array;
  /** Per flake, fall speed in metres per tick. */
  readonly fallPerTick: Float32Array;
  /** Per flake, multiplier on the wind's integral. */
  readonly windFactor: Float32Array;
  /** Per flake, sway frequency in cycles per tick. */
  readonly swayFrequency: Float32Array;
  /** Per flake, sway amplitude along x in metres. */
  readonly swayX: Float32Array;
  /** Per flake, sway amplitude along z in metres. */
  readonly swayZ: Float32Array;
  /** The wind's integral along x (metres) at fractional tick `time` under the current settings. */
  windOffsetX(time: number): number;
  /** The wind's integral along z (metres) at fractional tick `time` under the current settings. */
  windOffsetZ(time: number): number;
  /**
   * Writes, per active flake, 4 floats of the closed form at `time` that a GPU can carry forward
   * with only the elapsed ticks and wind: x and z without sway in box widths, height in box
   * heights, all wrapped to [0, 1), and the sway cycle in [0, 1).
   */
  fillPhases(time: number, out: Float32Array): void;
}

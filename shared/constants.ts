/** Simulation ticks per second. Nothing in `shared/` sees seconds; `DT` is constant. */
export const TICK_RATE = 60;

/** Seconds per tick. */
export const DT = 1 / TICK_RATE;

/** Wall-clock milliseconds per tick. */
export const TICK_MS = 1000 / TICK_RATE;

/**
 * The bounded window W in ticks. Every particle of every system dies within this many ticks of
 * the event (or tick) that spawned it, so the world at tick T is a pure function of the seed,
 * the snapshot at T − W and the events in [T − W, T).
 */
export const WINDOW_TICKS = 480;

/** Clients report a state hash whenever `tick % CHECKPOINT_TICKS === 0`. */
export const CHECKPOINT_TICKS = 60;

/** Default ceiling on live firework + gun particles in one scene (admission control). */
export const DEFAULT_SKY_CAP = 200_000;

/** Most snowflakes a scene shows (snow intensity 1). */
export const MAX_FLAKES = 100_000;

/** Protocol version sent in `welcome`. */
export const PROTOCOL_VERSION = 1;

/** Longest display name a `hello` may carry, in UTF-16 code units after trimming. */
export const NAME_MAX_LENGTH = 32;

/** Half the width of the scene's square ground, metres; the scene spans [-HALF, HALF] in x, z. */
export const SCENE_HALF_EXTENT = 60;

/** Height of the scene's bounding box, metres. Gun shots die when they leave the box. */
export const SCENE_HEIGHT = 90;

/** Launches must start inside [-LAUNCH_HALF_EXTENT, LAUNCH_HALF_EXTENT] in x and z. */
export const LAUNCH_HALF_EXTENT = 45;

/** The fountain's basin sits at the origin with this radius, metres. */
export const FOUNTAIN_BASIN_RADIUS = 6;

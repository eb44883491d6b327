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

/**
 * Default ceiling on firework + gun particle slots reserved in one scene (admission control).
 * Sparks are evaluated in closed form (no step moves them) and drawn by the GPU from their
 * births, so a full sky costs memory rather than time: 44 bytes per slot of births in shared/
 * (the evaluated state is kept only once a view is read) and 48 bytes per slot on the GPU, the
 * buffers ~1.25–1.6 × the slots in use; a steady sky reserves ~3.1 slots per live spark (each
 * launch's block is sized for its whole life), ~390 bytes per live spark in all. A full default
 * sky (~320k live sparks) is ~125 MB; `deno task bench:sky` holds 1M live sparks (bench/README.md).
 */
export const DEFAULT_SKY_CAP = 1_000_000;

/** Most snowflakes a scene shows (snow intensity 1). */
export const MAX_FLAKES = 100_000;

/**
 * Protocol version sent in `welcome`. Bump it whenever the wire or the simulation changes, so a
 * cached old client refuses a newer server instead of desyncing. 2: clients submit event bodies
 * as `{t: "submit", body}`; firework kinds, aimed bursts and the new firework motion. 3: the
 * launch field ±90 m and bursts up to 62 m (an older client would clamp a 60 m burst to 55). 4:
 * `rename` on an open connection, answered by a `presence` of kind `rename` (an older client would
 * drop that frame as invalid). 5:
 * hosts (`host` messages both ways, `rules` events, `snapshot.rules`) and the countdown's finale.
 * 6: quick reactions (`react` / `reaction`) and the browser's `person` token in `hello`.
 * 7: the state hash's four lanes (every checkpoint `hash` an older client reports would differ).
 * 8: bursts and splits draw from keyed streams (firework_draws.ts): every spark of a break is placed
 * differently than an older client would place it.
 * 9: the `rekey` host action and rules event (a new host link), which an older client cannot read.
 * 10: composed shows (`show` events, the compose right) and the derived seeded show.
 * 11: the seeds' last details: the burst's noise depth, the fountain's two bounces and its seeded
 * emission counts and lives, fountain rotation and spiral settings.
 */
export const PROTOCOL_VERSION = 11;

/** Longest display name a `hello` may carry, in UTF-16 code units after trimming. */
export const NAME_MAX_LENGTH = 32;

/** Half the width of the scene's square ground, metres; the scene spans [-HALF, HALF] in x, z. */
export const SCENE_HALF_EXTENT = 60;

/** Height of the scene's bounding box, metres. Gun shots die when they leave the box. */
export const SCENE_HEIGHT = 90;

/**
 * Where a viewer's camera can be, so where the particle gun may fire from: x, z within
 * ±GUN_ORIGIN_HALF_EXTENT and y in [0, GUN_ORIGIN_HEIGHT], metres (the default views sit 130–195 m
 * from the scene's centre, and the orbit controls allow 1.4 × that).
 */
export const GUN_ORIGIN_HALF_EXTENT = 400;
export const GUN_ORIGIN_HEIGHT = 400;

/**
 * Launches must start inside [-LAUNCH_HALF_EXTENT, LAUNCH_HALF_EXTENT] in x and z: the launch
 * field. It is wider and deeper than the show's launch area (SHOW_HALF_EXTENT = 40 in show.ts)
 * that the default view frames, so that every pixel of that view can be aimed at: a click near
 * the screen's edge bursts on the field's near side, where the view is narrower and lower
 * (client/input/aim.ts, client/render/camera_fit.ts). Was 45 (issue 15: side clicks burst 20 % of
 * the width toward the centre).
 */
export const LAUNCH_HALF_EXTENT = 90;

/**
 * Burst heights (metres above the ground) a launch may ask for with its `y` field: high enough to
 * clear the fountain and the snow's densest layer; at most 62, the highest whose shell (the
 * fastest, SHELL_DECELERATION over the longest rise) keeps its trail sparks closer together than
 * their sprite (TRAIL_GAP_BOUND in fireworks/rise.ts), and whose rise keeps FIREWORK_MAX_LIFE within
 * WINDOW_TICKS (was 55). A launch without `y` bursts at a height drawn from its own random
 * stream in [BURST_HEIGHT_DEFAULT_MIN, BURST_HEIGHT_DEFAULT_MAX]: high in that range, so that a
 * BURST_SCALE-sized burst (~25 m radius) mostly clears the ground and fills the default view's sky.
 */
export const BURST_HEIGHT_MIN = 18;
export const BURST_HEIGHT_MAX = 62;
export const BURST_HEIGHT_DEFAULT_MIN = 34;
export const BURST_HEIGHT_DEFAULT_MAX = 50;

/**
 * Every burst's size in space relative to the recipes as authored: burst speeds and burst gravity
 * are both multiplied by it, so a burst keeps its shape and timing and is this much larger. Real
 * shells break about as wide as they are high; at 1 a peony spanned ~11 % of a 1280×720 default
 * view, at 2.2 it spans about a quarter (tests/unit/burst_scale_test.ts).
 */
export const BURST_SCALE = 2.4;

/**
 * For camera fitting: no spark of any kind gets further than BURST_REACH_MAX from its burst point
 * horizontally, none rises more than BURST_RISE_MAX above it (gravity bends the upper half of a
 * burst down: it rises less than it spreads), and none falls further than BURST_DROOP_MAX below
 * it (willows droop most; sparks do not collide with the ground, the ground hides them). Later
 * breaks of a multi-break shell burst within BREAK_OFFSET_MAX of the first (each axis).
 */
export const BURST_REACH_MAX = 15 * BURST_SCALE;
export const BURST_RISE_MAX = 10 * BURST_SCALE;
export const BURST_DROOP_MAX = 36 * BURST_SCALE;
export const BREAK_OFFSET_MAX = 6;

/** Ticks between the breaks of a multi-break shell. */
export const BREAK_GAP_TICKS = 30;

/** The fountain's basin sits at the origin with this radius, metres. */
export const FOUNTAIN_BASIN_RADIUS = 6;

/**
 * Snowfire's deterministic world and wire protocol: what the server and every client share.
 * Pure code (no DOM, clocks or `Math.random`), so the same events give the same particles, hash
 * for hash, in Deno, Node and browsers. This module only re-exports; each concept lives in its
 * own file.
 *
 * - {@link World} steps a scene tick by tick; {@link worldFromWindow} rebuilds the present for a
 *   late joiner from a snapshot and the last window of events.
 * - {@link replay} hashes a scenario at checkpoints (the golden fixtures' format).
 * - {@link eventCost} is the admission control the server and the clients agree on.
 * - `protocol.ts` holds the zod schemas; the wire types (`SceneEvent`, `EventBody`, `Settings`,
 *   `WorldSnapshot`, the messages) are inferred from them.
 *
 * @example
 * ```ts
 * import { eventCost, replay, World } from "./mod.ts";
 *
 * const launch = { seq: 1, tick: 0, by: "ana", body: { type: "launch", x: 0, z: 0 } } as const;
 * const world = new World({ seed: 42 });
 * world.apply(launch);
 * world.advanceTo(60);
 * console.log(eventCost(42, launch).particles, world.hash());
 * console.log(replay({ seed: 42, events: [launch], ticks: 60, every: 60 })[0].hash); // the same
 * ```
 *
 * @module
 */
export * from "./constants.ts";
export * from "./types.ts";
export * from "./views.ts";
export * from "./errors.ts";
export * from "./dmath.ts";
export * from "./prng.ts";
export * from "./hash.ts";
export * from "./word_recorder.ts";
export * from "./settings.ts";
export * from "./staggered_buffer.ts";
export * from "./lanes.ts";
export * from "./particle_pool.ts";
export * from "./block_system.ts";
export * from "./firework_kinds.ts";
export * from "./firework_colors.ts";
export * from "./firework_motion.ts";
export * from "./firework_recipes.ts";
export * from "./firework_plan.ts";
export * from "./firework_draws.ts";
export * from "./fireworks/mod.ts";
export * from "./gun.ts";
export * from "./fountain.ts";
export * from "./snow.ts";
export * from "./show.ts";
export * from "./finale.ts";
export * from "./derived.ts";
export * from "./derived_schedule.ts";
export * from "./budget.ts";
export * from "./checkpoint_hash.ts";
export * from "./world.ts";
export * from "./replay.ts";
export * from "./protocol.ts";

/**
 * How long a scene's event log is kept, in both modes: by age (`RETAIN_HOURS`, default 72) and
 * by count (`RETAIN_EVENTS_PER_SCENE`, default 1,000,000). Whatever either limit drops is pruned
 * in the background; a scene whose whole log is past the age limit and that nobody has open is
 * removed entirely.
 */

/** The retention policy. */
export interface RetentionPolicy {
  /** Events older than this many hours are pruned (fractions allowed: 1/60 is a minute). */
  hours: number;
  /** At most about this many events are kept per scene (the newest). */
  eventsPerScene: number;
}

/** The defaults: three days, a million events per scene. */
export const DEFAULT_RETENTION: Readonly<RetentionPolicy> = Object.freeze({
  hours: 72,
  eventsPerScene: 1_000_000,
});

/**
 * The policy from `RETAIN_HOURS` and `RETAIN_EVENTS_PER_SCENE` (unset: the defaults).
 *
 * @example
 * ```ts
 * import { retentionFromEnv } from "./retention_policy.ts";
 *
 * retentionFromEnv((name) => ({ RETAIN_HOURS: "0.5" })[name]); // { hours: 0.5, eventsPerScene: 1000000 }
 * ```
 */
export function retentionFromEnv(env: (name: string) => string | undefined): RetentionPolicy {
  const policy = { ...DEFAULT_RETENTION };
  const hours = env("RETAIN_HOURS");
  if (hours) policy.hours = Number(hours);
  const events = env("RETAIN_EVENTS_PER_SCENE");
  if (events) policy.eventsPerScene = Number(events);
  return checkRetention(policy);
}

/** Throws a RangeError naming the bad setting. */
export function checkRetention(policy: RetentionPolicy): RetentionPolicy {
  if (!(policy.hours > 0) || !Number.isFinite(policy.hours)) {
    throw new RangeError(`RETAIN_HOURS must be a positive number, got ${policy.hours}`);
  }
  if (!Number.isInteger(policy.eventsPerScene) || policy.eventsPerScene < 1) {
    throw new RangeError(
      `RETAIN_EVENTS_PER_SCENE must be an integer >= 1, got ${policy.eventsPerScene}`,
    );
  }
  return policy;
}
